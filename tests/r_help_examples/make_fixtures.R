# R gbm's own help-page examples, run in R, their data and numbers written for
# tests/test_r_help_examples.py.
#
# Written for and run with: R version 4.2.2, gbm 2.1.8.1, survival 3.5-3, rpart 4.1.19, jsonlite 1.8.4.
# Every fixture records R.version.string and packageVersion("gbm").
#
# Usage (from the repository root):
#   Rscript tests/r_help_examples/make_fixtures.R [out_dir]
# default out_dir: tests/r_help_examples/fixtures. Deterministic: the fixtures come
# out byte-identical (~30-60 s: two of the fits start a 2-worker cluster).
#
# gbm 2.1.8's Rd files carry runnable examples only on ?gbm (= ?gbm.more, the same
# text), ?print.gbm (iris, multinomial) and ?quantile.rug (a plot of rnorm data
# without a seed); ?calibrate.plot's example is commented out (rpart's kyphosis) and
# is run here as written. The other functions the tests cover (predict.gbm,
# gbm.perf, summary.gbm / relative.influence, plot.gbm's grids, interact.gbm,
# pretty.gbm.tree) are called on the ?gbm example's fit, as that example calls them
# (plus interact.gbm, which it does not). basehaz.gbm and gbm.roc.area have no
# example in their Rd: "constructed" cases below use the ?gbm example's design
# (same simulation recipe, seeds 201/202) with a survival and a 0/1 response.
#
# The ?gbm example fits with n.cores = 1; R's main fit then continues the random
# stream of the last cv fold, whereas with the default n.cores (a cluster) it
# continues right after the folds' seeds, which is the one pygbm reproduces
# (docs/r_random_stream.md). Both are recorded: "gbm1" (n.cores = 1, the help page)
# and "gbm1_cluster" (n.cores = 2). Everything downstream (gbm.perf, summary,
# plot, predict, gbm.more...) is written for both.

suppressPackageStartupMessages({
  library(gbm)
  library(survival)
  library(jsonlite)
})

script_dir <- local({
  a <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  if (length(a)) dirname(normalizePath(sub("^--file=", "", a[1]))) else "tests/r_help_examples"
})
source(file.path(script_dir, "..", "r_reference", "prep.R"))  # write_json_full, as_array

args <- commandArgs(TRUE)
out_dir <- if (length(args) >= 1) args[1] else file.path(script_dir, "fixtures")
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
RNGkind("Mersenne-Twister", "Inversion", "Rejection")
pdf(NULL)  # the examples draw plots

stamp <- list(r_version = R.version.string, gbm_version = as.character(packageVersion("gbm")),
              survival_version = as.character(packageVersion("survival")))

# a data frame as JSON: columns (factors as labels), their class and levels
frame_json <- function(d) {
  list(columns = as.list(names(d)),
       class = lapply(d, function(x) if (is.ordered(x)) "ordered" else if (is.factor(x)) "factor" else "numeric"),
       levels = lapply(d[sapply(d, is.factor)], function(x) as_array(levels(x))),
       values = lapply(d, function(x) as_array(if (is.factor(x)) as.character(x) else as.numeric(x))))
}

pretty_json <- function(fit, i) lapply(as.list(pretty.gbm.tree(fit, i.tree = i)), as_array)

# a fit's numbers every case records: initial value, fitted link, the error curves
fit_json <- function(g) list(
  init_f = g$initF,
  fit = as_array(g$fit),
  train_error = as_array(g$train.error),
  valid_error = as_array(g$valid.error),
  oobag_improve = as_array(g$oobag.improve),
  cv_error = as_array(g$cv.error)
)

# a partial-dependence grid: every variable's grid values (in order of appearance;
# the grid is R's expand.grid of them) and y, at most MAX_GRID_ROWS rows of it
# (evenly spaced, 0-based `rows`) to keep the fixtures small, plus y's sum over all rows.
MAX_GRID_ROWS <- 1500
grid_json <- function(g) {
  k <- ncol(g) - 1
  axes <- lapply(g[seq_len(k)], function(x) as_array(if (is.factor(x)) as.character(unique(x)) else unique(as.numeric(x))))
  rows <- if (nrow(g) <= MAX_GRID_ROWS) seq_len(nrow(g)) else unique(round(seq(1, nrow(g), length.out = MAX_GRID_ROWS)))
  list(vars = as_array(names(g)[seq_len(k)]), axes = axes, n_rows = nrow(g),
       rows = as_array(rows - 1L), y = as_array(g$y[rows]), y_sum = sum(g$y))
}

