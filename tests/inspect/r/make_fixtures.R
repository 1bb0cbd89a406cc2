# Writes the R gbm reference fixtures used by tests/inspect/.
#
# Run from the repository root:  Rscript tests/inspect/r/make_fixtures.R
# Each fixture (tests/inspect/fixtures/<name>.json) holds an R gbm fit (the
# eight tree vectors, c.splits, var.type, var.levels, initF, the coded data)
# and R's outputs of relative.influence, summary.gbm, plot.gbm(return.grid =
# TRUE), interact.gbm and pretty.gbm.tree on it, at full precision.
suppressMessages({
  library(gbm)
  library(survival)
  library(jsonlite)
})

out_dir <- file.path("tests", "inspect", "fixtures")
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
stamp <- list(r_version = R.version.string,
              gbm_version = as.character(packageVersion("gbm")),
              script = "tests/inspect/r/make_fixtures.R")

# R's relative.influence() fails for distributions with parameters (quantile,
# tdist): `object$distribution == "multinomial"` compares a list of length 2.
# The reference is then computed on a copy whose distribution is the name only.
rel_inf <- function(fit, n, scale. = FALSE, sort. = FALSE) {
  r <- tryCatch(relative.influence(fit, n, scale. = scale., sort. = sort.),
                error = function(e) e)
  err <- NULL
  if (inherits(r, "error")) {
    err <- conditionMessage(r)
    fit2 <- fit
    fit2$distribution <- list(name = fit$distribution$name)
    r <- relative.influence(fit2, n, scale. = scale., sort. = sort.)
  }
  list(n_trees = n, scale = scale., sort = sort., names = names(r),
       values = unname(r), r_error = err)
}

grid_ref <- function(fit, vars, n = fit$n.trees, res = 100, type = "link") {
  g <- plot(fit, i.var = vars, n.trees = n, continuous.resolution = res,
            return.grid = TRUE, type = type)
  cols <- lapply(g, function(v) if (is.factor(v)) as.character(v) else v)
  list(i_var = vars, n_trees = n, continuous_resolution = res, type = type,
       columns = names(g), grid = cols)
}

interact_ref <- function(fit, data, vars, n = fit$n.trees) {
  list(i_var = vars, n_trees = n, H = interact.gbm(fit, data, vars, n))
}

pretty_ref <- function(fit, i) {
  p <- pretty.gbm.tree(fit, i)
  list(i_tree = i, row_names = row.names(p), table = as.list(p))
}

summary_ref <- function(fit, n = fit$n.trees) {
  s <- summary(fit, n.trees = n, plotit = FALSE)
  list(n_trees = n, var = as.character(s$var), rel_inf = s$rel.inf)
}

perm_ref <- function(fit, seed = 1) {
  set.seed(seed)
  s <- summary(fit, plotit = FALSE, method = permutation.test.gbm)
  list(var = as.character(s$var), rel_inf = s$rel.inf, seed = seed)
}

export_fit <- function(fit, x_order = NULL) {
  p <- length(fit$var.names)
  x <- matrix(fit$data$x, ncol = p)
  y <- fit$data$y
  w <- fit$data$w
  misc <- fit$data$Misc
  if (!is.null(x_order)) {   # coxph: R keeps the data sorted by time; undo it
    back <- order(x_order)
    x <- x[back, , drop = FALSE]; y <- y[back]; w <- w[back]; misc <- misc[back]
  }
  list(
    init_f = fit$initF,
    n_trees = fit$n.trees,
    shrinkage = fit$shrinkage,
    bag_fraction = fit$bag.fraction,
    interaction_depth = fit$interaction.depth,
    n_minobsinnode = fit$n.minobsinnode,
    n_train = fit$nTrain,
    train_fraction = fit$train.fraction,
    distribution = fit$distribution,
    var_names = fit$var.names,
    var_type = fit$var.type,
    var_levels = lapply(fit$var.levels, unname),
    c_splits = fit$c.splits,
    train_error = fit$train.error,
    trees = lapply(fit$trees, function(t) setNames(t, c(
      "split_var", "split_code_pred", "left", "right", "missing",
      "error_reduction", "weight", "prediction"))),
    x_columns = lapply(seq_len(p), function(j) x[, j]),
    y = y, w = w, misc = if (all(is.na(misc))) NULL else misc,
    offset = if (all(is.na(fit$data$offset))) NULL else fit$data$offset
  )
}

