# Fixtures for tests/inspect/test_perf.py, test_loess.py, test_roc.py, test_calibration_plot.py
# and test_hazard.py.
#
# Run from the repository root:   Rscript tests/inspect/perf_r/make_fixtures.R
# Writes JSON files next to this script (full double precision, jsonlite digits = NA).
# Every file carries the R and gbm versions that wrote it.
suppressPackageStartupMessages({
  library(gbm)
  library(survival)
  library(jsonlite)
})

out_dir <- file.path("tests", "inspect", "perf_r")
stamp <- list(R = R.version.string, gbm = as.character(packageVersion("gbm")))

write_fixture <- function(x, name) {
  x <- c(list(stamp = stamp), x)
  write_json(x, file.path(out_dir, name), digits = NA, auto_unbox = TRUE,
             na = "null", null = "null", pretty = FALSE)
}

# kd-tree and vertex values of an interpolating loess fit (for debugging the port)
kd_info <- function(lo) {
  if (is.null(lo$kd)) return(NULL)
  list(vert = lo$kd$vert, xi = lo$kd$xi, a = lo$kd$a, vval = lo$kd$vval,
       parameter = lo$kd$parameter)
}

data_dir <- "data"
boston <- read.csv(file.path(data_dir, "boston.csv"))
boston$chas <- factor(boston$chas)
pima2 <- read.csv(file.path(data_dir, "pima2.csv"))
spam <- read.csv(file.path(data_dir, "spam.csv"))
lung <- read.csv(file.path(data_dir, "lung.csv"))
lung$status <- as.integer(lung$status == 2)
lung$inst <- NULL

set.seed(20240101)
spam_sub <- spam[sort(sample(nrow(spam), 1500)), ]

# ------------------------------------------------------------------ gbm fits
fits <- list(
  boston_3000 = list(formula = medv ~ ., data = boston, distribution = "gaussian",
                     n.trees = 3000, shrinkage = 0.005, interaction.depth = 3,
                     train.fraction = 0.8, cv.folds = 0, seed = 101),
  boston_100_cv = list(formula = medv ~ ., data = boston, distribution = "gaussian",
                       n.trees = 100, shrinkage = 0.1, interaction.depth = 2,
                       train.fraction = 1, cv.folds = 3, seed = 102),
  boston_30 = list(formula = medv ~ ., data = boston, distribution = "gaussian",
                   n.trees = 30, shrinkage = 0.1, interaction.depth = 2,
                   train.fraction = 1, cv.folds = 0, seed = 103),
  boston_8 = list(formula = medv ~ ., data = boston, distribution = "gaussian",
                  n.trees = 8, shrinkage = 0.1, interaction.depth = 2,
                  train.fraction = 1, cv.folds = 0, seed = 104),
  boston_3 = list(formula = medv ~ ., data = boston, distribution = "gaussian",
                  n.trees = 3, shrinkage = 0.1, interaction.depth = 2,
                  train.fraction = 1, cv.folds = 0, seed = 105),
  pima2_1000 = list(formula = diabetes ~ ., data = pima2, distribution = "bernoulli",
                    n.trees = 1000, shrinkage = 0.01, interaction.depth = 2,
                    train.fraction = 1, cv.folds = 0, seed = 201),
  pima2_300 = list(formula = diabetes ~ ., data = pima2, distribution = "bernoulli",
                   n.trees = 300, shrinkage = 0.1, interaction.depth = 3,
                   train.fraction = 0.75, cv.folds = 0, seed = 202),
  pima2_45 = list(formula = diabetes ~ ., data = pima2, distribution = "bernoulli",
                  n.trees = 45, shrinkage = 0.05, interaction.depth = 1,
                  train.fraction = 1, cv.folds = 0, seed = 203),
  spam_2000 = list(formula = type ~ ., data = spam_sub, distribution = "bernoulli",
                   n.trees = 2000, shrinkage = 0.05, interaction.depth = 2,
                   train.fraction = 0.7, cv.folds = 0, seed = 301),
  spam_777 = list(formula = type ~ ., data = spam_sub, distribution = "adaboost",
                  n.trees = 777, shrinkage = 0.05, interaction.depth = 1,
                  train.fraction = 1, cv.folds = 0, seed = 302),
  lung_500 = list(formula = Surv(time, status) ~ ., data = lung, distribution = "coxph",
                  n.trees = 500, shrinkage = 0.01, interaction.depth = 2,
                  train.fraction = 1, cv.folds = 0, seed = 401),
  lung_1500 = list(formula = Surv(time, status) ~ ., data = lung, distribution = "coxph",
                   n.trees = 1500, shrinkage = 0.005, interaction.depth = 1,
                   train.fraction = 1, cv.folds = 0, seed = 402)
)