# ------------------------------------------------------------------ ?gbm (= ?gbm.more)
# The example's text, unchanged, up to the fit (plots are not drawn to a device).
set.seed(101)  # for reproducibility
N <- 1000
X1 <- runif(N)
X2 <- 2 * runif(N)
X3 <- ordered(sample(letters[1:4], N, replace = TRUE), levels = letters[4:1])
X4 <- factor(sample(letters[1:6], N, replace = TRUE))
X5 <- factor(sample(letters[1:3], N, replace = TRUE))
X6 <- 3 * runif(N)
mu <- c(-1, 0, 1, 2)[as.numeric(X3)]
SNR <- 10  # signal-to-noise ratio
Y <- X1 ^ 1.5 + 2 * (X2 ^ 0.5) + mu
sigma <- sqrt(var(Y) / SNR)
Y <- Y + rnorm(N, 0, sigma)
X1[sample(1:N,size=500)] <- NA  # introduce some missing values
X4[sample(1:N,size=300)] <- NA  # introduce some missing values
data <- data.frame(Y, X1, X2, X3, X4, X5, X6)

# the new data of the example (set.seed(103)); sigma is the one above
set.seed(103)
N <- 1000
X1 <- runif(N)
X2 <- 2 * runif(N)
X3 <- ordered(sample(letters[1:4], N, replace = TRUE))
X4 <- factor(sample(letters[1:6], N, replace = TRUE))
X5 <- factor(sample(letters[1:3], N, replace = TRUE))
X6 <- 3 * runif(N)
mu <- c(-1, 0, 1, 2)[as.numeric(X3)]
Y <- X1 ^ 1.5 + 2 * (X2 ^ 0.5) + mu + rnorm(N, 0, sigma)
data2 <- data.frame(Y, X1, X2, X3, X4, X5, X6)

PLOT_VARS <- list(list(i = 1), list(i = 2), list(i = "X3"),
                  list(i = 1:2), list(i = c("X2", "X3")), list(i = 3:4),
                  list(i = c(1, 2, 6), res = 20), list(i = 1:3), list(i = 2:4), list(i = 3:5))
INTERACT_VARS <- list(1:2, 2:3, 3:4, c(1, 6), 1:3, 2:4)

