# R twin of tests/r_reference/prep.py: the preprocessing vocabulary of
# cases.json, and a JSON writer that keeps full double precision.
# Written for R 4.2.2 with gbm 2.1.8.1 and jsonlite (see README.md).
# Every step here has an identical counterpart in prep.py; change both or neither.

# Multipliers of the deterministic missing-value mask (see na_mask()).
NA_HASH_ROW <- 7919
NA_HASH_COL <- 104729
NA_HASH_SEED <- 31337
NA_HASH_MOD <- 1009

# Deterministic missing-value mask: entry (i, k) (0-based row i, k-th listed
# column) is missing when ((i+1)*7919 + (k+1)*104729 + seed*31337) mod 1009 < frac*1009.
na_mask <- function(n, k, frac, seed) {
  i <- 0:(n - 1)
  h <- ((i + 1) * NA_HASH_ROW + (k + 1) * NA_HASH_COL + seed * NA_HASH_SEED) %% NA_HASH_MOD
  h < frac * NA_HASH_MOD
}

# Deterministic row permutation ("shuffle": seed): rows are ordered by the key
# ((i+1)*2654435761 + seed*40503) mod 4294967291, i the 0-based row number
# (all distinct below 2^32 rows; exact in double precision below ~3e6 rows).
SHUFFLE_MULT <- 2654435761
SHUFFLE_SEED_MULT <- 40503
SHUFFLE_MOD <- 4294967291

shuffle_order <- function(n, seed) {
  i <- 0:(n - 1)
  order(((i + 1) * SHUFFLE_MULT + seed * SHUFFLE_SEED_MULT) %% SHUFFLE_MOD)
}

# Levels sorted as the vocabulary defines them: numeric order for numbers,
# byte (C locale) order for strings; labels are as.character() of the values.
sorted_levels <- function(x) {
  u <- unique(x[!is.na(x)])
  if (is.numeric(u)) as.character(sort(u)) else sort(as.character(u), method = "radix")
}

# A "factor"/"ordered" spec is an object {col: levels or null} or a list of columns.
levels_spec <- function(spec) {
  if (is.null(spec)) return(list())
  if (is.null(names(spec))) {
    cols <- unlist(spec)
    spec <- setNames(vector("list", length(cols)), cols)
  }
  spec
}

make_factor <- function(x, levels, ordered) {
  if (is.null(levels)) levels <- sorted_levels(x)
  factor(as.character(x), levels = unlist(levels), ordered = ordered)
}

# Read a case's data file relative to `root` (absolute paths are kept).
read_case_csv <- function(path, root) {
  if (!grepl("^/", path)) path <- file.path(root, path)
  read.csv(path, na.strings = c("", "NA"), check.names = FALSE,
           stringsAsFactors = FALSE)
}

subset_rows <- function(d, conds) {
  keep <- rep(TRUE, nrow(d))
  for (cnd in conds) {
    x <- d[[cnd$col]]
    v <- cnd$value
    ok <- switch(cnd$op,
      "==" = x == v, "!=" = x != v, "<" = x < v, "<=" = x <= v,
      ">" = x > v, ">=" = x >= v, "notna" = !is.na(x),
      stop("unknown subset op ", cnd$op))
    keep <- keep & !is.na(ok) & ok
  }
  d[keep, , drop = FALSE]
}

recode_col <- function(x, r) {
  if (!is.null(r$subtract)) return(x - r$subtract)
  if (!is.null(r$multiply)) return(x * r$multiply)
  if (!is.null(r$indicator)) return(ifelse(is.na(x), NA, as.numeric(x == r$indicator)))
  stop("unknown recode for column ", r$col)
}