# jsonlite's digits = NA keeps only 15 significant digits: write every double
# with 17 ("%.17g" round-trips exactly), NA/NaN as null.
exact <- function(obj) {
  if (is.list(obj)) {
    out <- lapply(obj, exact)
    attributes(out) <- attributes(obj)[c("names")]
    return(out)
  }
  if (is.double(obj) && !is.factor(obj)) {
    txt <- ifelse(is.finite(obj), sprintf("%.17g", obj), "null")
    return(structure(paste0("[", paste(txt, collapse = ","), "]"), class = "json"))
  }
  obj
}

write_fixture <- function(name, fit, refs, x_order = NULL, data_spec = list()) {
  obj <- list(meta = c(stamp, list(name = name)), data_spec = data_spec,
              fit = export_fit(fit, x_order), ref = refs)
  path <- file.path(out_dir, paste0(name, ".json"))
  writeLines(toJSON(exact(obj), na = "null", null = "null", json_verbatim = TRUE), path)
  cat("wrote", path, "\n")
}

# ---- boston, gaussian -----------------------------------------------------------
boston <- read.csv("data/boston.csv", stringsAsFactors = TRUE)
boston$chas <- factor(boston$chas)
set.seed(11)
fit <- gbm(medv ~ ., data = boston, distribution = "gaussian", n.trees = 100,
           interaction.depth = 3, shrinkage = 0.1, bag.fraction = 1,
           n.minobsinnode = 10)
refs <- list(
  relative_influence = list(rel_inf(fit, 100), rel_inf(fit, 30, TRUE, FALSE),
                            rel_inf(fit, 100, TRUE, TRUE), rel_inf(fit, 5, FALSE, TRUE)),
  summary = list(summary_ref(fit), summary_ref(fit, 10)),
  permutation = perm_ref(fit),
  grids = list(grid_ref(fit, "lstat"), grid_ref(fit, 6, res = 20),
               grid_ref(fit, "chas"), grid_ref(fit, "lstat", n = 40, res = 7),
               grid_ref(fit, c("lstat", "rm"), res = 30),
               grid_ref(fit, c("chas", "lstat"), res = 25),
               grid_ref(fit, c("lstat", "rm", "dis"), res = 8),
               grid_ref(fit, c("rm", "chas", "nox"), res = 6)),
  interactions = list(interact_ref(fit, boston, c("lstat", "rm")),
                      interact_ref(fit, boston, c("lstat", "chas")),
                      interact_ref(fit, boston, c("nox", "dis"), 50),
                      interact_ref(fit, boston, c("lstat", "rm", "dis")),
                      interact_ref(fit, boston, c("zn", "chas"), 5)),
  pretty = list(pretty_ref(fit, 1), pretty_ref(fit, 37))
)
write_fixture("boston_gaussian", fit, refs,
              data_spec = list(file = "boston.csv", factors = "chas"))

# ---- boston, stumps (brute force = weighted traversal for one variable) ------------
set.seed(12)
fit <- gbm(medv ~ ., data = boston, distribution = "gaussian", n.trees = 60,
           interaction.depth = 1, shrinkage = 0.1, bag.fraction = 1)
refs <- list(grids = list(grid_ref(fit, "lstat", res = 40), grid_ref(fit, "chas")),
             relative_influence = list(rel_inf(fit, 60)))
write_fixture("boston_stumps", fit, refs,
              data_spec = list(file = "boston.csv", factors = "chas"))

# ---- pima2, bernoulli with missing values ------------------------------------------------
pima <- read.csv("data/pima2.csv")
set.seed(13)
fit <- gbm(diabetes ~ ., data = pima, distribution = "bernoulli", n.trees = 100,
           interaction.depth = 3, shrinkage = 0.05, bag.fraction = 1)
