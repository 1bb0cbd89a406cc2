# R's random stream after set.seed(), for tests/test_rrandom.py (pygbm.RRandom).
#
# Written for and run with: R version 4.2.2, jsonlite 1.8.4; the fixture records
# R.version.string, RNGkind() and jsonlite's version.
#
# Usage (from the repository root):
#   Rscript tests/r_reference_random/make_fixtures.R [out.json] [--large]
# default output: tests/r_reference_random/streams.json. With --large the cases also
# draw sample(100000) and runif/rnorm of 100000 values (the live test's run; too big
# to commit).
#
# Every case starts with set.seed(seed) under R's defaults
# (RNGkind("Mersenne-Twister", "Inversion", "Rejection")) and makes its calls in
# order on that one stream; doubles are written as C99 hex floats (sprintf("%a"),
# exact), integers as integers. After the calls the case records runif(2) (the
# position the calls left the stream in) and, for the seed-only cases, .Random.seed.

suppressPackageStartupMessages(library(jsonlite))

args <- commandArgs(TRUE)
large <- "--large" %in% args
args <- setdiff(args, "--large")
script_dir <- local({
  a <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  if (length(a)) dirname(normalizePath(sub("^--file=", "", a[1]))) else "tests/r_reference_random"
})
out <- if (length(args) >= 1) args[1] else file.path(script_dir, "streams.json")

RNGkind("Mersenne-Twister", "Inversion", "Rejection")

hex <- function(x) sprintf("%a", x)

# the vocabulary of calls (tests/test_rrandom.py replays the same list)
c_runif <- function(n, min = 0, max = 1) list(fn = "runif", n = n, min = min, max = max)
c_rnorm <- function(n, mean = 0, sd = 1) list(fn = "rnorm", n = n, mean = mean, sd = sd)
c_sample <- function(n, size = NULL, replace = FALSE)
  list(fn = "sample", n = n, size = size, replace = replace)
c_sample_x <- function(x, size = NULL, replace = FALSE)
  list(fn = "sample_x", x = x, size = size, replace = replace)
c_set_seed <- function(seed) list(fn = "set_seed", seed = seed)
c_sample_sum <- function(n, size) list(fn = "sample_sum", n = n, size = size)  # sum only

run_call <- function(cl) {
  switch(cl$fn,
    runif = hex(runif(cl$n, cl$min, cl$max)),
    rnorm = hex(rnorm(cl$n, cl$mean, cl$sd)),
    sample = if (is.null(cl$size)) sample(cl$n, replace = cl$replace)
             else sample(cl$n, cl$size, replace = cl$replace),
    sample_x = if (is.null(cl$size)) sample(cl$x, replace = cl$replace)
               else sample(cl$x, cl$size, replace = cl$replace),
    sample_sum = sum(as.numeric(sample(cl$n, cl$size))),
    set_seed = { set.seed(cl$seed); integer(0) },
    stop("unknown call ", cl$fn))
}

run_case <- function(name, seed, calls, state = FALSE) {
  set.seed(seed)
  case <- list(name = name, seed = seed, calls = calls,
               values = lapply(calls, function(cl) I(run_call(cl))))
  if (state) case$random_seed <- .Random.seed
  case$next_runif <- hex(runif(2))
  case
}

seeds <- c(0L, 1L, 2L, 42L, 123L, 2023L, -1L, -42L, 1000000007L, 987654321L,
           -123456789L, 2147483647L, -2147483647L)

mixed <- list(c_runif(3), c_sample(20), c_rnorm(5), c_sample(4, 30, TRUE),
              c_runif(2, -5, 5), c_sample_x(rep(1:5, length.out = 23)), c_rnorm(3, 10, 2),
              c_sample(1000, 10), c_runif(5, -(2^31 - 1), 2^31))

cases <- list()
add <- function(case) cases[[length(cases) + 1]] <<- case

