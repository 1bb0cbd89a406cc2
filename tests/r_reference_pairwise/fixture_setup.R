# What every make_*.R script of this folder starts with (each sources this file):
# R gbm and jsonlite loaded, `script_dir` (this folder: where the fixtures are
# written) and `root` (the repository, whose data/ the scripts read).

suppressPackageStartupMessages({
  library(gbm)
  library(jsonlite)
})

script_dir <- local({
  a <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  if (length(a)) dirname(normalizePath(sub("^--file=", "", a[1]))) else
    "tests/r_reference_pairwise"
})
root <- normalizePath(file.path(script_dir, "..", ".."))
