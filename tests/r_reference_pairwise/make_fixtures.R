# Reference outputs of R gbm's pairwise (LambdaMART) ranking and IR measures.
#
# Written for and run with: R 4.2.2, gbm 2.1.8.1, jsonlite. From the repository root:
#   Rscript tests/r_reference_pairwise/make_fixtures.R
# writes, next to this script:
#   sim_groups.csv   the simulated ranking data (many groups of varying size)
#   pairwise.json    R's gbm() fits: train.error, valid.error, predictions
#   ir_measures.json R's ir.measure.* and perf.pairwise on fixed score vectors
#
# Ties: R breaks tied scores with random noise (1e-10 * U(-0.5, 0.5)) drawn
# from its own generator, which pygbm cannot reproduce. Every fit here has a
# continuous offset (distinct within each group), so no two items of a group
# ever tie and the noise never decides a rank: the fits are deterministic.
#
# R bug worked around: gbm() reorders x, y, w and the groups for pairwise but
# not the offset (it stays in the original row order). The data are given to
# gbm() already in the order gbm() will sort them into (the random group order
# is drawn with the same seed first), so gbm's reordering is the identity and
# the offset stays aligned; the script checks fit$ord.group == 1:n.

source(file.path(local({
  a <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  if (length(a)) dirname(sub("^--file=", "", a[1])) else "tests/r_reference_pairwise"
}), "fixture_setup.R"))   # gbm, jsonlite, script_dir, root

N_TREES <- 40
DEPTH <- 3
SHRINKAGE <- 0.1
MIN_OBS <- 5
FIT_SEED <- 20240
PRED_TREES <- c(1, 10, N_TREES)
N_PRED_ROWS <- 150      # predictions kept for this many rows, evenly spaced

# ------------------------------------------------------------------ data
travel <- read.csv(file.path(root, "data", "travel_mode.csv"), stringsAsFactors = TRUE)
travel$y <- as.numeric(travel$choice == "yes")
travel$g <- as.character(travel$individual)
# distinct within each individual (4 rows); stored in the fixture to full precision
travel$o <- 0.05 * sin(1.7 * seq_len(nrow(travel)))
TRAVEL_RHS <- "wait + vcost + travel + gcost + income + size + mode + offset(o)"

set.seed(7)
n_groups <- 300
sizes <- sample(2:12, n_groups, replace = TRUE)
sim <- data.frame(g = sprintf("q%03d", rep(seq_len(n_groups), sizes)))
n <- nrow(sim)
sim$x1 <- round(runif(n), 3)
sim$x2 <- round(rnorm(n), 3)
sim$x3 <- round(runif(n, 0, 10), 2)
sim$x4 <- factor(sample(c("a", "b", "c", "d"), n, replace = TRUE))
score <- 2 * sim$x1 - sim$x2 + 0.2 * sim$x3 + (sim$x4 == "b") + rnorm(n, sd = 0.7)
sim$grade <- as.numeric(cut(score, c(-Inf, 0.5, 1.5, 2.5, Inf))) - 1
sim$click <- as.numeric(score > 2)
sim$o <- round(runif(n, -0.05, 0.05), 6)
gw <- round(runif(n_groups, 0.5, 2), 2)
sim$w <- gw[match(sim$g, unique(sim$g))]
write.csv(sim, file.path(script_dir, "sim_groups.csv"), row.names = FALSE)
sim <- read.csv(file.path(script_dir, "sim_groups.csv"), stringsAsFactors = TRUE)
SIM_RHS <- "x1 + x2 + x3 + x4 + offset(o)"

# ------------------------------------------------------------------ fits
# data in the order gbm() sorts pairwise rows into, for the fit's seed
presort <- function(d, y) {
  set.seed(FIT_SEED)
  group <- factor(d$g)
  perm.levels <- levels(group)[sample(seq_len(nlevels(group)))]
  group <- factor(group, levels = perm.levels)
  order(group, -y)
}

