# Fixtures for tests/frontend/test_fixtures_r.py: what R's gbm() makes of a formula.
#
# For each case, gbm() itself is run (n.trees = 1) and its model-frame results are
# recorded: var.names, var.type, var.levels and the coded predictor matrix exactly as
# gbm.fit hands it to the C++ code (object$data$x, back in the original row order),
# plus model.response / model.offset / model.weights of gbm()'s own model frame
# (na.action = na.pass, drop.unused.levels = TRUE).
#
# Run from the repository root:  Rscript tests/frontend/make_fixtures.R
# Written with R 4.2.2, gbm 2.1.8.1, survival 3.5.3, jsonlite 1.8.4 (see "meta" in the JSON).
# Doubles are written as strings with 17 significant digits (exact round trip);
# NA is null.
suppressPackageStartupMessages({library(gbm); library(survival); library(jsonlite)})

data_dir <- "data"
out_file <- file.path("tests", "frontend", "fixtures", "model_frames.json")
rd <- function(f, ...) read.csv(file.path(data_dir, f), ...)
num17 <- function(v) ifelse(is.na(v), NA_character_, sprintf("%.17g", as.numeric(v)))

boston <- rd("boston.csv"); boston$chas <- factor(boston$chas)
pima <- rd("pima2.csv")
bc <- rd("breast_cancer.csv")
for (v in setdiff(names(bc), "Class")) bc[[v]] <- factor(bc[[v]], levels = 1:10, ordered = TRUE)
ins <- rd("insurance.csv")
ins$District <- factor(ins$District)
ins$Group <- factor(ins$Group, levels = c("<1l", "1-1.5l", "1.5-2l", ">2l"), ordered = TRUE)
ins$Age <- factor(ins$Age, levels = c("<25", "25-29", "30-35", ">35"), ordered = TRUE)
lung <- rd("lung.csv")
lc <- rd("lending_club.csv", stringsAsFactors = TRUE)[1:3000, ]  # first 3000 rows (file size)

