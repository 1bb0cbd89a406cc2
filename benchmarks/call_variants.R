# R gbm side of benchmarks/call_variants.py: one measurement in a fresh process.
#   Rscript call_variants.R specs.json NAME cv|fit
# Reads the variant's CSV, makes the call with 2 trees (warm-up), then times it;
# prints a JSON line {"wall": s, "cpu": s}.
suppressMessages({library(gbm); library(jsonlite)})
args <- commandArgs(TRUE)
spec <- fromJSON(args[1])[[args[2]]]
cv <- if (args[3] == "cv") 5 else 0
df <- read.csv(spec$csv, stringsAsFactors = TRUE)
form <- as.formula(spec$formula)
dist <- if (spec$distribution == "quantile") list(name = "quantile", alpha = spec$alpha) else
  spec$distribution
tf <- if (is.null(spec$train_fraction)) 1 else spec$train_fraction
w <- if (is.null(spec$weights)) rep(1, nrow(df)) else df[[spec$weights]]

call_gbm <- function(n_trees) {
  set.seed(1)
  fit <- gbm(form, data = df, distribution = dist, n.trees = n_trees,
             interaction.depth = spec$depth, weights = w, shrinkage = 0.01,
             bag.fraction = 0.5, train.fraction = tf, cv.folds = cv, n.cores = 1)
  if (cv > 0) gbm.perf(fit, method = "cv", plot.it = FALSE)
  fit
}
invisible(call_gbm(2))
t <- system.time(call_gbm(spec$n_trees))
cat(toJSON(list(wall = t[["elapsed"]], cpu = t[["user.self"]] + t[["sys.self"]]),
           auto_unbox = TRUE), "\n")
