# Reference outputs of R gbm for the conformance tests (tests/test_conformance_r.py).
#
# Written for and run with: R version 4.2.2, gbm 2.1.8.1, survival, jsonlite 1.8.4.
# Every fixture also records R.version.string and packageVersion("gbm").
#
# Usage (from the repository root):
#   Rscript tests/r_reference/make_fixtures.R [cases.json] [out_dir] [root] [case ...]
# defaults: tests/r_reference/cases.json, tests/r_reference/fixtures, "."
# `root` is the directory relative data paths are read from; naming cases
# regenerates only those. The stored cases use bag.fraction = 1 (no randomness);
# set.seed(1) is called before each fit, so that the live random cases with a bag
# (tests/test_conformance_r.py) can draw R's stream. See README.md for the fixture fields.

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

# Row and tree limits that keep the fixtures small.
MAX_PRED_ROWS <- 300
N_DEBUG_TREES <- 3
NEWDATA_NA_FRAC <- 0.25
NEWDATA_NA_SEED <- 101

args <- commandArgs(TRUE)
cases_file <- if (length(args) >= 1) args[1] else file.path(script_dir, "cases.json")
out_dir <- if (length(args) >= 2) args[2] else file.path(script_dir, "fixtures")
root <- if (length(args) >= 3) args[3] else "."
only <- if (length(args) >= 4) args[4:length(args)] else character(0)

stamp <- function() list(r_version = R.version.string,
                         gbm_version = as.character(packageVersion("gbm")))

# var_monotone in a case: null, a list aligned with the predictors, or an
# object {predictor: -1/1} (the others 0) resolved with R's term labels.
resolve_monotone <- function(vm, labels) {
  if (is.null(vm)) return(NULL)
  if (is.null(names(vm))) return(as.numeric(unlist(vm)))
  out <- setNames(rep(0, length(labels)), labels)
  bad <- setdiff(names(vm), labels)
  if (length(bad)) stop("var_monotone names not predictors: ", paste(bad, collapse = ","))
  out[names(vm)] <- unlist(vm)
  unname(out)
}

as_matrix <- function(p, k) if (is.matrix(p)) unname(p) else matrix(p, ncol = k)

predict_block <- function(fit, nd, n_trees) {
  k <- length(n_trees)
  link <- suppressWarnings(predict(fit, newdata = nd, n.trees = n_trees, type = "link"))
  resp <- suppressWarnings(predict(fit, newdata = nd, n.trees = n_trees, type = "response"))
  list(link = as_matrix(link, k), response = as_matrix(resp, k))
}

debug_trees <- function(fit) {
  nt <- min(N_DEBUG_TREES, length(fit$trees))
  trees <- lapply(seq_len(nt), function(i) {
    t <- pretty.gbm.tree(fit, i.tree = i)
    lapply(as.list(t), as_array)
  })
  used <- integer(0)
  for (t in trees) {
    sv <- t$SplitVar
    cat_node <- sv >= 0 & fit$var.type[pmax(sv, 0) + 1] > 0
    used <- c(used, t$SplitCodePred[cat_node])
  }
  used <- sort(unique(used))
  cs <- lapply(used, function(j) as_array(fit$c.splits[[j + 1]]))
  names(cs) <- as.character(used)
  list(trees = trees, c_splits = cs)
}

