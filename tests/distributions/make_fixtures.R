# Writes tests/distributions/fixtures/r_stumps.json: one-tree stumps fitted by
# R's gbm on small real data sets, for tests/distributions/test_vs_r.py.
#
# Run from the repository root:  Rscript tests/distributions/make_fixtures.R
# Written with R 4.2.2 and gbm 2.1.8.1 (the versions are also stamped into
# the JSON).  Every case: n.trees = 1, interaction.depth = 1, shrinkage = 1,
# n.minobsinnode = 10; bag.fraction 1 (or 0.5 with the bag reproduced below).
# The data preparation of each "prep" is mirrored in test_vs_r.py.
suppressPackageStartupMessages({library(gbm); library(survival); library(jsonlite)})

data_dir <- file.path("data")
out_file <- file.path("tests", "distributions", "fixtures", "r_stumps.json")

# R 4.2 turns gbm.fit's `if (!is.na(offset))` (coxph branch) into an error
# for a vector offset; this copy only fixes that condition.
gbm_fit_coxph_offset <- gbm::gbm.fit
txt <- deparse(body(gbm_fit_coxph_offset), width.cutoff = 500L)
txt <- sub("if (!is.na(offset))", "if (!all(is.na(offset)))", txt, fixed = TRUE)
body(gbm_fit_coxph_offset) <- parse(text = txt)[[1]]
environment(gbm_fit_coxph_offset) <- asNamespace("gbm")

# ---- data preparations (mirrored in test_vs_r.py) ---------------------------
prep <- function(name) {
  if (name == "boston") {
    d <- read.csv(file.path(data_dir, "boston.csv"))
    list(x = d[, c("lstat", "rm")], y = d$medv, w = d$dis, o = d$age / 20 - 2.5)
  } else if (name == "pima") {
    d <- read.csv(file.path(data_dir, "pima2.csv"))
    list(x = d[, c("glucose", "mass", "age")], y = d$diabetes,
         w = d$pedigree, o = (d$pregnant - 4) / 4)
  } else if (name == "pima_insulin") {
    d <- read.csv(file.path(data_dir, "pima2.csv"))
    list(x = d[, "insulin", drop = FALSE], y = d$diabetes,
         w = d$pedigree, o = (d$pregnant - 4) / 4)
  } else if (name == "insurance") {
    d <- read.csv(file.path(data_dir, "insurance.csv"))
    list(x = d[, c("Holders", "District")], y = d$Claims,
         w = log(d$Holders), o = log(d$Holders))
  } else if (name == "insurance_capped") {
    d <- read.csv(file.path(data_dir, "insurance.csv"))
    list(x = d[, c("Holders", "District")], y = d$Claims,
         w = log(d$Holders), o = log(d$Holders) - 25)
  } else if (name == "ship") {
    d <- read.csv(file.path(data_dir, "ship_accidents.csv"))
    d <- d[d$service > 0, ]
    x <- data.frame(cyear = as.numeric(substr(d$construction, 1, 4)),
                    oyear = as.numeric(substr(d$operation, 1, 4)))
    list(x = x, y = d$incidents, w = x$cyear - 1955, o = log(d$service))
  } else if (name == "synthetic_zero") {
    x <- data.frame(x = 1:40)
    list(x = x, y = c(rep(0, 20), rep(c(1, 3, 2, 5), 5)),
         w = 1 + (1:40 %% 3), o = (1:40) / 40)
  } else if (name == "lung") {
    d <- read.csv(file.path(data_dir, "lung.csv"))
    list(x = d[, "meal.cal", drop = FALSE], y = Surv(d$time, d$status - 1),
         w = d$age / 60, o = (d$age - 60) / 20)
  } else if (name == "lung2") {
    d <- read.csv(file.path(data_dir, "lung.csv"))
    list(x = d[, c("age", "ph.karno", "wt.loss")], y = Surv(d$time, d$status - 1),
         w = d$age / 60, o = (d$age - 60) / 20)
  } else stop("unknown prep ", name)
}

# R gbm's bag: row i (0-based, of nTrain) is in the bag when
# unif_rand() * (nTrain - i) < nInBag - nBaggedSoFar, nInBag = floor(bag * nTrain).
reproduce_bag <- function(seed, n_train, bag) {
  set.seed(seed)
  n_in <- floor(bag * n_train)
  inbag <- logical(n_train)
  k <- 0
  for (i in seq_len(n_train)) {
    if (runif(1) * (n_train - (i - 1)) < n_in - k) {
      inbag[i] <- TRUE
      k <- k + 1
    }
  }
  which(inbag)
}

run_case <- function(id, prep_name, dist, weights = FALSE, offset = FALSE,
                     bag = 1, seed = 1, train_fraction = 1) {
  p <- prep(prep_name)
  n <- NROW(p$x)
  n_train <- floor(train_fraction * n)
  w <- if (weights) p$w else NULL
  o <- if (offset) p$o else NULL
  fitter <- if (dist$name == "coxph" && offset) gbm_fit_coxph_offset else gbm::gbm.fit
  set.seed(seed)
  fit <- fitter(x = p$x, y = p$y, offset = o, distribution = dist, w = w,
                n.trees = 1, interaction.depth = 1, n.minobsinnode = 10,
                shrinkage = 1, bag.fraction = bag, nTrain = n_train,
                keep.data = TRUE, verbose = FALSE)
  tree <- pretty.gbm.tree(fit, 1)
  res <- list(
    id = id, prep = prep_name, distribution = dist, weights = weights,
    offset = offset, bag_fraction = bag, seed = seed, n = n, n_train = n_train,
    n_minobsinnode = 10,
    init_f = fit$initF, train_error = fit$train.error[1],
    valid_error = fit$valid.error[1], oobag_improve = fit$oobag.improve[1],
    tree = as.list(tree),
    # checksums of what R passed to C (internal row order), to catch prep drift
    check = list(sum_y = sum(as.numeric(fit$data$y)), sum_w = sum(fit$data$w),
                 sum_offset = if (offset) sum(fit$data$offset) else 0)
  )
  if (bag < 1) res$inbag <- reproduce_bag(seed, n_train, bag)
  res
}