cases <- list(
  list(name = "boston_all", data = "boston", formula = "medv ~ .", dist = "gaussian"),
  list(name = "boston_terms", data = "boston",
       formula = "medv ~ log(crim) + I(rm^2) + lstat + sqrt(tax) + chas + I(dis * nox)",
       dist = "gaussian"),
  list(name = "boston_minus", data = "boston", formula = "medv ~ . - chas - rad", dist = "gaussian"),
  list(name = "pima_all", data = "pima", formula = "diabetes ~ .", dist = "bernoulli"),
  list(name = "pima_weights", data = "pima", formula = "diabetes ~ glucose + mass + insulin",
       dist = "bernoulli", weights = "pedigree"),
  list(name = "breast_cancer_ordered", data = "bc", formula = "Class ~ .", dist = "bernoulli"),
  list(name = "insurance_offset", data = "ins",
       formula = "Claims ~ District + Group + Age + offset(log(Holders))", dist = "poisson"),
  list(name = "insurance_two_offsets", data = "ins",
       formula = "Claims ~ Group + Age + offset(log(Holders)) + offset(I(Holders/1000))",
       dist = "poisson"),
  list(name = "lung_surv", data = "lung", formula = "Surv(time, status) ~ .", dist = "coxph"),
  list(name = "lending_club_strings", data = "lc", formula = "Class ~ .", dist = "gaussian"),
  list(name = "boston_r_functions", data = "boston",
       formula = paste("medv ~ factor(rad) + as.numeric(chas) + ordered(rad) + pmin(lstat, 10)",
                       "+ round(rm) + as.integer(tax/100) + factor(ifelse(age > 50, 'old', 'new'))",
                       "+ factor(rad, levels = c(1, 2, 3, 24)) + as.factor(zn)"),
       dist = "gaussian"),
  list(name = "lung_r_functions", data = "lung",
       formula = paste("Surv(time, status) ~ pmax(age, 50) + factor(ph.ecog) + as.numeric(factor(inst))",
                       "+ as.factor(sex) + factor(wt.loss > 5) + ifelse(meal.cal >= 1000, 1, 0)"),
       dist = "coxph"),
  list(name = "boston_cut", data = "boston",
       formula = paste("medv ~ cut(lstat, c(0, 10, 20, Inf)) + cut(rm, 4) + cut(age, 3, labels = FALSE)",
                       "+ cut(dis, c(1, 2, 4, 13), right = FALSE, include.lowest = TRUE)",
                       "+ cut(tax, 3, dig.lab = 2, ordered_result = TRUE)",
                       "+ cut(nox, c(0.3, 0.5, 0.9), labels = c('low', 'high'))",
                       "+ cut(crim, c(0.1, 1, 10)) + cut(ptratio, c(12, 17, 19, 23), labels = c('a', 'b', 'a'))",
                       "+ cut(b, c(-Inf, 350, Inf)) + cut(indus, c(0, 0.46, 0.461, 30))",
                       "+ factor(ifelse(zn > 0, TRUE, FALSE)) + pmin(rad, Inf) + cut(medv * 0 + 5, 2)",
                       "+ cut(lstat, c(5, 10, 20), labels = FALSE)"),
       dist = "gaussian"),
  list(name = "boston_operators", data = "boston",
       formula = paste("medv ~ factor(rad > 4 & tax > 300) + factor(rad %in% c(1, 2))",
                       "+ I(rm %% 2) + I(rm%/%2) + factor(rm > 6 | age < 50) + factor(!rm > 6)",
                       "+ factor(ifelse(rad %in% c(4, 5) & tax > 300, 'a', 'b')) + I(rm%%2 + 1)",
                       "+ factor(chas %in% 1) + factor(zn > 0 & (indus < 5 | nox > 0.6))"),
       dist = "gaussian"),
  list(name = "lung_operators", data = "lung",
       formula = paste("Surv(time, status) ~ factor(ph.ecog > 1 & wt.loss > 5)",
                       "+ factor(meal.cal > 1000 | wt.loss > 10) + factor(!is.na(meal.cal))",
                       "+ factor(inst %in% c(1, 11, NA)) + I(age %% 10) + I(age %/% 10)",
                       "+ ifelse(sex == 1 & !is.na(ph.karno), ph.karno, 0)",
                       "+ factor(!(pat.karno > 80)) + factor(ph.ecog %in% c(0, 1) | sex == 2)"),
       dist = "coxph"),
  list(name = "boston_levels_functions", data = "boston",
       formula = paste("medv ~ relevel(factor(rad), ref = '24') + relevel(factor(zn > 20), ref = 2)",
                       "+ trunc(rm) + trunc(-lstat/10) + droplevels(factor(rad, levels = c(1, 2, 3, 99)))"),
       dist = "gaussian"),
  list(name = "lung_text_comparisons", data = "lung",
       formula = paste("Surv(time, status) ~ factor(ph.ecog > '1') + factor(factor(inst) == '11')",
                       "+ factor(as.character(sex) != 1) + ifelse(ph.ecog <= '0', 1, 0)"),
       dist = "coxph"),
  list(name = "breast_cancer_ordered_comparisons", data = "bc",
       formula = "Class ~ factor(Cl.thickness > '5') + factor(Cell.size <= 3) + ifelse(Mitoses >= '2', 1, 0)",
       dist = "bernoulli"),
  # R's precedence inside terms (Python's ^ is below +, its % level with *, R's ! takes in
  # the arithmetic after it)
  list(name = "boston_precedence", data = "boston",
       formula = paste("medv ~ I(rm^2 + 1) + I(lstat * rm %% 3) + I(-rm^2*2) + I(2^-1*rm)",
                       "+ factor(!(rm > 6) * 1 > 0) + I(tax %/% 100 / 2) + I(2^3^0.5 + lstat)",
                       "+ factor(!rad > 4 & tax > 300 | rm < 5) + factor(rad, levels = c(1:3, 24))",
                       "+ factor(rad %in% -1:3) + I(rm * 2:2)"),
       dist = "gaussian"),
  list(name = "boston_logical_functions", data = "boston",
       formula = paste("medv ~ signif(rm, 2) + signif(lstat/7, 1) + signif(tax, 0)",
                       "+ as.numeric(as.logical(rad - 1)) + as.numeric(xor(rm > 6, chas == 1))",
                       "+ as.numeric(is.finite(log(rm - 4))) + as.numeric(is.infinite(1/(rad - 1)))",
                       "+ factor(as.logical(ifelse(rm > 6, 'T', 'no')))"),
       dist = "gaussian"),
  list(name = "lung_factor_labels_na_rm", data = "lung",
       formula = paste("Surv(time, status) ~ factor(sex, labels = c('m', 'f'))",
                       "+ factor(ph.ecog, labels = 'e') + factor(inst %% 3, labels = c('a', 'a', 'b'))",
                       "+ pmin(wt.loss, 5, na.rm = TRUE) + pmax(meal.cal, pat.karno * 10, na.rm = TRUE)",
                       "+ ordered(ph.ecog, levels = 3:0, labels = c('w', 'x', 'y', 'z'))"),
       dist = "coxph"),
  # summaries of the training data (pygbm keeps them for new data; R's predict.gbm
  # takes the new rows')
  list(name = "boston_summaries", data = "boston",
       formula = paste("medv ~ ifelse(rm > median(rm), 1, 0) + I(lstat - mean(lstat))",
                       "+ I(tax/max(tax)) + factor(crim > quantile(crim, 0.9))",
                       "+ I((age - mean(age))/sd(age)) + I(dis/var(dis)) + I(nox - min(nox))",
                       "+ as.numeric(b > quantile(b, probs = 0.25))"),
       dist = "gaussian"),
  list(name = "lung_summaries_na_rm", data = "lung",
       formula = paste("Surv(time, status) ~ ifelse(wt.loss > median(wt.loss, na.rm = TRUE), 1, 0)",
                       "+ I(meal.cal - mean(meal.cal, na.rm = TRUE)) + as.numeric(age > quantile(age, 0.75))",
                       "+ I(pat.karno/max(pat.karno, na.rm = TRUE)) + I(inst/sd(inst, na.rm = TRUE))"),
       dist = "coxph"),
  # left-hand sides R evaluates as one expression (a formula parser reads -, +, ^ there
  # as formula operators): a comparison, arithmetic, R's logical operators
  list(name = "boston_response_comparison", data = "boston", formula = "medv > 25 ~ .",
       dist = "bernoulli"),
  list(name = "boston_response_arithmetic", data = "boston",
       formula = "medv/10 - 1 ~ lstat + I(rm^2) + rad", dist = "gaussian"),
  list(name = "boston_response_logical", data = "boston",
       formula = "(chas == 1 | rad > 8) & !(medv < 20) ~ lstat + rm + tax", dist = "bernoulli"),
  list(name = "pima_response_sum", data = "pima", formula = "pregnant + age ~ . - diabetes",
       dist = "poisson")
)