fit_case <- function(case, root) {
  d <- prep_case_data(case, root)
  fml <- as.formula(case$formula, env = environment())
  labels <- attr(terms(fml, data = d), "term.labels")
  vm <- resolve_monotone(case$var_monotone, labels)
  dist <- case$distribution
  gargs <- list(formula = fml, distribution = dist, data = quote(d),
                var.monotone = vm, n.trees = case$n_trees,
                interaction.depth = case$interaction_depth,
                n.minobsinnode = case$n_minobsinnode, shrinkage = case$shrinkage,
                bag.fraction = case$bag_fraction, train.fraction = case$train_fraction,
                keep.data = TRUE, verbose = FALSE)
  if (!is.null(case$weights)) gargs$weights <- as.name(case$weights)
  warns <- character(0)
  set.seed(1)
  fit <- withCallingHandlers(
    eval(as.call(c(as.name("gbm"), gargs))),
    warning = function(w) {
      warns <<- c(warns, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
  list(d = d, fit = fit, vm = vm, warnings = warns)
}

fixture_for <- function(case, root) {
  base <- c(list(case = case$name), stamp())
  res <- tryCatch(fit_case(case, root), error = function(e) e)
  if (inherits(res, "error")) {
    d <- tryCatch(prep_case_data(case, root), error = function(e) NULL)
    return(c(base, list(error = conditionMessage(res),
                        data_check = if (is.null(d)) NULL else data_check(d))))
  }
  d <- res$d
  fit <- res$fit
  n <- nrow(d)
  n_train <- fit$nTrain
  n_trees <- as.numeric(unlist(case$pred_n_trees))
  rows_train <- seq_len(min(n_train, MAX_PRED_ROWS))
  preds <- list(n_trees = as_array(n_trees),
                train = c(list(rows = as_array(rows_train - 1)),
                          predict_block(fit, d[rows_train, , drop = FALSE], n_trees)))
  if (n_train < n) {
    rows_valid <- (n_train + 1):min(n, n_train + MAX_PRED_ROWS)
    preds$valid <- c(list(rows = as_array(rows_valid - 1)),
                     predict_block(fit, d[rows_valid, , drop = FALSE], n_trees))
  }
  nd <- d[rows_train, , drop = FALSE]
  na_cols <- intersect(fit$var.names, names(d))
  for (k in seq_along(na_cols)) {
    nd[[na_cols[k]]][na_mask(nrow(nd), k - 1, NEWDATA_NA_FRAC, NEWDATA_NA_SEED)] <- NA
  }
  preds$newdata <- c(list(rows = as_array(rows_train - 1), na_cols = as_array(na_cols),
                          na_frac = NEWDATA_NA_FRAC, na_seed = NEWDATA_NA_SEED,
                          n_na = sum(is.na(nd[na_cols]))),
                     predict_block(fit, nd, n_trees))
  var_levels <- lapply(fit$var.levels, function(v) as_array(if (is.numeric(v)) unname(v) else v))
  c(base, list(
    data_check = data_check(d),
    n = n, p = length(fit$var.names), n_train = n_train,
    var_names = as_array(fit$var.names), var_type = as_array(fit$var.type),
    var_levels = var_levels, var_monotone = as_array(fit$var.monotone),
    init_f = fit$initF,
    train_error = as_array(fit$train.error), valid_error = as_array(fit$valid.error),
    oobag_improve = as_array(fit$oobag.improve), fit = as_array(fit$fit),
    predictions = preds,
    debug = debug_trees(fit),
    warnings = as_array(res$warnings)))
}

cases <- jsonlite::fromJSON(cases_file, simplifyVector = FALSE)
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
unexpected <- character(0)
for (case in cases) {
  if (length(only) && !(case$name %in% only)) next
  t0 <- proc.time()[["elapsed"]]
  fx <- fixture_for(case, root)
  path <- file.path(out_dir, paste0(case$name, ".json"))
  write_json_full(fx, path)
  expect_err <- !is.null(case$expect_r_error)
  got_err <- !is.null(fx$error)
  if (expect_err != got_err) unexpected <- c(unexpected, case$name)
  cat(sprintf("%-34s %s n=%s p=%s na=%s %6.2fs %7.1f KB%s\n", case$name,
              if (got_err) "R ERROR" else "ok     ",
              fx$data_check$n_rows, if (is.null(fx$p)) "-" else fx$p,
              fx$data_check$n_na, proc.time()[["elapsed"]] - t0,
              file.size(path) / 1024,
              if (got_err) paste0(": ", fx$error) else ""))
}
if (length(unexpected)) {
  cat("UNEXPECTED outcome (error expected/not expected) for:", unexpected, "\n")
  quit(status = 1)
}
