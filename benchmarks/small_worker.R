# One R gbm fit of a statistician's workload: Rscript small_worker.R spec.json
# The R twin of small_worker.py: sets the data up with tests/r_reference/prep.R (the
# twin of prep.py); with the warm start (spec$warmup) first makes the same calls with a
# few trees (gbm, and with cv gbm.perf) and predicts a few rows (timed apart: the
# warm-up); then times
# gbm() (and, with cv, gbm.perf(method = "cv")) with system.time, and writes the
# measurements as JSON. With n.cores other than 1 the cv folds run in a PSOCK cluster
# that R does not wait for (n.cores = 1 fits them in this process with lapply); run.py
# counts the CPU time of the whole process tree (it adopts and reaps them) and
# subtracts this process's CPU time outside the fit (cpu_outside_fit, the warm-up's
# included). The prepared data's summary (prep.R's data_check) goes to spec$out_data.
suppressPackageStartupMessages({
  library(gbm)
  library(survival)
  library(jsonlite)
})

spec <- fromJSON(commandArgs(trailingOnly = TRUE)[1], simplifyVector = FALSE)
source(file.path(spec$root, "tests", "r_reference", "prep.R"))

# CPU seconds of this process and of the children it waited for
process_cpu <- function() sum(proc.time()[c("user.self", "sys.self", "user.child", "sys.child")])

# the workload's gbm() call with the settings a of the spec (the seed set first)
fit_gbm <- function(wl, d, a) {
  set.seed(a$seed)
  gbm(as.formula(wl$formula), data = d, distribution = wl$distribution,  # a name, or R's
      n.trees = a$n_trees, interaction.depth = a$interaction_depth,      # list (pairwise)
      n.minobsinnode = a$n_minobsinnode, shrinkage = a$shrinkage,
      bag.fraction = a$bag_fraction, cv.folds = a$cv_folds, n.cores = a$n_cores,
      verbose = FALSE)
}

out <- list(status = "ok", note = "")
result <- tryCatch({
  wl <- spec$workload
  a <- spec$args
  d <- prep_case_data(wl, spec$root)
  write_json_full(data_check(d), spec$out_data)
  if (!is.null(spec$warmup)) {
    t <- system.time({
      m0 <- fit_gbm(wl, d, spec$warmup)
      if (spec$warmup$cv_folds > 0) b0 <- gbm.perf(m0, method = "cv", plot.it = FALSE)
      p0 <- predict(m0, newdata = head(d, spec$warmup_predict_rows), n.trees = spec$warmup$n_trees)
    }, gcFirst = FALSE)
    out$warmup_wall <- t[["elapsed"]]
    out$warmup_cpu <- sum(t[c("user.self", "sys.self", "user.child", "sys.child")])
  }
  cv <- a$cv_folds > 0
  t <- system.time({
    m <- fit_gbm(wl, d, a)
    if (cv) best <- gbm.perf(m, method = "cv", plot.it = FALSE)
  }, gcFirst = FALSE)
  out$fit_wall <- t[["elapsed"]]
  out$fit_cpu_process <- sum(t[c("user.self", "sys.self", "user.child", "sys.child")])
  out$train_error_last <- tail(m$train.error, 1)
  if (cv) {
    out$best_iter <- as.integer(best)
    out$cv_error_min <- min(m$cv.error)
  }
  NULL
}, error = function(e) {
  out$status <<- "error"
  out$note <<- paste("R error:", conditionMessage(e))
  NULL
})
out$cpu_outside_fit <- process_cpu() - if (is.null(out$fit_cpu_process)) 0 else out$fit_cpu_process
write_json_full(out, spec$out_json)
