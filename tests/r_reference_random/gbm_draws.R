# Which random numbers R gbm draws, and in which order: experiments behind
# docs/r_random_stream.md. Run with R 4.2.2, gbm 2.1.8.1 and survival:
#   Rscript tests/r_reference_random/gbm_draws.R
# Each line prints a fact and TRUE when R behaved as stated; the script stops with an
# error (status 1) on the first FALSE.
#
# The tool: count_draws(before, after) restores .Random.seed `before` and calls
# runif(1) (one unif_rand) until the state is `after`; the count is the number of
# uniforms R drew between the two states.

suppressPackageStartupMessages({ library(gbm); library(survival) })
RNGkind("Mersenne-Twister", "Inversion", "Rejection")

state <- function() get(".Random.seed", envir = .GlobalEnv)
restore <- function(s) assign(".Random.seed", s, envir = .GlobalEnv)
count_draws <- function(before, after, max_draws = 200000) {
  force(after)
  restore(before)
  k <- 0
  while (!identical(state(), after)) {
    if (k >= max_draws) return(NA)
    runif(1)
    k <- k + 1
  }
  k
}
check <- function(what, ok) {
  cat(sprintf("%-100s %s\n", what, ok))
  if (!isTRUE(ok)) stop("not as stated: ", what)
}
draws_of <- function(seed, expr) {       # uniforms drawn by expr after set.seed(seed)
  set.seed(seed); before <- state()
  force(expr); after <- state()
  count_draws(before, after)
}

set.seed(2023)
n <- 60
d <- data.frame(x1 = runif(n), x2 = rnorm(n), f = factor(sample(letters[1:3], n, TRUE)))
d$y <- d$x1 * 3 + d$x2 + rnorm(n)
d$yb <- as.integer(d$y > median(d$y))
d$yc <- rpois(n, 2)
d$ym <- factor(sample(c("a", "b", "c"), n, TRUE))
d$time <- rexp(n); d$status <- rbinom(n, 1, 0.7)

fits <- list(
  gaussian = function(...) gbm(y ~ x1 + x2 + f, "gaussian", d, ...),
  bernoulli = function(...) gbm(yb ~ x1 + x2 + f, "bernoulli", d, ...),
  poisson = function(...) gbm(yc ~ x1 + x2 + f, "poisson", d, ...),
  laplace = function(...) gbm(y ~ x1 + x2 + f, "laplace", d, ...),
  tdist = function(...) gbm(y ~ x1 + x2 + f, "tdist", d, ...),
  quantile = function(...) gbm(y ~ x1 + x2 + f, list(name = "quantile", alpha = 0.3), d, ...),
  adaboost = function(...) gbm(yb ~ x1 + x2 + f, "adaboost", d, ...),
  huberized = function(...) gbm(yb ~ x1 + x2 + f, "huberized", d, ...),
  coxph = function(...) gbm(Surv(time, status) ~ x1 + x2 + f, "coxph", d, ...),
  multinomial = function(...) suppressWarnings(gbm(ym ~ x1 + x2 + f, "multinomial", d, ...)))

cat("== the bag: one unif_rand per training row per iteration, whatever the distribution\n")
for (name in names(fits)) for (tf in c(1, 0.75)) for (bf in c(0.5, 1)) {
  n_train <- floor(tf * n)
  one <- draws_of(1, fits[[name]](n.trees = 1, bag.fraction = bf, train.fraction = tf))
  two <- draws_of(1, fits[[name]](n.trees = 2, bag.fraction = bf, train.fraction = tf))
  check(sprintf("%-11s train.fraction %.2f bag.fraction %.1f: %d draws for 1 tree, %d for 2 (nTrain = %d)",
                name, tf, bf, one, two, n_train), one == n_train && two == 2 * n_train)
}

cat("== the bag rule: row i (0-based) is in the bag when u_i * (nTrain - i) < nBag - (rows bagged before it)\n")
bag_rows <- function(u, n_bag) {
  bagged <- 0; inbag <- logical(length(u))
  for (i in seq_along(u)) {
    if (u[i] * (length(u) - (i - 1)) < n_bag - bagged) { inbag[i] <- TRUE; bagged <- bagged + 1 }
  }
  inbag
}
for (seed in c(1, 7, 99)) for (bf in c(0.5, 0.8)) {
  n_train <- 45
  set.seed(seed); u <- runif(n_train)
  inbag <- bag_rows(u, floor(bf * n_train))
  set.seed(seed)
  fit <- gbm(y ~ x1, "gaussian", d, n.trees = 1, bag.fraction = bf, train.fraction = 0.75,
             shrinkage = 1, interaction.depth = 1, n.minobsinnode = 1, keep.data = FALSE)
  root <- pretty.gbm.tree(fit, 1)[1, ]
  z <- d$y[1:n_train] - fit$initF                   # gaussian: the working response
  check(sprintf("seed %2d bag.fraction %.1f: root weight %g = floor(bag.fraction * nTrain), root mean = the rule's bag's mean",
                seed, bf, root$Weight),
        root$Weight == floor(bf * n_train) && isTRUE(all.equal(root$Prediction, mean(z[inbag]),
                                                               tolerance = 1e-12)))
}