run_gbm_example <- function(n_cores) {
  set.seed(102)  # for reproducibility
  gbm1 <- gbm(Y ~ ., data = data, var.monotone = c(0, 0, 0, 0, 0, 0),
              distribution = "gaussian", n.trees = 100, shrinkage = 0.1,
              interaction.depth = 3, bag.fraction = 0.5, train.fraction = 0.5,
              n.minobsinnode = 10, cv.folds = 5, keep.data = TRUE,
              verbose = FALSE, n.cores = n_cores)
  best_oob <- suppressWarnings(suppressMessages(gbm.perf(gbm1, method = "OOB", plot.it = FALSE)))
  best_test <- gbm.perf(gbm1, method = "test", plot.it = FALSE)
  best_cv <- gbm.perf(gbm1, method = "cv", plot.it = FALSE)
  best.iter <- best_cv  # the example's last assignment
  s1 <- summary(gbm1, n.trees = 1, plotit = FALSE)
  sb <- summary(gbm1, n.trees = best.iter, plotit = FALSE)
  Yhat <- predict(gbm1, newdata = data2, n.trees = best.iter, type = "link")
  grids <- lapply(PLOT_VARS, function(pv) {
    res <- if (is.null(pv$res)) 100 else pv$res
    g <- plot(gbm1, i.var = pv$i, n.trees = best.iter, continuous.resolution = res,
              return.grid = TRUE)
    list(i_var = as_array(pv$i), continuous_resolution = res, grid = grid_json(g))
  })
  inter <- lapply(INTERACT_VARS, function(iv)
    list(i_var = as_array(iv), h = interact.gbm(gbm1, data, i.var = iv, n.trees = best.iter)))
  # predict on the first 6 rows of data2 with levels the fit never saw (R: missing),
  # and with X5 as text (R coerces text to numbers: all NA, with a warning)
  nd <- head(data2, 6)
  nd$X4 <- factor(c("a", "g", "b", "h", NA, "c"))
  nd_text <- head(data2, 6)
  nd_text$X5 <- as.character(nd_text$X5)
  new_levels <- list(
    X4 = as_array(as.character(nd$X4)),
    predict_unseen = as_array(predict(gbm1, nd, n.trees = best.iter)),
    predict_x5_text = as_array(suppressWarnings(predict(gbm1, nd_text, n.trees = best.iter))),
    predict_x5_na = as_array(predict(gbm1, transform(nd_text, X5 = NA_real_), n.trees = best.iter)))
  # summary's permutation method, on a stream of its own (set.seed(104)); the global
  # stream is put back so that gbm.more below continues the fit's
  saved <- get(".Random.seed", envir = globalenv())
  set.seed(104)
  sp <- summary(gbm1, n.trees = best.iter, method = permutation.test.gbm, plotit = FALSE)
  set.seed(104)
  sp_raw <- summary(gbm1, n.trees = best.iter, method = permutation.test.gbm, plotit = FALSE,
                    normalize = FALSE)
  assign(".Random.seed", saved, envir = globalenv())
  summary_permutation <- list(var = as_array(as.character(sp$var)), rel_inf = as_array(sp$rel.inf),
                              raw_var = as_array(as.character(sp_raw$var)),
                              raw = as_array(sp_raw$rel.inf))
  # the same functions without n.trees / method (R's defaults; no random draws)
  ri_msg <- capture.output(ri_default <- relative.influence(gbm1))  # R prints its note
  sd <- summary(gbm1, plotit = FALSE)
  defaults <- list(
    printed = as_array(capture.output(print(gbm1))),
    gbm_perf = as.numeric(gbm.perf(gbm1, plot.it = FALSE)),
    relative_influence = as_array(ri_default),
    relative_influence_message = as_array(trimws(ri_msg)),
    summary = list(var = as_array(as.character(sd$var)), rel_inf = as_array(sd$rel.inf)),
    plot_x1 = grid_json(plot(gbm1, i.var = 1, return.grid = TRUE)),
    interact_12 = interact.gbm(gbm1, data, i.var = 1:2),
    predict_train_1_50_100 = unname(predict(gbm1, data, n.trees = c(1, 50, 100)))
  )
  # interact.gbm on the example's new data: data2$X3 has levels a..d, the fit's (data$X3)
  # d..a; R's interact.gbm takes data2's codes (an R bug: pygbm matches labels), so
  # R's answer changes when data2$X3 is given the fit's level order
  data2_fit_levels <- data2
  data2_fit_levels$X3 <- factor(as.character(data2$X3), levels = levels(data$X3), ordered = TRUE)
  interact_data2 <- lapply(list(c("X2", "X3"), c("X3", "X4"), c("X1", "X3", "X5")), function(iv)
    list(i_var = as_array(iv),
         h_data2 = interact.gbm(gbm1, data2, i.var = iv, n.trees = best.iter),
         h_data2_fit_levels = interact.gbm(gbm1, data2_fit_levels, i.var = iv, n.trees = best.iter)))
  gbm2 <- gbm.more(gbm1, n.new.trees = 100, verbose = FALSE)
  c(list(
    defaults = defaults,
    n_cores = n_cores,
    n_train = gbm1$nTrain),
    fit_json(gbm1), list(
    cv_fitted = as_array(gbm1$cv.fitted),
    cv_folds_of_rows = as_array(gbm1$cv.folds),  # NULL in gbm 2.1.8 (not kept)
    best_oob = as.numeric(best_oob),
    oob_smoother_y = as_array(attr(best_oob, "smoother")$fitted),
    best_test = as.numeric(best_test),
    best_cv = as.numeric(best_cv),
    summary_1 = list(var = as_array(as.character(s1$var)), rel_inf = as_array(s1$rel.inf)),
    summary_best = list(var = as_array(as.character(sb$var)), rel_inf = as_array(sb$rel.inf)),
    relative_influence_best = as_array(relative.influence(gbm1, n.trees = best.iter)),
    relative_influence_all = as_array(relative.influence(gbm1, n.trees = 100)),
    tree_1 = pretty_json(gbm1, 1),
    tree_last = pretty_json(gbm1, gbm1$n.trees),
    c_splits = lapply(gbm1$c.splits, as_array),
    predict_data2_best = as_array(Yhat),
    sse_data2_best = sum((data2$Y - Yhat)^2),
    predict_data2_all = as_array(predict(gbm1, newdata = data2, n.trees = 100)),
    predict_data2_default = as_array(suppressMessages(predict(gbm1, newdata = data2))),
    plot_grids = grids,
    interact = inter,
    interact_data2 = interact_data2,
    new_levels = new_levels,
    summary_permutation = summary_permutation,
    more = list(
      n_trees = gbm2$n.trees,
      fit = as_array(gbm2$fit),
      train_error = as_array(gbm2$train.error),
      valid_error = as_array(gbm2$valid.error),
      oobag_improve = as_array(gbm2$oobag.improve),
      best_test = as.numeric(gbm.perf(gbm2, method = "test", plot.it = FALSE)),
      best_cv = as.numeric(gbm.perf(gbm2, method = "cv", plot.it = FALSE)),  # cv.error of the 100
      best_oob = as.numeric(suppressMessages(gbm.perf(gbm2, method = "OOB", plot.it = FALSE))),
      best_default = as.numeric(gbm.perf(gbm2, plot.it = FALSE)),
      predict_data2_default = as_array(suppressMessages(predict(gbm2, newdata = data2))),
      printed = as_array(capture.output(print(gbm2))),
      predict_data2_200 = as_array(predict(gbm2, newdata = data2, n.trees = 200)),
      tree_last = pretty_json(gbm2, 200)
    )
  ))
}