cases <- list()
add <- function(...) cases[[length(cases) + 1]] <<- run_case(...)
variants <- list(c(FALSE, FALSE), c(TRUE, FALSE), c(FALSE, TRUE), c(TRUE, TRUE))
vname <- function(v) paste0(if (v[1]) "w" else "", if (v[2]) "o" else "",
                            if (!v[1] && !v[2]) "plain" else "")

for (d in c("gaussian", "laplace", "tdist")) {
  for (v in variants) add(paste(d, "boston", vname(v), sep = "_"), "boston",
                          list(name = d), v[1], v[2])
  add(paste(d, "boston_bag", sep = "_"), "boston", list(name = d), TRUE, TRUE, 0.5, 11)
}
add("gaussian_boston_valid", "boston", list(name = "gaussian"), TRUE, TRUE, 1, 1, 0.8)
add("tdist_df2_boston", "boston", list(name = "tdist", df = 2), TRUE, FALSE)
for (a in c(0.25, 0.5, 0.9)) {
  add(paste0("quantile", a, "_boston_plain"), "boston", list(name = "quantile", alpha = a))
  add(paste0("quantile", a, "_boston_o"), "boston", list(name = "quantile", alpha = a),
      FALSE, TRUE)
}
add("quantile0.25_boston_bag", "boston", list(name = "quantile", alpha = 0.25),
    FALSE, TRUE, 0.5, 12)
for (d in c("bernoulli", "adaboost", "huberized")) {
  for (v in variants) add(paste(d, "pima", vname(v), sep = "_"), "pima",
                          list(name = d), v[1], v[2])
  add(paste(d, "pima_insulin_wo", sep = "_"), "pima_insulin", list(name = d), TRUE, TRUE)
  add(paste(d, "pima_bag", sep = "_"), "pima", list(name = d), TRUE, TRUE, 0.5, 13)
}
for (v in variants) add(paste("poisson_insurance", vname(v), sep = "_"), "insurance",
                        list(name = "poisson"), v[1], v[2])
add("poisson_insurance_capped", "insurance_capped", list(name = "poisson"), FALSE, TRUE)
add("poisson_ship_wo", "ship", list(name = "poisson"), TRUE, TRUE)
add("poisson_synthetic_zero", "synthetic_zero", list(name = "poisson"))
add("poisson_synthetic_zero_wo", "synthetic_zero", list(name = "poisson"), TRUE, TRUE)
add("poisson_insurance_bag", "insurance", list(name = "poisson"), TRUE, TRUE, 0.5, 14)
for (pr in c("lung", "lung2")) {
  for (v in variants) add(paste("coxph", pr, vname(v), sep = "_"), pr,
                          list(name = "coxph"), v[1], v[2])
}
add("coxph_lung2_bag", "lung2", list(name = "coxph"), TRUE, FALSE, 0.5, 15)
add("coxph_lung2_bag_o", "lung2", list(name = "coxph"), TRUE, TRUE, 0.5, 16)
add("coxph_lung2_valid", "lung2", list(name = "coxph"), TRUE, FALSE, 1, 1, 0.75)

# Sign of the working response: R's split search only sees the sign of z
# through monotone constraints.  Fit pima's diabetes on glucose alone with
# var.monotone = +1 and -1 and record which direction allows the split.
monotone <- list()
pm <- read.csv(file.path(data_dir, "pima2.csv"))
for (d in c("bernoulli", "adaboost", "huberized")) {
  for (m in c(1, -1)) {
    fit <- gbm::gbm.fit(x = pm[, "glucose", drop = FALSE], y = pm$diabetes,
                        distribution = d, var.monotone = m, n.trees = 1,
                        interaction.depth = 1, n.minobsinnode = 10, shrinkage = 1,
                        bag.fraction = 1, keep.data = FALSE, verbose = FALSE)
    tr <- pretty.gbm.tree(fit, 1)
    monotone[[length(monotone) + 1]] <- list(
      distribution = d, var_monotone = m, split = tr$SplitVar[1] >= 0,
      split_point = tr$SplitCodePred[1], error_reduction = tr$ErrorReduction[1])
  }
}

out <- list(
  generator = "tests/distributions/make_fixtures.R",
  r_version = R.version.string,
  gbm_version = as.character(packageVersion("gbm")),
  survival_version = as.character(packageVersion("survival")),
  cases = cases,
  monotone = monotone
)
dir.create(dirname(out_file), showWarnings = FALSE, recursive = TRUE)
write_json(out, out_file, digits = NA, auto_unbox = TRUE, pretty = TRUE)
cat("wrote", length(cases), "cases to", out_file, "\n")