refs <- list(
  relative_influence = list(rel_inf(fit, 100), rel_inf(fit, 100, TRUE, TRUE)),
  summary = list(summary_ref(fit)),
  permutation = perm_ref(fit),
  grids = list(grid_ref(fit, "glucose"), grid_ref(fit, "glucose", type = "response"),
               grid_ref(fit, "insulin", res = 15),
               grid_ref(fit, c("glucose", "mass"), res = 20, type = "response"),
               grid_ref(fit, c("glucose", "mass", "age"), res = 5)),
  interactions = list(interact_ref(fit, pima, c("glucose", "mass")),
                      interact_ref(fit, pima, c("insulin", "triceps")),
                      interact_ref(fit, pima, c("glucose", "insulin", "age"), 60)),
  pretty = list(pretty_ref(fit, 1), pretty_ref(fit, 100))
)
write_fixture("pima2_bernoulli", fit, refs, data_spec = list(file = "pima2.csv"))

# ---- lending_club subset, bernoulli with many-level factors ----------------------------------
lc <- read.csv("data/lending_club.csv", stringsAsFactors = TRUE)[1:3000, ]
lc$Class <- as.numeric(lc$Class == "bad")
set.seed(14)
fit <- gbm(Class ~ funded_amnt + term + int_rate + sub_grade + addr_state +
             verification_status + annual_inc + emp_length + revol_util,
           data = lc, distribution = "bernoulli", n.trees = 100,
           interaction.depth = 3, shrinkage = 0.05, bag.fraction = 1)
refs <- list(
  relative_influence = list(rel_inf(fit, 100), rel_inf(fit, 100, TRUE, TRUE)),
  summary = list(summary_ref(fit)),
  permutation = perm_ref(fit),
  grids = list(grid_ref(fit, "sub_grade"), grid_ref(fit, "addr_state", type = "response"),
               grid_ref(fit, c("int_rate", "term"), res = 20),
               grid_ref(fit, c("sub_grade", "term")),
               grid_ref(fit, c("int_rate", "term", "verification_status"), res = 10),
               grid_ref(fit, c("sub_grade", "addr_state", "annual_inc"), res = 3)),
  interactions = list(interact_ref(fit, lc, c("sub_grade", "int_rate")),
                      interact_ref(fit, lc, c("addr_state", "term")),
                      interact_ref(fit, lc, c("int_rate", "sub_grade", "addr_state"))),
  pretty = list(pretty_ref(fit, 1), pretty_ref(fit, 2))
)
write_fixture("lending_bernoulli", fit, refs,
              data_spec = list(file = "lending_club.csv", rows = 3000,
                               factors = c("term", "sub_grade", "addr_state",
                                           "verification_status", "emp_length")))

# ---- lung, coxph ----------------------------------------------------------------------
lung <- read.csv("data/lung.csv")
lung$status <- lung$status - 1
set.seed(15)
fit <- gbm(Surv(time, status) ~ ., data = lung, distribution = "coxph",
           n.trees = 100, interaction.depth = 2, shrinkage = 0.05,
           bag.fraction = 1, n.minobsinnode = 5)
refs <- list(
  relative_influence = list(rel_inf(fit, 100), rel_inf(fit, 50, TRUE, TRUE)),
  summary = list(summary_ref(fit)),
  grids = list(grid_ref(fit, "age"), grid_ref(fit, c("age", "ph.ecog"), res = 10)),
  interactions = list(interact_ref(fit, lung, c("age", "ph.ecog")),
                      interact_ref(fit, lung, c("wt.loss", "meal.cal"))),
  pretty = list(pretty_ref(fit, 3))
)
write_fixture("lung_coxph", fit, refs, x_order = fit$data$i.timeorder,
              data_spec = list(file = "lung.csv"))

# ---- boston, quantile (alpha = .25) and t-distribution: R's relative.influence fails --------
for (spec in list(list(name = "boston_quantile", dist = list(name = "quantile", alpha = 0.25)),
                  list(name = "boston_tdist", dist = list(name = "tdist", df = 4)))) {
  set.seed(16)
  fit <- gbm(medv ~ ., data = boston, distribution = spec$dist, n.trees = 80,
             interaction.depth = 2, shrinkage = 0.1, bag.fraction = 1)
  refs <- list(
    relative_influence = list(rel_inf(fit, 80), rel_inf(fit, 80, TRUE, TRUE)),
    grids = list(grid_ref(fit, "lstat", res = 30), grid_ref(fit, c("lstat", "rm"), res = 10)),
    interactions = list(interact_ref(fit, boston, c("lstat", "rm"))),
    pretty = list(pretty_ref(fit, 2))
  )
  write_fixture(spec$name, fit, refs,
                data_spec = list(file = "boston.csv", factors = "chas"))
}
