# R gbm with set.seed: the numbers pygbm must reproduce with random_state=RRandom(seed).
#   Rscript tests/r_reference_rstream/run_cases.R cases.json data.csv results.json
# Each case: set.seed(seed); gbm(...) with R's default n.cores (cv folds in a cluster, so
# the main fit continues the stream right after the folds' seeds); then, on the same
# stream, permutation.test.gbm (if asked) and gbm.more(n_more) (if asked).
# Doubles are written as C99 hex floats (sprintf("%a")), NA/NaN as "NaN".
suppressPackageStartupMessages({ library(gbm); library(survival); library(jsonlite) })
RNGkind("Mersenne-Twister", "Inversion", "Rejection")
args <- commandArgs(trailingOnly = TRUE)
cases <- fromJSON(args[1], simplifyVector = FALSE)
d <- read.csv(args[2], stringsAsFactors = TRUE)

hex <- function(v) {
  if (is.null(v)) return(NULL)
  v <- as.numeric(v)
  s <- sprintf("%a", v)
  s[is.na(v)] <- "NaN"
  s
}
numbers <- function(fit) {
  list(init_f = hex(fit$initF), train_error = hex(fit$train.error),
       valid_error = hex(fit$valid.error), oobag_improve = hex(fit$oobag.improve),
       predict = hex(predict(fit, newdata = d, n.trees = length(fit$train.error))))
}

run <- function(case) {
  dist <- case$distribution
  if (is.list(dist) && length(dist) == 1) dist <- dist$name
  stratify <- if (is.null(case$class_stratify_cv)) NULL else case$class_stratify_cv
  set.seed(case$seed)
  fit <- suppressWarnings(gbm(as.formula(case$formula), distribution = dist, data = d,
             n.trees = case$n_trees, interaction.depth = case$interaction_depth,
             n.minobsinnode = case$n_minobsinnode, shrinkage = case$shrinkage,
             bag.fraction = case$bag_fraction, train.fraction = case$train_fraction,
             cv.folds = case$cv_folds,
             class.stratify.cv = if (is.null(stratify)) NULL else stratify,
             keep.data = TRUE, verbose = FALSE))
  out <- numbers(fit)
  out$cv_error <- hex(fit$cv.error)
  out$cv_fitted <- hex(fit$cv.fitted)
  if (isTRUE(case$permutation))
    out$permutation <- hex(gbm:::permutation.test.gbm(fit, case$n_trees))
  if (!is.null(case$n_more)) {
    more <- suppressWarnings(gbm.more(fit, n.new.trees = case$n_more, verbose = FALSE))
    out$more <- numbers(more)
  }
  out$random_seed_after <- .Random.seed[2:3]
  out
}

results <- lapply(cases, function(case) list(case = case, r = run(case)))
names(results) <- vapply(cases, function(c) c$name, "")
meta <- list(r_version = R.version.string, gbm_version = as.character(packageVersion("gbm")),
             rng_kind = RNGkind(), n_cores = "default (NULL: parallel::detectCores())")
writeLines(toJSON(list(meta = meta, cases = results), auto_unbox = TRUE, null = "null",
                  pretty = FALSE, digits = NA), args[3])
