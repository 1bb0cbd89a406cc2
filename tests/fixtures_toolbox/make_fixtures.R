# R gbm's toolbox on two real fits, for tests/test_toolbox_end_to_end.py.
#
#   Rscript tests/fixtures_toolbox/make_fixtures.R <data dir> <output dir>
#
# Writes <output dir>/<case>.json for every case below: R's relative.influence
# (default n.trees, i.e. gbm.perf(method = "test"), and all trees), summary.gbm,
# gbm.perf(method = "test"), the train/valid errors, plot.gbm(return.grid = TRUE)
# for one and two variables (and type = "response" for bernoulli), and predict() on the
# training rows. bag.fraction = 1, so every number is deterministic. Each file
# is stamped with the R, gbm and jsonlite versions and the md5 of this script.
# The test runs this script live (in a temporary folder) when Rscript exists,
# and otherwise compares against the committed copies in this folder.
suppressMessages({library(gbm); library(jsonlite)})
args <- commandArgs(TRUE)
data_dir <- args[1]
out_dir <- args[2]
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))

boston <- read.csv(file.path(data_dir, "boston.csv"))
boston$chas <- factor(boston$chas)            # a 0/1 factor, as in mlbench
pima2 <- read.csv(file.path(data_dir, "pima2.csv"))

cases <- list(
  boston_gaussian = list(data = boston, formula = medv ~ ., distribution = "gaussian",
                         n.trees = 300, shrinkage = 0.05, interaction.depth = 3,
                         grid_vars = list("lstat", "chas", c("lstat", "chas"))),
  pima2_bernoulli = list(data = pima2, formula = diabetes ~ ., distribution = "bernoulli",
                         n.trees = 300, shrinkage = 0.05, interaction.depth = 2,
                         grid_vars = list("glucose", "mass", c("glucose", "age")))
)

for (name in names(cases)) {
  cs <- cases[[name]]
  set.seed(1)   # nothing is random with bag.fraction = 1 and no cv; set anyway
  fit <- gbm(cs$formula, data = cs$data, distribution = cs$distribution,
             n.trees = cs$n.trees, shrinkage = cs$shrinkage,
             interaction.depth = cs$interaction.depth, n.minobsinnode = 10,
             bag.fraction = 1, train.fraction = 0.8, keep.data = TRUE, verbose = FALSE)
  best <- gbm.perf(fit, method = "test", plot.it = FALSE)
  ri_default <- relative.influence(fit)
  ri_all <- relative.influence(fit, n.trees = cs$n.trees)
  sm <- summary(fit, n.trees = best, plotit = FALSE)
  grids <- lapply(cs$grid_vars, function(v) {
    g <- plot(fit, i.var = v, n.trees = best, return.grid = TRUE,
              continuous.resolution = if (length(v) > 1) 20 else 100)
    cols <- lapply(v, function(nm) if (is.factor(g[[nm]])) as.character(g[[nm]]) else g[[nm]])
    names(cols) <- v
    list(vars = I(v), columns = cols, y = g$y)
  })
  grid_resp <- NULL    # type = "response" (R implements it for bernoulli, not gaussian)
  if (cs$distribution == "bernoulli")
    grid_resp <- plot(fit, i.var = cs$grid_vars[[1]], n.trees = best, return.grid = TRUE,
                      type = "response")$y
  out <- list(
    case = name,
    settings = list(distribution = cs$distribution, n_trees = cs$n.trees,
                    shrinkage = cs$shrinkage, interaction_depth = cs$interaction.depth,
                    n_minobsinnode = 10, bag_fraction = 1, train_fraction = 0.8),
    var_names = fit$var.names,
    best_test = best,
    train_error = fit$train.error,
    valid_error = fit$valid.error,
    relative_influence_default = unname(ri_default),
    relative_influence_all = unname(ri_all),
    summary = list(var = as.character(sm$var), rel_inf = sm$rel.inf),
    grids = grids,
    grid_response = list(vars = I(cs$grid_vars[[1]]), y = grid_resp),
    predict_best = predict(fit, newdata = cs$data, n.trees = best),
    stamp = list(r_version = R.version.string,
                 gbm_version = as.character(packageVersion("gbm")),
                 jsonlite_version = as.character(packageVersion("jsonlite")),
                 script_md5 = unname(tools::md5sum(script)),
                 date = format(Sys.Date()))
  )
  writeLines(toJSON(out, auto_unbox = TRUE, digits = NA, pretty = FALSE),
             file.path(out_dir, paste0(name, ".json")))
}
