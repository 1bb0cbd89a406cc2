# One R gbm fit of a statistician's workload: Rscript small_worker.R spec.json
# The R twin of small_worker.py: sets the data up with tests/r_reference/prep.R (the
# twin of prep.py), times gbm() (and, with cv, gbm.perf(method = "cv")) with
# system.time, and writes the measurements as JSON. The cv folds run in a PSOCK
# cluster (even with n.cores = 1) that R does not wait for; run.py counts the CPU time
# of the whole process tree (it adopts and reaps them) and subtracts this process's
# CPU time outside the fit (cpu_outside_fit). The prepared data's summary (prep.R's
# data_check) goes to spec$out_data.
suppressPackageStartupMessages({
  library(gbm)
  library(survival)
  library(jsonlite)
})

spec <- fromJSON(commandArgs(trailingOnly = TRUE)[1], simplifyVector = FALSE)
source(file.path(spec$root, "tests", "r_reference", "prep.R"))

# CPU seconds of this process and of the children it waited for
process_cpu <- function() sum(proc.time()[c("user.self", "sys.self", "user.child", "sys.child")])

out <- list(status = "ok", note = "")
result <- tryCatch({
  wl <- spec$workload
  a <- spec$args
  d <- prep_case_data(wl, spec$root)
  write_json_full(data_check(d), spec$out_data)
  form <- as.formula(wl$formula)
  dist <- wl$distribution              # a name, or R's list form (pairwise)
  cv <- a$cv_folds > 0
  set.seed(a$seed)
  t <- system.time({
    m <- gbm(form, data = d, distribution = dist, n.trees = a$n_trees,
             interaction.depth = a$interaction_depth, n.minobsinnode = a$n_minobsinnode,
             shrinkage = a$shrinkage, bag.fraction = a$bag_fraction, cv.folds = a$cv_folds,
             n.cores = a$n_cores, verbose = FALSE)
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
