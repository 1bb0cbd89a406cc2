# R's pairwise trees where two candidate splits give the same rows.
#
# Written for and run with: R 4.2.2, gbm 2.1.8.1, jsonlite. From the repository root:
#   Rscript tests/r_reference_pairwise/make_split_ties_fixture.R
# writes split_ties.json next to this script, read by tests/distributions/test_pairwise.py.
#
# In travel_mode, wait == 0 exactly when mode == "car", so a split on wait at
# the car rows and a split on mode {car} vs the rest send the same rows left
# and right: their improvements agree up to rounding, and which one a tree
# takes is decided by the last bits of the working response (the lambda sums
# and the swap costs). Labels: the chosen mode (one positive per group); the
# chosen mode or a random 0/1 (several positives, map and mrr); a graded label
# 2 * chosen + random 0/1 (ndcg, conc). group = individual, bag.fraction = 1,
# train.fraction = 0.75; tied scores are broken by R's noise, drawn after
# set.seed(1): pygbm.RRandom(1) draws the same. Kept to the last bit
# (sprintf("%a")): every tree's pretty.gbm.tree (so the relative influence
# too; R's relative.influence() fails on a pairwise fit), c.splits,
# train.error and valid.error; and three weighted fits with bag.fraction = 0.5
# (see `bagged` below).

source(file.path(local({
  a <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  if (length(a)) dirname(sub("^--file=", "", a[1])) else "tests/r_reference_pairwise"
}), "fixture_setup.R"))   # gbm, jsonlite, script_dir, root
travel <- read.csv(file.path(root, "data", "travel_mode.csv"), stringsAsFactors = TRUE)
stopifnot(all((travel$wait == 0) == (travel$mode == "car")))
chosen <- as.numeric(travel$choice == "yes")
RHS <- "mode + wait + vcost + travel + gcost + income + size"
N_TREES <- 30
hex <- function(x) sprintf("%a", x)

fit_case <- function(metric, label, label_seed = NA, max.rank = 0, depth = 3) {
  if (label == "chosen") {
    y <- chosen
  } else {
    set.seed(label_seed)
    extra <- sample(0:1, nrow(travel), replace = TRUE)
    y <- if (label == "several") pmax(chosen, extra) else 2 * chosen + extra
  }
  travel$y <- y
  dist <- list(name = "pairwise", metric = metric, group = "individual")
  if (max.rank > 0) dist$max.rank <- max.rank
  set.seed(1)
  fit <- gbm(as.formula(paste("y ~", RHS)), data = travel, distribution = dist,
             n.trees = N_TREES, interaction.depth = depth, shrinkage = 0.1, bag.fraction = 1,
             train.fraction = 0.75, n.minobsinnode = 10, keep.data = FALSE)
  trees <- lapply(seq_len(N_TREES), function(i) {
    t <- pretty.gbm.tree(fit, i.tree = i)
    list(SplitVar = t$SplitVar, SplitCodePred = hex(t$SplitCodePred), LeftNode = t$LeftNode,
         RightNode = t$RightNode, MissingNode = t$MissingNode,
         ErrorReduction = hex(t$ErrorReduction), Weight = hex(t$Weight),
         Prediction = hex(t$Prediction))
  })
  list(metric = metric, label = label, label_seed = label_seed, max_rank = max.rank,
       y = y, rhs = RHS, fit_seed = 1, n_trees = N_TREES, interaction_depth = depth,
       shrinkage = 0.1, train_fraction = 0.75, n_minobsinnode = 10,
       trees = trees, c_splits = lapply(fit$c.splits, as.integer),
       train_error = hex(fit$train.error), valid_error = hex(fit$valid.error))
}

cases <- list(map = fit_case("map", "chosen"),
              map_several = fit_case("map", "several", 5),
              mrr_several = fit_case("mrr", "several", 5),
              ndcg_graded = fit_case("ndcg", "graded", 11),
              ndcg_graded_rank2 = fit_case("ndcg", "graded", 28, max.rank = 2),
              conc_graded = fit_case("conc", "graded", 32))
# Group weights and bag.fraction = 0.5: train.error, valid.error and
# oobag.improve to the last bit, whose terms R computes as w * measure / max
# (w * (new - old) / max) and sums group by group. n.minobsinnode = 1, so R's
# count of a bag's rows in its tree nodes (floor(bag.fraction * nTrain), not
# the bagged groups' rows) decides no split here.
set.seed(5)
graded <- 2 * chosen + sample(0:1, nrow(travel), replace = TRUE)
group_w <- round(runif(nlevels(factor(travel$individual)), 0.5, 2), 3)
row_w <- group_w[as.integer(factor(travel$individual))]
bagged_case <- function(metric) {
  y <- if (metric == "map") chosen else graded
  travel$y <- y
  set.seed(1)
  fit <- gbm(as.formula(paste("y ~", RHS)), data = travel, weights = row_w,
             distribution = list(name = "pairwise", metric = metric, group = "individual"),
             n.trees = 40, interaction.depth = 2, shrinkage = 0.1, bag.fraction = 0.5,
             train.fraction = 0.75, n.minobsinnode = 1, keep.data = FALSE)
  list(metric = metric, y = y, w = row_w, rhs = RHS, fit_seed = 1, n_trees = 40,
       interaction_depth = 2, shrinkage = 0.1, bag_fraction = 0.5, train_fraction = 0.75,
       n_minobsinnode = 1, train_error = hex(fit$train.error),
       valid_error = hex(fit$valid.error), oobag_improve = hex(fit$oobag.improve))
}
bagged <- list(ndcg_graded = bagged_case("ndcg"), conc_graded = bagged_case("conc"),
               map = bagged_case("map"))

stamp <- list(r_version = R.version.string, gbm_version = as.character(packageVersion("gbm")))
writeLines(toJSON(list(stamp = stamp, cases = cases, bagged = bagged), auto_unbox = TRUE,
                  digits = NA, na = "null"),
           file.path(script_dir, "split_ties.json"))
cat("wrote", length(cases), "+", length(bagged), "cases\n")
