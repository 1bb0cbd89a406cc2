# R's predict.gbm(..., single.tree = TRUE): one iteration's trees alone.
#
# Written for and run with: R 4.2.2, gbm 2.1.8.1, jsonlite. From the repository root:
#   Rscript tests/r_reference/make_single_tree_fixture.R
# writes fixtures/single_tree.json, read by tests/test_api.py. Deterministic fits
# (bag.fraction = 1) on data/boston.csv: gaussian (3 splits per tree, the link) and
# bernoulli (medv > 22, 2 splits, type = "response", which R maps through the inverse
# link); the predictions of rows 1-5 at several n.trees, as sprintf("%a") (exact).
# (n.trees = 0 with single.tree = TRUE crashes R 4.2.2: not written.)

suppressPackageStartupMessages({
  library(gbm)
  library(jsonlite)
})

script_dir <- local({
  a <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  if (length(a)) dirname(normalizePath(sub("^--file=", "", a[1]))) else "tests/r_reference"
})
root <- normalizePath(file.path(script_dir, "..", ".."))
d <- read.csv(file.path(root, "data", "boston.csv"))
d$b <- as.numeric(d$medv > 22)

case <- function(formula, distribution, depth, n_trees, type) {
  fit <- gbm(as.formula(formula), data = d, distribution = distribution, n.trees = 30,
             interaction.depth = depth, bag.fraction = 1)
  p <- predict(fit, d[1:5, ], n.trees = n_trees, single.tree = TRUE, type = type)
  list(formula = formula, distribution = distribution, interaction_depth = depth,
       n_trees = 30, at = n_trees, type = type, rows = 5,
       prediction = sprintf("%a", as.vector(p)))      # column by column (R's order)
}

cases <- list(case("medv ~ .", "gaussian", 3, c(1, 7, 30), "link"),
              case("b ~ . - medv", "bernoulli", 2, c(2, 30), "response"))
stamp <- list(r_version = R.version.string, gbm_version = as.character(packageVersion("gbm")))
writeLines(toJSON(list(stamp = stamp, cases = cases), auto_unbox = TRUE, digits = NA),
           file.path(script_dir, "fixtures", "single_tree.json"))
