# Writes tests/distributions/fixtures/r_bernoulli_proportions.json: R gbm's
# bernoulli fits of a response of proportions in [0, 1] (R accepts any numeric
# response without a check), for tests/distributions/test_proportions.py.
#
# Run from the repository root:  Rscript tests/distributions/make_proportions_fixture.R [out]
# Written with R 4.2.2 and gbm 2.1.8.1 (stamped into the JSON). The data are
# made here and stored with the results, so Python reads R's very numbers.
suppressPackageStartupMessages({library(gbm); library(jsonlite)})

args <- commandArgs(trailingOnly = TRUE)
out_file <- if (length(args)) args[1] else
  file.path("tests", "distributions", "fixtures", "r_bernoulli_proportions.json")

i <- 0:79
x1 <- round(((i * 7) %% 80) / 80, 3)
x2 <- round(sin(i), 3)
y <- round(pmin(pmax(0.15 + 0.6 * x1 + 0.25 * sin(3 * i) * (x2 > 0), 0), 1), 3)
y[c(5, 17)] <- c(0, 1)                 # some rows exactly 0 and 1
w <- 1 + i %% 4                        # trials
o <- round(0.3 * cos(i), 3)
d <- data.frame(y = y, x1 = x1, x2 = x2, w = w, o = o)

run <- function(formula, weights) {
  fit <- if (weights) {
    gbm(formula, data = d, weights = w, distribution = "bernoulli", n.trees = 30,
        interaction.depth = 2, shrinkage = 0.1, bag.fraction = 1, n.minobsinnode = 5)
  } else {
    gbm(formula, data = d, distribution = "bernoulli", n.trees = 30,
        interaction.depth = 2, shrinkage = 0.1, bag.fraction = 1, n.minobsinnode = 5)
  }
  list(formula = deparse(formula), weights = weights, initF = fit$initF,
       train_error = fit$train.error, fit = as.numeric(fit$fit))
}

out <- list(
  r_version = R.version.string, gbm_version = as.character(packageVersion("gbm")),
  data = d,
  cases = list(weighted = run(y ~ x1 + x2, TRUE),
               offset = run(y ~ x1 + x2 + offset(o), FALSE)))
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, dataframe = "columns"), out_file)
