# gbm()'s model frames for tests/frontend/test_formula_sweep_r.py: for each formula of
# a JSON list, gbm(n.trees = 1) on a CSV (text columns read as text, as R 4 does) and
# its response, var.names, var.type, var.levels and coded predictors, or R's error.
# Usage: Rscript model_frames_live.R formulas.json data.csv out.json
suppressPackageStartupMessages({library(gbm); library(jsonlite)})
args <- commandArgs(TRUE)
formulas <- fromJSON(args[1])
d <- read.csv(args[2], na.strings = c("NA", ""), stringsAsFactors = FALSE)
num17 <- function(v) ifelse(is.na(v), NA_character_, sprintf("%.17g", as.numeric(v)))
frame <- function(f) {
  set.seed(1)
  fit <- suppressWarnings(gbm(as.formula(f), data = d, distribution = "gaussian",
                              n.trees = 1, n.minobsinnode = 1, keep.data = TRUE))
  xm <- matrix(fit$data$x, nrow = nrow(d))
  list(y = I(num17(fit$data$y)), var_names = I(fit$var.names), var_type = I(as.integer(fit$var.type)),
       var_levels = lapply(fit$var.levels, function(l)
         I(if (is.numeric(l)) num17(l) else as.character(l))),
       x = lapply(seq_len(ncol(xm)), function(j) I(num17(xm[, j]))))
}
out <- lapply(formulas, function(f)
  tryCatch(frame(f), error = function(e) list(error = conditionMessage(e))))
writeLines(toJSON(out, digits = NA, na = "null", null = "null", auto_unbox = TRUE), args[3])
