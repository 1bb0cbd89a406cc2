# The data of the R-stream fixtures: 300 rows, every value a multiple of 1/1024 (exact in
# a double and in its short decimal form, so R and pandas read the same numbers).
#   Rscript tests/r_reference_rstream/make_data.R tests/r_reference_rstream/data.csv
args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args)) args[1] else "data.csv"
RNGkind("Mersenne-Twister", "Inversion", "Rejection")
set.seed(20261124)
n <- 300
q <- function(v) round(v * 1024) / 1024
d <- data.frame(x1 = q(runif(n)), x2 = q(rnorm(n)),
                x3 = sample(c("a", "b", "c", "d"), n, TRUE), x4 = q(runif(n)))
d$x4[sample(n, 15)] <- NA
d$y <- q(2 * d$x1 + d$x2 - (d$x3 == "b") + rnorm(n, sd = 0.7))
d$yb <- as.integer(d$y + rnorm(n) > 1)
d$yc <- rpois(n, exp(0.5 + d$x1))
d$time <- q(rexp(n, exp(0.5 * d$x2)) + 1 / 1024)
d$status <- rbinom(n, 1, 0.7)
d$query <- sprintf("q%02d", sample(1:30, n, TRUE))
d$rel <- pmin(3, floor(3 * d$x1 + runif(n)))
d$rb <- as.integer(d$rel >= 2)
write.csv(d, out, row.names = FALSE)
