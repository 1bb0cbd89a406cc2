# R's order of pairwise groups named by several columns, by text or with a
# missing value, and the fits it leads to.
#
# Written for and run with: R 4.2.2, gbm 2.1.8.1, jsonlite. From the repository root:
#   Rscript tests/r_reference_pairwise/make_group_order_fixture.R
# writes group_order.csv (the data) and group_order.json next to this script, read
# by tests/distributions/test_pairwise.py.
#
# gbm() names a row's group by paste(<group columns>, sep = ":") and makes it a
# factor, whose levels are in R's string order (not the characters' codes: "1:2"
# comes before "10:1", "aa" before "Ab"; a missing value is the group "NA"); it
# then shuffles the levels with sample() (set.seed(1) here: pygbm.RRandom(1)).
# Which groups are training groups (train.fraction = 0.5) and so every error
# depend on that order. Tied scores are broken by R's noise, drawn from the same
# stream.

source(file.path(local({
  a <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  if (length(a)) dirname(sub("^--file=", "", a[1])) else "tests/r_reference_pairwise"
}), "fixture_setup.R"))   # gbm, jsonlite, script_dir, root

set.seed(3)
n <- 400
d <- data.frame(a = sample(1:14, n, replace = TRUE), b = sample(1:3, n, replace = TRUE),
                s = sample(c("Ab", "aa", "B", "b_c", "a.b", "a1"), n, replace = TRUE),
                m = sample(c(1.5, 2, 10, NA), n, replace = TRUE),
                x = round(rnorm(n), 4))
d$y <- as.numeric(d$x + rnorm(n) > 0)
write.csv(d, file.path(script_dir, "group_order.csv"), row.names = FALSE)
d <- read.csv(file.path(script_dir, "group_order.csv"), stringsAsFactors = FALSE)

fit_case <- function(group) {
  set.seed(1)
  fit <- gbm(y ~ x, data = d, distribution = list(name = "pairwise", group = group,
                                                  metric = "ndcg"),
             n.trees = 20, interaction.depth = 2, shrinkage = 0.1, bag.fraction = 1,
             train.fraction = 0.5, n.minobsinnode = 10, keep.data = FALSE)
  list(group = I(group),
       levels = levels(factor(do.call(paste, c(d[, group, drop = FALSE], sep = ":")))),
       n_train = fit$nTrain,
       train_error = sprintf("%a", fit$train.error), valid_error = sprintf("%a", fit$valid.error))
}

cases <- list(fit_case(c("a", "b")), fit_case("s"), fit_case(c("s", "b")), fit_case("m"),
              fit_case(c("m", "s")))
stamp <- list(r_version = R.version.string, gbm_version = as.character(packageVersion("gbm")))
writeLines(toJSON(list(stamp = stamp, fit_seed = 1, n_trees = 20, interaction_depth = 2,
                       shrinkage = 0.1, train_fraction = 0.5, n_minobsinnode = 10,
                       cases = cases), auto_unbox = TRUE, digits = NA),
           file.path(script_dir, "group_order.json"))