# permutation influence with train.fraction = 1 (bagged): R's baseline, train.error,
# is then the loss on the rows it permutes
permutation_tf1 <- function() {
  set.seed(7)
  g <- gbm(Y ~ ., data = data, distribution = "gaussian", n.trees = 50, shrinkage = 0.1,
           interaction.depth = 3, bag.fraction = 0.5, train.fraction = 1, verbose = FALSE)
  set.seed(8)
  s <- summary(g, n.trees = 50, method = permutation.test.gbm, plotit = FALSE, normalize = FALSE)
  list(fit = as_array(g$fit), var = as_array(as.character(s$var)), raw = as_array(s$rel.inf))
}

t0 <- Sys.time()
ex <- c(stamp, list(
  example = "?gbm and ?gbm.more (same text), gbm 2.1.8.1",
  data = frame_json(data),
  data2 = frame_json(data2),
  sigma = sigma,
  gbm1 = run_gbm_example(1),
  gbm1_cluster = run_gbm_example(2),
  permutation_train_fraction_1 = permutation_tf1()
))
write_json_full(ex, file.path(out_dir, "gbm_example.json"))
cat(sprintf("gbm_example.json  %.1f s\n", as.numeric(Sys.time() - t0, units = "secs")))

# ------------------------------------------------------------------ ?print.gbm (iris)
t0 <- Sys.time()
data(iris)
set.seed(1)  # the example has no seed: cv folds and bags are drawn after this one
iris.mod <- gbm(Species ~ ., distribution="multinomial", data=iris,
                 n.trees=2000, shrinkage=0.01, cv.folds=5,
                 verbose=FALSE, n.cores=2)
iris_best <- gbm.perf(iris.mod, method = "cv", plot.it = FALSE)
iris_prob <- predict(iris.mod, iris, n.trees = iris_best, type = "response")[, , 1]
iris_out <- c(stamp, list(
  example = "?print.gbm (iris, multinomial), with set.seed(1) added",
  data = frame_json(iris),
  init_f = iris.mod$initF,
  train_error = as_array(iris.mod$train.error),
  cv_error = as_array(iris.mod$cv.error),
  best_cv = as.numeric(iris_best),
  prob_best = lapply(seq_len(ncol(iris_prob)), function(j) as_array(iris_prob[, j])),
  classes = as_array(colnames(iris_prob)),
  relative_influence_best = as_array(relative.influence(iris.mod, n.trees = iris_best)),
  printed = as_array(capture.output(print(iris.mod)))
))
write_json_full(iris_out, file.path(out_dir, "iris_multinomial.json"))
cat(sprintf("iris_multinomial.json  %.1f s\n", as.numeric(Sys.time() - t0, units = "secs")))