cat("== cv: getCVgroup's sample(), gbmCrossValModelBuild's runif seeds, set.seed per fold, then the main fit\n")
cv_by_hand <- function(seed, k, n.trees, strat = NULL, yname = "y", dist = "gaussian") {
  set.seed(seed)
  y <- d[[yname]]
  if (is.null(strat)) group <- sample(rep(1:k, length = n))
  else {
    group <- vector(length = n); nc <- table(y)
    for (cl in names(nc)) group[y == cl] <- sample(rep(1:k, length = nc[[cl]]))
  }
  seeds <- as.integer(runif(k, -(2^31 - 1), 2^31))
  after_seeds <- state()
  valid <- sapply(1:k, function(j) {
    set.seed(seeds[j])
    i <- order(group == j)
    gbm.fit(d[i, c("x1", "x2", "f")], y[i], distribution = dist, n.trees = n.trees,
            nTrain = sum(group != j), n.minobsinnode = 5, shrinkage = 0.1, keep.data = FALSE,
            verbose = FALSE)$valid.error
  })
  list(cv_error = rowSums(sweep(valid, 2, tabulate(group, k), "*")) / n, after_seeds = after_seeds,
       after_folds = state())
}
for (cores in c(1, 2)) {
  hand <- cv_by_hand(5, 3, 2)
  set.seed(5)
  fit <- gbm(y ~ x1 + x2 + f, "gaussian", d, n.trees = 2, cv.folds = 3, n.cores = cores,
             n.minobsinnode = 5)
  after <- state()
  check(sprintf("n.cores %d: cv.error = folds fitted by hand (sample(rep(1:3, length = n)), runif(3, -(2^31-1), 2^31), set.seed per fold)",
                cores), identical(fit$cv.error, hand$cv_error))
  start <- if (cores == 1) hand$after_folds else hand$after_seeds
  check(sprintf("n.cores %d: the main fit draws its %d uniforms after %s", cores, 2 * n,
                if (cores == 1) "the last fold's stream (folds run in this process)"
                else "the seeds' runif (folds run in worker processes)"),
        count_draws(start, after) == 2 * n)
}
hand <- cv_by_hand(5, 3, 2, strat = TRUE, yname = "yb", dist = "bernoulli")
set.seed(5)
fit <- gbm(yb ~ x1 + x2 + f, "bernoulli", d, n.trees = 2, cv.folds = 3, n.cores = 1,
           n.minobsinnode = 5, class.stratify.cv = TRUE)
check("bernoulli class.stratify.cv = TRUE: one sample(rep(1:k, length = n_class)) per class, classes in table(y) order",
      identical(fit$cv.error, hand$cv_error))
hand <- cv_by_hand(5, 3, 2, yname = "yb", dist = "bernoulli")
set.seed(5)
fit <- gbm(yb ~ x1 + x2 + f, "bernoulli", d, n.trees = 2, cv.folds = 3, n.cores = 1,
           n.minobsinnode = 5)
check("bernoulli default (class.stratify.cv NULL): not stratified", identical(fit$cv.error, hand$cv_error))

cat("== gbm.more continues the stream; permutation influence draws one sample(1:nrow)\n")
set.seed(3); before <- state()
fit <- gbm(y ~ x1 + x2 + f, "gaussian", d, n.trees = 2)
more <- gbm.more(fit, 3)
after <- state()
check("gbm(n.trees = 2) then gbm.more(3): 5 * n draws in all", count_draws(before, after) == 5 * n)
set.seed(4); invisible(sample(1:n)); expected <- state()
set.seed(4); invisible(summary(fit, method = permutation.test.gbm, plotit = FALSE))
check("summary(method = permutation.test.gbm): the stream of sample(1:nrow(data))",
      identical(state(), expected))

cat("== pairwise: sample() of the group levels, then per iteration the group bag and one uniform per item\n")
set.seed(11)
sizes <- c(1, 4, 6, 3, 5, 2, 7, 4, 3, 5, 6, 2)
p <- data.frame(g = rep(sprintf("q%02d", seq_along(sizes)), sizes))
p$x1 <- runif(nrow(p)); p$x2 <- runif(nrow(p))
p$y <- sample(0:2, nrow(p), TRUE)
p$y[p$g == "q04"] <- 1                                 # a group with no pairs
dist <- list(name = "pairwise", metric = "ndcg", group = "g")
pairs <- tapply(p$y, p$g, function(v) length(unique(v)) > 1)
pairwise_draws <- function(seed, n.trees, tf, bf) {
  # the group order gbm() makes: levels permuted by sample(), rows by (group, -y)
  set.seed(seed); before <- state()
  levs <- levels(factor(p$g)); perm <- levs[sample(1:length(levs))]
  after_perm <- state()
  n_groups_train <- max(1, round(tf * length(levs)))
  train_groups <- perm[1:n_groups_train]
  items <- function(gs) sum(sizes[match(gs[pairs[gs]], levs)])
  draws <- count_draws(before, after_perm)
  restore(after_perm)
  for (t in 1:n.trees) {
    n_bag <- max(1, floor(bf * n_groups_train)); bagged <- 0; seen <- 0
    while (bagged < n_bag) {                       # one draw per group until the bag is full
      if (runif(1) * (n_groups_train - seen) < n_bag - bagged) bagged <- bagged + 1
      seen <- seen + 1
    }
    ties <- 2 * items(train_groups) + items(setdiff(perm, train_groups))
    invisible(runif(ties))
    draws <- draws + seen + ties
  }
  draws
}
for (tf in c(1, 0.75)) for (bf in c(0.5, 1)) for (trees in 1:2) {
  got <- draws_of(21, gbm(y ~ x1 + x2, dist, p, n.trees = trees, bag.fraction = bf,
                          train.fraction = tf, n.minobsinnode = 1))
  expected <- pairwise_draws(21, trees, tf, bf)
  check(sprintf("pairwise train.fraction %.2f bag.fraction %.1f, %d trees: %d draws", tf, bf, trees, got),
        got == expected)
}
cat("all facts confirmed\n")