perf_cases <- list()
fitted_models <- list()
for (nm in names(fits)) {
  s <- fits[[nm]]
  set.seed(s$seed)
  fit <- gbm(s$formula, data = s$data, distribution = s$distribution,
             n.trees = s$n.trees, shrinkage = s$shrinkage,
             interaction.depth = s$interaction.depth, bag.fraction = 0.5,
             train.fraction = s$train.fraction, cv.folds = s$cv.folds,
             n.cores = 1, keep.data = TRUE, verbose = FALSE)
  fitted_models[[nm]] <- fit
  best_oob <- suppressWarnings(suppressMessages(
    gbm.perf(fit, method = "OOB", plot.it = FALSE)))
  smoother <- attr(best_oob, "smoother")
  best_test <- if (fit$train.fraction < 1) gbm.perf(fit, method = "test", plot.it = FALSE) else NULL
  best_cv <- if (!is.null(fit$cv.error)) gbm.perf(fit, method = "cv", plot.it = FALSE) else NULL
  best_default <- suppressWarnings(suppressMessages(gbm.perf(fit, plot.it = FALSE)))
  perf_cases[[nm]] <- list(
    n_trees = fit$n.trees, train_fraction = fit$train.fraction,
    bag_fraction = fit$bag.fraction, shrinkage = fit$shrinkage,
    distribution = fit$distribution$name,
    train_error = fit$train.error,
    valid_error = if (fit$train.fraction < 1) fit$valid.error else NULL,
    oobag_improve = fit$oobag.improve,
    cv_error = fit$cv.error,
    loess_fitted = smoother$fitted,
    loess_span = smoother$pars$span,
    kd = kd_info(smoother),
    best_oob = as.integer(best_oob), best_test = best_test, best_cv = best_cv,
    best_default = as.integer(best_default),
    ylab = gbm:::get_ylab(fit)
  )
}
write_fixture(list(cases = perf_cases), "perf_cases.json")

# ------------------------------------------------------------------ loess
loess_cases <- list()
add_loess <- function(name, x, y, w = NULL, span = NULL, enp.target = NULL,
                      degree = 2L, surface = "interpolate", cell = 0.2) {
  ctl <- loess.control(surface = surface, cell = cell)
  args <- list(formula = y ~ x, degree = degree, control = ctl)
  dd <- data.frame(x = x, y = y)
  if (!is.null(w)) dd$w <- w
  lo <- if (!is.null(enp.target)) {
    if (is.null(w)) loess(y ~ x, data = dd, enp.target = enp.target, degree = degree, control = ctl)
    else loess(y ~ x, data = dd, weights = w, enp.target = enp.target, degree = degree, control = ctl)
  } else {
    if (is.null(w)) loess(y ~ x, data = dd, span = span, degree = degree, control = ctl)
    else loess(y ~ x, data = dd, weights = w, span = span, degree = degree, control = ctl)
  }
  loess_cases[[name]] <<- list(
    x = x, y = y, weights = w, span = lo$pars$span, enp_target = enp.target,
    degree = degree, surface = surface, cell = cell,
    fitted = as.numeric(fitted(lo)), kd = kd_info(lo))
}
set.seed(7)
for (n in c(4L, 10L, 37L, 100L, 480L, 1500L)) {
  y <- cumsum(rnorm(n)) / sqrt(n) + rnorm(n, sd = 0.3)
  add_loess(sprintf("walk_%d", n), seq_len(n), y, enp.target = min(max(4, n / 10), 50))
}
x <- seq_len(300)
y <- sin(x / 40) + rnorm(300, sd = 0.2)
add_loess("deg0_span03", x, y, span = 0.3, degree = 0L)
add_loess("deg1_span03", x, y, span = 0.3, degree = 1L)
add_loess("deg2_span075", x, y, span = 0.75)
add_loess("deg2_direct", x, y, span = 0.3, surface = "direct")
add_loess("deg1_span15", x, y, span = 1.5, degree = 1L)
add_loess("cell_005", x, y, span = 0.2, cell = 0.05)
xt <- round(runif(200) * 30)
add_loess("ties", xt, xt / 10 + rnorm(200), span = 0.5)
xu <- runif(300) * 10
add_loess("unsorted_weights", xu, cos(xu) + rnorm(300, sd = 0.3), w = runif(300) + 0.1,
          span = 0.4)
write_fixture(list(cases = loess_cases), "loess_cases.json")

# ------------------------------------------------------------------ roc area
set.seed(11)
roc_cases <- list()
add_roc <- function(name, obs, pred) {
  roc_cases[[name]] <<- list(obs = obs, pred = pred, auc = gbm.roc.area(obs, pred))
}
o <- rbinom(200, 1, 0.4)
add_roc("continuous", o, o + rnorm(200))
add_roc("ties", o, round(o + rnorm(200)))
add_roc("all_tied", o, rep(0.3, 200))
add_roc("all_pos", rep(1, 10), runif(10))
pf <- fitted_models[["pima2_1000"]]
add_roc("pima2", pima2$diabetes, predict(pf, pima2, n.trees = 1000))
write_fixture(list(cases = roc_cases), "roc_cases.json")

