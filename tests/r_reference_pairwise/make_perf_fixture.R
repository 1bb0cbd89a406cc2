# R's pairwise train.error / valid.error to the last bit, and gbm.perf's choice.
#
# Written for and run with: R 4.2.2, gbm 2.1.8.1, jsonlite. From the repository root:
#   Rscript tests/r_reference_pairwise/make_perf_fixture.R
# writes perf_ties.json next to this script, read by tests/distributions/test_pairwise.py.
#
# The IR measures are ratios of small integers, so the validation error of two
# iterations often ties up to the rounding of its sum over the groups, and
# gbm.perf(method = "test") (which.min) then picks the iteration by the last
# bits. The errors are written with sprintf("%a") (exact). travel_mode with a
# graded label (2 * chosen + a random 0/1, drawn by set.seed(label_seed)) under
# conc, and the 0/1 label under ndcg and map; group = individual, 60 trees,
# train.fraction = 0.75, bag.fraction = 1. Tied scores are broken by R's noise,
# drawn after set.seed(1): pygbm.RRandom(1) draws the same.

source(file.path(local({
  a <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  if (length(a)) dirname(sub("^--file=", "", a[1])) else "tests/r_reference_pairwise"
}), "fixture_setup.R"))   # gbm, jsonlite, script_dir, root
travel <- read.csv(file.path(root, "data", "travel_mode.csv"), stringsAsFactors = TRUE)
chosen <- as.numeric(travel$choice == "yes")
RHS <- "mode + wait + vcost + travel + gcost + income + size"

fit_case <- function(metric, label_seed) {
  if (is.na(label_seed)) {
    y <- chosen
  } else {
    set.seed(label_seed)
    y <- 2 * chosen + sample(0:1, nrow(travel), replace = TRUE)
  }
  travel$y <- y
  set.seed(1)
  fit <- gbm(as.formula(paste("y ~", RHS)), data = travel,
             distribution = list(name = "pairwise", metric = metric, group = "individual"),
             n.trees = 60, interaction.depth = 2, shrinkage = 0.1, bag.fraction = 1,
             train.fraction = 0.75, n.minobsinnode = 10, keep.data = FALSE)
  list(metric = metric, label_seed = label_seed, y = y, rhs = RHS, fit_seed = 1,
       n_trees = 60, interaction_depth = 2, shrinkage = 0.1, train_fraction = 0.75,
       n_minobsinnode = 10,
       train_error = sprintf("%a", fit$train.error), valid_error = sprintf("%a", fit$valid.error),
       best_test = gbm.perf(fit, method = "test", plot.it = FALSE))
}

cases <- list(conc_label11 = fit_case("conc", 11), conc_label28 = fit_case("conc", 28),
              conc_label32 = fit_case("conc", 32), ndcg = fit_case("ndcg", NA),
              map = fit_case("map", NA))
stamp <- list(r_version = R.version.string, gbm_version = as.character(packageVersion("gbm")))
writeLines(toJSON(list(stamp = stamp, cases = cases), auto_unbox = TRUE, digits = NA, na = "null"),
           file.path(script_dir, "perf_ties.json"))
cat("wrote", length(cases), "cases\n")
