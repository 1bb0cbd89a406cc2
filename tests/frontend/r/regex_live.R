# R's grepl, sub and gsub for tests/frontend/test_regex_sweep_r.py: for each case of a JSON
# list (pattern, texts, replacement, ignore.case, perl) the three results, or R's error.
# Usage: Rscript regex_live.R cases.json out.json
suppressPackageStartupMessages(library(jsonlite))
args <- commandArgs(TRUE)
cases <- fromJSON(args[1], simplifyVector = FALSE)
attempt <- function(f) tryCatch(f(), error = function(e) list(error = conditionMessage(e)),
                                warning = function(w) list(error = conditionMessage(w)))
out <- lapply(cases, function(k) {
  x <- unlist(k$texts)
  list(grepl = attempt(function() grepl(k$pattern, x, ignore.case = k$ignore_case, perl = k$perl)),
       sub = attempt(function() sub(k$pattern, k$replacement, x, ignore.case = k$ignore_case,
                                    perl = k$perl)),
       gsub = attempt(function() gsub(k$pattern, k$replacement, x, ignore.case = k$ignore_case,
                                      perl = k$perl)))
})
writeLines(toJSON(out, auto_unbox = TRUE, null = "null"), args[2])