fit_case <- function(name, data, rhs, label, metric, max.rank = 0, train.fraction = 1,
                     weighted = FALSE) {
  data_name <- if (startsWith(name, "travel")) "travel_mode" else "sim_groups"
  data$y <- data[[label]]
  ord <- presort(data, data$y)
  ds <- data[ord, ]
  rownames(ds) <- NULL
  dist <- list(name = "pairwise", group = "g", metric = metric)
  if (max.rank > 0) dist$max.rank <- max.rank
  set.seed(FIT_SEED)
  args <- list(formula = as.formula(paste("y ~", rhs)), data = ds, distribution = dist,
               n.trees = N_TREES, interaction.depth = DEPTH, shrinkage = SHRINKAGE,
               n.minobsinnode = MIN_OBS, bag.fraction = 1, train.fraction = train.fraction,
               keep.data = FALSE)
  if (weighted) args$weights <- ds$w
  fit <- withCallingHandlers(do.call(gbm, args), warning = function(w) {
    message("warning in ", name, ": ", conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  stopifnot(all(fit$ord.group == seq_len(nrow(ds))))
  keep <- unique(round(seq(1, nrow(ds), length.out = N_PRED_ROWS)))
  pred <- predict(fit, newdata = ds[keep, ], n.trees = PRED_TREES)
  list(name = name, data = data_name,
       label = label, metric = metric, max_rank = max.rank,
       train_fraction = train.fraction, weighted = weighted,
       rows = ord - 1,                   # sorted row i = original row rows[i] (0-based)
       n_train = fit$nTrain, init_f = fit$initF,
       train_error = fit$train.error, valid_error = fit$valid.error,
       pred_rows = keep - 1, pred_trees = PRED_TREES, pred = unname(pred),
       n_trees = N_TREES, interaction_depth = DEPTH, shrinkage = SHRINKAGE,
       n_minobsinnode = MIN_OBS)
}

cases <- list(
  fit_case("travel_ndcg", travel, TRAVEL_RHS, "y", "ndcg"),
  fit_case("travel_ndcg_rank2", travel, TRAVEL_RHS, "y", "ndcg", max.rank = 2),
  fit_case("travel_conc", travel, TRAVEL_RHS, "y", "conc"),
  fit_case("travel_map", travel, TRAVEL_RHS, "y", "map"),
  fit_case("travel_mrr", travel, TRAVEL_RHS, "y", "mrr"),
  fit_case("travel_mrr_rank2", travel, TRAVEL_RHS, "y", "mrr", max.rank = 2),
  fit_case("travel_ndcg_valid", travel, TRAVEL_RHS, "y", "ndcg", train.fraction = 0.8),
  fit_case("sim_ndcg", sim, SIM_RHS, "grade", "ndcg"),
  fit_case("sim_ndcg_rank3_weighted", sim, SIM_RHS, "grade", "ndcg", max.rank = 3,
           weighted = TRUE),
  fit_case("sim_conc", sim, SIM_RHS, "grade", "conc"),
  fit_case("sim_conc_valid", sim, SIM_RHS, "grade", "conc", train.fraction = 0.75),
  fit_case("sim_map", sim, SIM_RHS, "click", "map"),
  fit_case("sim_mrr_rank3", sim, SIM_RHS, "click", "mrr", max.rank = 3)
)
names(cases) <- vapply(cases, function(x) x$name, "")

stamp <- list(r_version = R.version.string, gbm_version = as.character(packageVersion("gbm")),
              travel_offset = travel$o)
writeLines(toJSON(list(stamp = stamp, cases = cases), auto_unbox = TRUE, digits = NA),
           file.path(script_dir, "pairwise.json"))

# ------------------------------------------------------------------ IR measures
set.seed(11)
vectors <- lapply(seq_len(60), function(i) {
  len <- sample(1:12, 1)
  f <- round(rnorm(len), 1)                 # rounded: many ties
  if (i %% 3 == 0) f <- sample(c(0, 1, 2), len, replace = TRUE)
  grade <- sample(0:3, len, replace = TRUE)
  if (i %% 7 == 0) grade[] <- 2             # all labels equal
  click <- as.numeric(grade >= 2)
  max.rank <- sample(c(1, 2, 3, 5, 20), 1)
  list(f = f, grade = grade, click = click, max_rank = max.rank,
       conc = gbm:::ir.measure.conc(list(grade, f), max.rank),
       ndcg = gbm:::ir.measure.ndcg(list(grade, f), max.rank),
       mrr = gbm:::ir.measure.mrr(list(click, f), max.rank),
       map = gbm:::ir.measure.map(list(click, f), max.rank),
       auc = gbm:::ir.measure.auc(list(click, f), max.rank))
})

# perf.pairwise on scores without ties (its noise then decides nothing)
set.seed(12)
pg <- rep(seq_len(40), sample(1:8, 40, replace = TRUE))
pf <- rnorm(length(pg))
pgrade <- sample(0:3, length(pg), replace = TRUE)
pclick <- as.numeric(pgrade >= 2)
pw <- runif(40, 0.5, 2)[pg]
perf <- list(group = pg, f = pf, grade = pgrade, click = pclick, w = pw,
             ndcg = gbm:::perf.pairwise(pgrade, pf, pg, "ndcg"),
             ndcg_rank3_w = gbm:::perf.pairwise(pgrade, pf, pg, "ndcg", w = pw, max.rank = 3),
             conc = gbm:::perf.pairwise(pgrade, pf, pg, "conc"),
             conc_binary = gbm:::perf.pairwise(pclick, pf, pg, "conc"),
             map = gbm:::perf.pairwise(pclick, pf, pg, "map"),
             mrr_rank2 = gbm:::perf.pairwise(pclick, pf, pg, "mrr", max.rank = 2))

writeLines(toJSON(list(stamp = stamp[1:2], vectors = vectors, perf = perf),
                  auto_unbox = TRUE, digits = NA),
           file.path(script_dir, "ir_measures.json"))
cat("wrote", length(cases), "fits and", length(vectors), "IR measure vectors\n")
