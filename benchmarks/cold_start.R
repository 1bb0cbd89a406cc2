# Cold start, R side: what a user's fresh Rscript does, timed whole by run.py
# (--suite cold): Rscript cold_start.R boston.csv n_trees out.json
# Loads gbm, reads boston and fits it with the call of cold_start.py; writes the
# seconds of the three steps to out.json (by hand: loading jsonlite would cost time).
t_start <- proc.time()[["elapsed"]]
suppressPackageStartupMessages(library(gbm))
t_loaded <- proc.time()[["elapsed"]]
args <- commandArgs(trailingOnly = TRUE)
boston <- read.csv(args[1])
t_read <- proc.time()[["elapsed"]]
set.seed(1)
m <- gbm(medv ~ ., data = boston, distribution = "gaussian", n.trees = as.integer(args[2]),
         interaction.depth = 3, shrinkage = 0.01, bag.fraction = 0.5)
t_fitted <- proc.time()[["elapsed"]]
writeLines(sprintf('{"status": "ok", "note": "", "import_s": %.6f, "read_s": %.6f, "fit_s": %.6f}',
                   t_loaded - t_start, t_read - t_loaded, t_fitted - t_read), args[3])