run_case <- function(cs) {
  d <- get(cs$data)
  f <- as.formula(cs$formula)
  set.seed(1)
  fit <- if (is.null(cs$weights)) {
    gbm(f, data = d, distribution = cs$dist, n.trees = 1, keep.data = TRUE)
  } else {
    d$.w <- d[[cs$weights]]
    gbm(f, data = d, distribution = cs$dist, n.trees = 1, keep.data = TRUE, weights = .w)
  }
  n <- nrow(d); p <- length(fit$var.names)
  xm <- matrix(fit$data$x, nrow = n)
  if (!is.null(fit$data$i.timeorder)) {      # coxph: gbm.fit reorders rows by time
    xo <- xm; xo[fit$data$i.timeorder, ] <- xm; xm <- xo
  }
  mf <- if (is.null(cs$weights)) {
    model.frame(f, data = d, na.action = na.pass, drop.unused.levels = TRUE)
  } else {
    model.frame(f, data = d, weights = .w, na.action = na.pass, drop.unused.levels = TRUE)
  }
  y <- model.response(mf)
  resp <- if (inherits(y, "Surv")) {
    list(time = num17(y[, 1]), status = num17(y[, 2]), levels = NULL)
  } else if (is.factor(y)) {
    list(y = as.integer(y) - 1, levels = levels(y))
  } else list(y = num17(y), levels = NULL, logical = is.logical(y))
  off <- model.offset(mf)
  w <- model.weights(mf)
  list(name = cs$name, data = cs$data, formula = cs$formula, weights_column = cs$weights,
       var_names = fit$var.names, var_type = as.integer(fit$var.type),
       var_levels = lapply(fit$var.levels, function(l) I(if (is.numeric(l)) num17(l) else as.character(l))),
       x = lapply(seq_len(p), function(j) num17(xm[, j])),
       response = resp, offset = if (is.null(off)) NULL else num17(off),
       weights = if (is.null(w)) NULL else num17(w))
}

out <- list(
  meta = list(R = R.version.string, gbm = as.character(packageVersion("gbm")),
              survival = as.character(packageVersion("survival")),
              jsonlite = as.character(packageVersion("jsonlite")),
              collation = icuGetCollate(), written = format(Sys.Date())),
  cases = lapply(cases, run_case))
writeLines(toJSON(out, digits = NA, na = "null", null = "null", auto_unbox = TRUE), out_file)
cat("wrote", out_file, "\n")