# ------------------------------------------------------------------ ?calibrate.plot
# The commented-out example, run as written. calibrate.plot() returns NULL: the
# curve, the +-2 se band and the axis limits are observed by tracing lines(),
# polygon() while it draws (lines() is lines(x, ...): its y is ..1), and par("usr").
drawn <- list()
calib_obs <- function(expr) {
  drawn <<- list()
  suppressMessages({
    trace(graphics::lines, tracer = quote(drawn[[length(drawn) + 1]] <<- list(kind = "lines",
      x = as_array(as.numeric(x)), y = as_array(as.numeric(..1)))), print = FALSE, where = graphics::lines)
    trace(graphics::polygon, tracer = quote(drawn[[length(drawn) + 1]] <<- list(kind = "polygon",
      x = as_array(as.numeric(x)), y = as_array(as.numeric(y)))), print = FALSE, where = graphics::polygon)
  })
  on.exit(suppressMessages({untrace(graphics::lines, where = graphics::lines);
                            untrace(graphics::polygon, where = graphics::polygon)}))
  force(expr)
  list(drawn = drawn, usr = as_array(par("usr")))
}
if (requireNamespace("rpart", quietly = TRUE)) {
  kyphosis <- rpart::kyphosis
  y <- as.numeric(kyphosis$Kyphosis)-1
  x <- kyphosis$Age
  glm1 <- glm(y~poly(x,2),family=binomial)
  p <- predict(glm1,type="response")
  obs <- calib_obs(calibrate.plot(y, p, xlim=c(0,0.6), ylim=c(0,0.6)))
  write_json_full(c(stamp, list(example = "?calibrate.plot (commented out in the Rd; rpart's kyphosis)",
                                y = as_array(y), p = as_array(unname(p)),
                                xlim = as_array(c(0, 0.6)), ylim = as_array(c(0, 0.6)),
                                drawn = obs$drawn, usr = obs$usr)),
                  file.path(out_dir, "calibrate_kyphosis.json"))
  cat("calibrate_kyphosis.json\n")
}

# ------------------------------------------------------------------ constructed: coxph + basehaz.gbm,
# bernoulli + gbm.roc.area + calibrate.plot, on the ?gbm example's design.
simulate_design <- function(seed, N = 1000) {
  set.seed(seed)
  X1 <- runif(N)
  X2 <- 2 * runif(N)
  X3 <- ordered(sample(letters[1:4], N, replace = TRUE), levels = letters[4:1])
  X4 <- factor(sample(letters[1:6], N, replace = TRUE))
  X5 <- factor(sample(letters[1:3], N, replace = TRUE))
  X6 <- 3 * runif(N)
  eta <- X1 ^ 1.5 + 2 * (X2 ^ 0.5) + c(-1, 0, 1, 2)[as.numeric(X3)]
  list(X = data.frame(X1, X2, X3, X4, X5, X6), eta = eta - mean(eta))
}

t0 <- Sys.time()
s <- simulate_design(201)
tt <- rexp(nrow(s$X), rate = exp(0.5 * s$eta))
cens <- rexp(nrow(s$X), rate = 0.5)
dsurv <- data.frame(time = pmin(tt, cens), status = as.numeric(tt <= cens), s$X)
dsurv$X1[sample(1:nrow(dsurv), size = 300)] <- NA
set.seed(202)
cox1 <- gbm(Surv(time, status) ~ ., data = dsurv, distribution = "coxph", n.trees = 100,
            shrinkage = 0.05, interaction.depth = 2, bag.fraction = 0.5, train.fraction = 0.8,
            n.minobsinnode = 10, cv.folds = 3, verbose = FALSE, n.cores = 2)