# Apply the vocabulary in its fixed order (README.md): drop, subset, shuffle, stride,
# head, recode, na_inject, add_weights, ordered, factor, remaining strings.
prep_case_data <- function(case, root) {
  d <- read_case_csv(case$data, root)
  p <- case$prep
  if (is.null(p)) p <- list()
  if (!is.null(p$drop)) d <- d[, setdiff(names(d), unlist(p$drop)), drop = FALSE]
  if (!is.null(p$subset)) d <- subset_rows(d, p$subset)
  if (!is.null(p$shuffle)) d <- d[shuffle_order(nrow(d), p$shuffle), , drop = FALSE]
  if (!is.null(p$stride)) d <- d[seq(1, nrow(d), by = p$stride), , drop = FALSE]
  if (!is.null(p$head)) d <- d[seq_len(min(p$head, nrow(d))), , drop = FALSE]
  for (r in p$recode) d[[r$col]] <- recode_col(d[[r$col]], r)
  if (!is.null(p$na_inject)) {
    cols <- unlist(p$na_inject$cols)
    for (k in seq_along(cols)) {
      m <- na_mask(nrow(d), k - 1, p$na_inject$frac, p$na_inject$seed)
      d[[cols[k]]][m] <- NA
    }
  }
  if (!is.null(p$add_weights)) {
    scale <- if (is.null(p$add_weights$scale)) 1 else p$add_weights$scale
    d[[p$add_weights$col]] <- (1 + (0:(nrow(d) - 1)) %% p$add_weights$mod) * scale
  }
  ord <- levels_spec(p$ordered)
  for (col in names(ord)) d[[col]] <- make_factor(d[[col]], ord[[col]], TRUE)
  fac <- levels_spec(p$factor)
  for (col in names(fac)) d[[col]] <- make_factor(d[[col]], fac[[col]], FALSE)
  for (col in names(d)) {
    if (is.character(d[[col]]) || is.logical(d[[col]])) d[[col]] <- make_factor(d[[col]], NULL, FALSE)
  }
  rownames(d) <- NULL
  d
}

# Summary of a prepared data frame, compared against prep.py's result.
data_check <- function(d) {
  cls <- sapply(d, function(x) if (is.ordered(x)) "ordered" else if (is.factor(x)) "factor" else "numeric")
  lev <- lapply(d[cls != "numeric"], function(x) as.list(levels(x)))
  sums <- lapply(d[cls == "numeric"], function(x) sum(as.numeric(x), na.rm = TRUE))
  # order check: sum over rows of (row number) * (value, or 1-based level code)
  wsums <- lapply(d, function(x) sum(seq_along(x) * as.numeric(x), na.rm = TRUE))
  list(n_rows = nrow(d), n_cols = ncol(d), n_na = sum(is.na(d)),
       columns = as.list(names(d)), class = as.list(cls),
       na_count = as.list(sapply(d, function(x) sum(is.na(x)))),
       levels = lev, sum = sums, row_weighted_sum = wsums)
}

# ---------------------------------------------------------------------------
# JSON writer with full double precision (jsonlite rounds to 15 digits).
# Numeric vectors of length 1 become scalars unless wrapped in as_array();
# NA/NaN become null, +-Inf the strings "Inf"/"-Inf".
as_array <- function(x) structure(x, json_array = TRUE)

json_num <- function(x) {
  s <- sprintf("%.17g", as.numeric(x))
  s[is.na(x)] <- "null"
  s[!is.na(x) & is.infinite(x) & x > 0] <- "\"Inf\""
  s[!is.na(x) & is.infinite(x) & x < 0] <- "\"-Inf\""
  s
}

json_str <- function(x) {
  s <- vapply(as.character(x), function(e) as.character(jsonlite::toJSON(e, auto_unbox = TRUE)), "")
  s[is.na(x)] <- "null"
  unname(s)
}

to_json <- function(x) {
  force_arr <- isTRUE(attr(x, "json_array"))
  if (is.null(x)) return("null")
  if (is.list(x)) {
    nm <- names(x)
    body <- vapply(x, to_json, "")
    if (is.null(nm)) return(paste0("[", paste(body, collapse = ","), "]"))
    if (length(x) == 0) return("{}")
    return(paste0("{", paste0(json_str(nm), ":", body, collapse = ","), "}"))
  }
  if (is.factor(x)) x <- as.character(x)
  if (is.matrix(x)) return(to_json(lapply(seq_len(ncol(x)), function(j) as_array(x[, j]))))
  el <- if (is.logical(x)) ifelse(is.na(x), "null", ifelse(x, "true", "false"))
        else if (is.numeric(x)) json_num(x) else json_str(x)
  if (length(x) == 1 && !force_arr) return(el)
  paste0("[", paste(el, collapse = ","), "]")
}

write_json_full <- function(x, path) {
  writeLines(to_json(x), path, useBytes = TRUE)
}