for (s in seeds) {
  add(run_case(sprintf("set_seed_%d", s), s, list(), state = TRUE))
  add(run_case(sprintf("runif_700_%d", s), s, list(c_runif(700))))
  add(run_case(sprintf("sample_100_%d", s), s, list(c_sample(100))))
  add(run_case(sprintf("sample_10_200_replace_%d", s), s, list(c_sample(10, 200, TRUE))))
  add(run_case(sprintf("sample_1000_10_%d", s), s, list(c_sample(1000, 10))))
  add(run_case(sprintf("rnorm_700_%d", s), s, list(c_rnorm(700))))
  add(run_case(sprintf("mixed_%d", s), s, mixed))
}

# sizes around the generator's block of 624 words (rnorm takes two uniforms a value)
for (n in c(0, 1, 2, 623, 624, 625, 1248, 1249))
  add(run_case(sprintf("runif_size_%d", n), 42L, list(c_runif(n))))
for (n in c(1, 2, 311, 312, 313, 2000))
  add(run_case(sprintf("rnorm_size_%d", n), 42L, list(c_rnorm(n))))

# sample(n): R_unif_index takes bits // 16 + 1 uniforms per try (one up to 2^15, two
# from 2^15 + 1 to 2^31); the hashed variant for n > 1e7 and size <= n / 2
for (n in c(1, 2, 3, 7, 255, 256, 257, 1000, 5000))
  add(run_case(sprintf("sample_size_%d", n), 42L, list(c_sample(n))))
for (n in c(32768, 32769, 65535, 65536, 65537, 1e6, 1e7, 2e7, 2^31 - 1))
  add(run_case(sprintf("sample_part_%.0f", n), 7L, list(c_sample(n, 200))))
for (k in c(1, 2, 3, 7, 256, 65536, 65537, 2^31 - 1))
  add(run_case(sprintf("sample_replace_%.0f", k), 7L, list(c_sample(k, 200, TRUE))))
# 20000 of 1e7 + 1 (hashed: a repeat is redrawn) and of 1e7 (shuffled: a repeated
# position gives the value moved there); about 20 repeats tell the two apart
add(run_case("sample_hashed_sum", 5L, list(c_sample_sum(1e7 + 1, 20000))))
add(run_case("sample_shuffled_sum", 5L, list(c_sample_sum(1e7, 20000))))
add(run_case("sample_x_strings", 3L, list(c_sample_x(letters[1:10]),
                                           c_sample_x(letters, 5, TRUE),
                                           c_sample_x(c(2.5, 7.5, 1.25), 1))))
add(run_case("sample_size_0_and_1", 3L, list(c_sample(10, 0), c_sample(10, 1),
                                              c_sample(10, 1, TRUE), c_sample(1))))

# calls that draw nothing (runif with min == max, rnorm with sd == 0), set.seed
# in the middle of a sequence, a gbm cv-fold style sequence (getCVgroup's
# sample(rep(1:k, length = n)) then gbmCrossValModelBuild's seeds)
add(run_case("no_draw_calls", 11L, list(c_runif(3), c_runif(5, 2, 2), c_rnorm(4, 1, 0),
                                         c_runif(3))))
add(run_case("set_seed_midway", 11L, list(c_runif(4), c_set_seed(99L), c_sample(6),
                                           c_set_seed(-5L), c_rnorm(2))))
add(run_case("cv_folds_like_gbm", 2024L, list(c_sample_x(rep(1:5, length.out = 97)),
                                               c_runif(5, -(2^31 - 1), 2^31))))
if (large) {
  add(run_case("large_sample", 42L, list(c_sample(100000))))
  add(run_case("large_runif_rnorm", 1L, list(c_runif(100000), c_rnorm(100000))))
}

fixture <- list(r_version = R.version.string, rng_kind = RNGkind(),
                jsonlite_version = as.character(packageVersion("jsonlite")),
                cases = cases)
write_json(fixture, out, auto_unbox = TRUE, null = "null", digits = NA)
cat(sprintf("%d cases -> %s (%.0f kB)\n", length(cases), out, file.size(out) / 1024))
