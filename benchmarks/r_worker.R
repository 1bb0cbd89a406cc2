# One R gbm measurement: Rscript r_worker.R spec.json
# Reads the spec written by run.py, fits gbm() once (system.time of the gbm() call
# only; run.py starts a worker per fit), times predict() on the 100k-row prediction
# set, measures the peak RSS of the fit (reset through /proc/self/clear_refs), writes the
# measurements as JSON and the link-scale validation predictions, one per line.
suppressMessages(library(gbm))
suppressMessages(library(jsonlite))

args <- commandArgs(trailingOnly = TRUE)
spec <- fromJSON(args[1])
wl <- spec$workload

status_kb <- function(field) {
  s <- readLines("/proc/self/status")
  as.numeric(gsub("[^0-9]", "", s[startsWith(s, field)]))
}
reset_peak <- function() invisible(try(cat("5", file = "/proc/self/clear_refs"), silent = TRUE))
load1 <- function() as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1])
list_trees <- function(n) { step <- max(1, n %/% 10); seq(step, n, by = step) }

out <- list(status = "ok", note = "")
result <- tryCatch({
  d <- read.csv(spec$data_csv, stringsAsFactors = TRUE)
  form <- as.formula(wl$formula)
  cv_folds <- if (is.null(spec$cv_folds)) 0 else spec$cv_folds
  n_cores <- if (is.null(spec$n_cores)) 1 else spec$n_cores
  fit_once <- function() {
    set.seed(spec$seed)
    gbm(form, data = d, distribution = wl$distribution, n.trees = spec$n_trees,
        interaction.depth = 3, n.minobsinnode = 10, shrinkage = 0.05, bag.fraction = 0.5,
        train.fraction = 0.8, cv.folds = cv_folds, n.cores = n_cores, verbose = FALSE)
  }
  gc()
  rss0 <- status_kb("VmRSS:")
  reset_peak()
  out$load <- load1()
  t <- system.time(m <- fit_once(), gcFirst = FALSE)
  peak <- status_kb("VmHWM:")
  out$fit_wall <- t[["elapsed"]]
  out$fit_cpu <- t[["user.self"]] + t[["sys.self"]]
  out$peak_rss_mb <- peak / 1024
  out$fit_mem_mb <- (peak - rss0) / 1024
  if (cv_folds == 0) {
    pred <- read.csv(spec$pred_csv, stringsAsFactors = TRUE)
    nt <- spec$n_trees
    out$predict <- system.time(p <- predict(m, newdata = pred, n.trees = nt))[["elapsed"]]
    out$predict_list <- system.time(
      p <- predict(m, newdata = pred, n.trees = list_trees(nt)))[["elapsed"]]
    out$own_valid_error <- tail(m$valid.error, 1)
    valid <- predict(m, newdata = d[(spec$n_train + 1):nrow(d), , drop = FALSE], n.trees = nt)
    writeLines(format(valid, digits = 17), spec$out_pred)
  }
  NULL
}, error = function(e) {
  out$status <<- "error"
  out$note <<- paste("R error:", conditionMessage(e))
  NULL
})
write(toJSON(out, auto_unbox = TRUE, digits = NA), spec$out_json)