fx <- predict(cox1, dsurv, n.trees = 100)
t_eval <- c(0.1, 0.5, 1, 2, 5)
cox_out <- c(stamp, list(
  example = "constructed: coxph on the ?gbm design (basehaz.gbm has no Rd example)",
  data = frame_json(dsurv)), fit_json(cox1), list(
  best_test = as.numeric(gbm.perf(cox1, method = "test", plot.it = FALSE)),
  best_cv = as.numeric(gbm.perf(cox1, method = "cv", plot.it = FALSE)),
  f_x = as_array(fx),
  relative_influence = as_array(relative.influence(cox1, n.trees = 100)),
  t_eval = as_array(t_eval),
  basehaz_cum = as_array(basehaz.gbm(dsurv$time, dsurv$status, fx)),
  basehaz_cum_teval = as_array(basehaz.gbm(dsurv$time, dsurv$status, fx, t.eval = t_eval)),
  basehaz_smooth_teval = as_array(basehaz.gbm(dsurv$time, dsurv$status, fx, t.eval = t_eval,
                                              smooth = TRUE)),
  basehaz_smooth_haz = as_array(basehaz.gbm(dsurv$time, dsurv$status, fx, t.eval = t_eval,
                                            smooth = TRUE, cumulative = FALSE))
))
write_json_full(cox_out, file.path(out_dir, "coxph_basehaz.json"))
cat(sprintf("coxph_basehaz.json  %.1f s\n", as.numeric(Sys.time() - t0, units = "secs")))

t0 <- Sys.time()
s <- simulate_design(301)
yb <- rbinom(nrow(s$X), 1, plogis(s$eta))
dbin <- data.frame(Y = yb, s$X)
dbin$X4[sample(1:nrow(dbin), size = 300)] <- NA
set.seed(302)
bin1 <- gbm(Y ~ ., data = dbin, distribution = "bernoulli", var.monotone = c(1, 0, 0, 0, 0, 0),
            n.trees = 100, shrinkage = 0.1, interaction.depth = 3, bag.fraction = 0.5,
            train.fraction = 0.5, n.minobsinnode = 10, cv.folds = 5, verbose = FALSE, n.cores = 2)
best_bin <- gbm.perf(bin1, method = "cv", plot.it = FALSE)
pv <- predict(bin1, dbin[-seq_len(bin1$nTrain), ], n.trees = best_bin, type = "response")
obs <- calib_obs(calibrate.plot(dbin$Y[-seq_len(bin1$nTrain)], pv))
# the same with class-stratified cv folds (gbm's class.stratify.cv)
set.seed(302)
bin_strat <- gbm(Y ~ ., data = dbin, distribution = "bernoulli", var.monotone = c(1, 0, 0, 0, 0, 0),
                 n.trees = 100, shrinkage = 0.1, interaction.depth = 3, bag.fraction = 0.5,
                 train.fraction = 0.5, n.minobsinnode = 10, cv.folds = 5, class.stratify.cv = TRUE,
                 verbose = FALSE, n.cores = 2)
bin_out <- c(stamp, list(
  stratified = list(train_error = as_array(bin_strat$train.error),
                    cv_error = as_array(bin_strat$cv.error),
                    cv_fitted = as_array(bin_strat$cv.fitted)),
  example = "constructed: bernoulli with var.monotone on the ?gbm design (gbm.roc.area has no Rd example)",
  data = frame_json(dbin)), fit_json(bin1), list(
  cv_fitted = as_array(bin1$cv.fitted),
  best_cv = as.numeric(best_bin),
  best_test = as.numeric(gbm.perf(bin1, method = "test", plot.it = FALSE)),
  pred_valid_best = as_array(pv),
  roc_area_valid = gbm.roc.area(dbin$Y[-seq_len(bin1$nTrain)], pv),
  roc_area_cv = gbm.roc.area(dbin$Y[seq_len(bin1$nTrain)], bin1$cv.fitted),
  pd_x1 = grid_json(plot(bin1, i.var = 1, n.trees = best_bin, return.grid = TRUE)),
  pd_x1_response = grid_json(plot(bin1, i.var = 1, n.trees = best_bin, return.grid = TRUE,
                                  type = "response")),
  calibrate_drawn = obs$drawn, calibrate_usr = obs$usr
))
write_json_full(bin_out, file.path(out_dir, "bernoulli_roc.json"))
cat(sprintf("bernoulli_roc.json  %.1f s\n", as.numeric(Sys.time() - t0, units = "secs")))
