# R's gbm inspection functions for tests/inspect/test_inspect_sweep_r.py: for each case
# of a JSON list, gbm() on a CSV (bag.fraction = 1), then plot.gbm(return.grid = TRUE),
# interact.gbm, pretty.gbm.tree and relative.influence for the case's queries.
# Usage: Rscript inspect_live.R cases.json data_dir out.json
suppressPackageStartupMessages({library(gbm); library(survival); library(jsonlite)})
args <- commandArgs(TRUE)
cases <- fromJSON(args[1], simplifyVector = FALSE)
num17 <- function(v) ifelse(is.na(v), NA_character_, sprintf("%.17g", as.numeric(v)))
run <- function(cs) {
  d <- read.csv(file.path(args[2], cs$csv), na.strings = c("NA", ""))
  d$f1 <- factor(d$f1)
  d$o1 <- factor(d$o1, levels = c("lo", "mid", "hi"), ordered = TRUE)
  fit <- gbm(as.formula(cs$formula), data = d, distribution = cs$distribution,
             n.trees = cs$n_trees, interaction.depth = cs$depth, shrinkage = cs$shrinkage,
             n.minobsinnode = cs$minobs, bag.fraction = 1, keep.data = TRUE)
  grids <- lapply(cs$grids, function(q) {
    g <- plot(fit, i.var = unlist(q$vars), n.trees = q$n_trees,
              continuous.resolution = q$resolution, return.grid = TRUE, type = q$type)
    list(columns = I(names(g)), values = lapply(g, function(v)
      I(if (is.factor(v)) as.character(v) else num17(v))))
  })
  h <- lapply(cs$interactions, function(q)
    num17(interact.gbm(fit, d, unlist(q$vars), q$n_trees)))
  pretty <- lapply(cs$trees, function(k) {
    p <- pretty.gbm.tree(fit, k)
    list(rows = I(row.names(p)), columns = lapply(as.list(p), function(v) I(num17(v))))
  })
  ri <- relative.influence(fit, cs$influence_trees)
  list(grids = grids, h = h, pretty = pretty,
       influence = list(names = I(names(ri)), values = I(num17(unname(ri)))))
}
out <- lapply(cases, function(cs) tryCatch(run(cs), error = function(e)
  list(error = conditionMessage(e))))
writeLines(toJSON(out, digits = NA, na = "null", null = "null", auto_unbox = TRUE), args[3])