# ------------------------------------------------------------------ calibrate.plot
# calibrate.plot() returns nothing: repeat its computation (the same calls) here.
calib_curve <- function(y, p, distribution = "bernoulli", knots = NULL, df = 6) {
  data <- data.frame(y = y, p = p)
  family1 <- if (distribution == "bernoulli") binomial else
    if (distribution == "poisson") poisson else gaussian
  gam1 <- glm(y ~ splines::ns(p, df = df, knots = knots), data = data, family = family1)
  x <- seq(min(p), max(p), length = 200)
  yy <- predict(gam1, newdata = data.frame(p = x), se.fit = TRUE, type = "response")
  x <- x[!is.na(yy$fit)]
  yy$se.fit <- yy$se.fit[!is.na(yy$fit)]
  yy$fit <- yy$fit[!is.na(yy$fit)]
  se.lower <- yy$fit - 2 * yy$se.fit
  se.upper <- yy$fit + 2 * yy$se.fit
  if (distribution == "bernoulli") {
    se.lower[se.lower < 0] <- 0
    se.upper[se.upper > 1] <- 1
  }
  if (distribution == "poisson") se.lower[se.lower < 0] <- 0
  list(y = y, p = p, distribution = distribution, knots = knots, df = df,
       x = x, fit = as.numeric(yy$fit), se_fit = as.numeric(yy$se.fit),
       lower = as.numeric(se.lower), upper = as.numeric(se.upper),
       iter = gam1$iter,
       xlim = range(se.lower, se.upper, x), xlim_noshade = range(yy$fit, x))
}
calib_cases <- list()
calib_cases$bernoulli <- calib_curve(pima2$diabetes,
                                     predict(pf, pima2, n.trees = 1000, type = "response"))
bf <- fitted_models[["boston_3000"]]
calib_cases$gaussian <- calib_curve(boston$medv, predict(bf, boston, n.trees = 3000),
                                    distribution = "gaussian")
set.seed(12)
mu <- exp(runif(300, -1, 2))
calib_cases$poisson <- calib_curve(rpois(300, mu), mu, distribution = "poisson")
calib_cases$bernoulli_knots <- calib_curve(pima2$diabetes,
                                           predict(pf, pima2, n.trees = 1000, type = "response"),
                                           knots = c(0.2, 0.4, 0.6))
calib_cases$gaussian_df3 <- calib_curve(boston$medv, predict(bf, boston, n.trees = 3000),
                                        distribution = "gaussian", df = 3)
write_fixture(list(cases = calib_cases), "calibrate_cases.json")

# ------------------------------------------------------------------ basehaz.gbm
lf <- fitted_models[["lung_500"]]
fx <- predict(lf, lung, n.trees = 500)
t_eval <- c(5, 100, 365.5, 800, 2000)
basehaz <- list(
  t = lung$time, delta = lung$status, f_x = fx, t_eval = t_eval,
  cum = basehaz.gbm(lung$time, lung$status, fx),
  cum_teval = basehaz.gbm(lung$time, lung$status, fx, t.eval = t_eval),
  smooth_cum = basehaz.gbm(lung$time, lung$status, fx, smooth = TRUE),
  smooth_haz = basehaz.gbm(lung$time, lung$status, fx, smooth = TRUE, cumulative = FALSE),
  smooth_cum_teval = basehaz.gbm(lung$time, lung$status, fx, t.eval = t_eval, smooth = TRUE)
)
# supsmu on its own, including ties and weights
set.seed(13)
supsmu_cases <- list()
add_sup <- function(name, x, y, wt = NULL, span = "cv") {
  s <- if (is.null(wt)) supsmu(x, y, span = span) else supsmu(x, y, wt = wt, span = span)
  supsmu_cases[[name]] <<- list(x = x, y = y, wt = wt, span = span, out_x = s$x, out_y = s$y)
}
xs <- sort(runif(150) * 5)
add_sup("smooth_150", xs, sin(xs) + rnorm(150, sd = 0.3))
xs <- round(runif(300) * 40) / 4
add_sup("ties_300", xs, sqrt(xs) + rnorm(300, sd = 0.5))
xs <- runif(80)
add_sup("weights_80", xs, xs^2 + rnorm(80, sd = 0.1), wt = runif(80) + 0.5)
add_sup("fixed_span", xs, xs^2 + rnorm(80, sd = 0.1), span = 0.3)
write_fixture(list(basehaz = basehaz, supsmu = supsmu_cases), "basehaz_cases.json")
cat("fixtures written to", out_dir, "\n")
