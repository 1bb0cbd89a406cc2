# Reference outputs of R gbm WITH bagging, for tests/test_conformance_bagged.py.
#
# Written for and run with: R version 4.2.2, gbm 2.1.8.1, survival, jsonlite 1.8.4.
# Every fixture also records R.version.string and packageVersion("gbm").
#
# Usage (from the repository root):
#   Rscript tests/r_reference/make_bagged_fixtures.R [bagged_cases.json] [out_dir] [root]
# defaults: tests/r_reference/bagged_cases.json, tests/r_reference/fixtures/bagged, "."
# Each case is fitted once per seed in its "seeds" (set.seed(seed) before gbm());
# the bags come from R's RNG, so Python can only match these in distribution.

suppressPackageStartupMessages({
  library(gbm)
  library(survival)
  library(jsonlite)
})

script_dir <- local({
  a <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  if (length(a)) dirname(normalizePath(sub("^--file=", "", a[1]))) else "tests/r_reference"
})
source(file.path(script_dir, "prep.R"))

args <- commandArgs(TRUE)
cases_file <- if (length(args) >= 1) args[1] else file.path(script_dir, "bagged_cases.json")
out_dir <- if (length(args) >= 2) args[2] else file.path(script_dir, "fixtures", "bagged")
root <- if (length(args) >= 3) args[3] else "."

fit_seed <- function(case, d, seed) {
  fml <- as.formula(case$formula, env = environment())
  gargs <- list(formula = fml, distribution = case$distribution, data = quote(d),
                n.trees = case$n_trees, interaction.depth = case$interaction_depth,
                n.minobsinnode = case$n_minobsinnode, shrinkage = case$shrinkage,
                bag.fraction = case$bag_fraction, train.fraction = case$train_fraction,
                keep.data = FALSE, verbose = FALSE)
  if (!is.null(case$weights)) gargs$weights <- as.name(case$weights)
  set.seed(seed)
  eval(as.call(c(as.name("gbm"), gargs)))
}

cases <- jsonlite::fromJSON(cases_file, simplifyVector = FALSE)
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
for (case in cases) {
  d <- prep_case_data(case, root)
  seeds <- as.numeric(unlist(case$seeds))
  fits <- lapply(seeds, function(s) fit_seed(case, d, s))
  last <- function(v) v[length(v)]
  vfinal <- sapply(fits, function(f) last(f$valid.error))
  tfinal <- sapply(fits, function(f) last(f$train.error))
  vmin <- sapply(fits, function(f) min(f$valid.error))
  fx <- list(case = case$name, r_version = R.version.string,
             gbm_version = as.character(packageVersion("gbm")),
             data_check = data_check(d), n_train = fits[[1]]$nTrain,
             seeds = as_array(seeds),
             init_f = as_array(sapply(fits, function(f) f$initF)),
             valid_error_final = as_array(vfinal),
             valid_error_final_mean = mean(vfinal), valid_error_final_sd = sd(vfinal),
             valid_error_min = as_array(vmin),
             train_error_final = as_array(tfinal),
             train_error_final_mean = mean(tfinal))
  write_json_full(fx, file.path(out_dir, paste0(case$name, ".json")))
  cat(sprintf("%-28s valid final mean %.6g sd %.3g (cv %.2f%%)  train final mean %.6g\n",
              case$name, mean(vfinal), sd(vfinal), 100 * sd(vfinal) / mean(vfinal),
              mean(tfinal)))
}
