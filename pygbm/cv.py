"""Cross-validation inside gbm(): R's gbmCrossVal semantics.

Each fold's model is R's ``gbm.fit`` on the training rows with the fold's
rows moved to the end as its validation set; the cv error per iteration is
the folds' validation deviances weighted by fold size; ``cv_fitted`` holds,
for every training row, the prediction (link scale, best cv iteration) of the
model that did not see it. Folds run in parallel with one seed per fold
drawn from the caller's generator, so any ``n_cores`` gives the same result;
``n_cores=None`` (the default) uses every core, as R's default
``detectCores()``. With the compiled engine the folds run in threads of this
process (its loops release the GIL: nothing to start, nothing to copy);
with the NumPy engine in worker processes (joblib). The main fit on all
training rows, which continues the caller's generator after the folds'
seeds, runs alongside them instead of after them; R fits it after the folds.

With R's stream (``random_state=pygbm.RRandom(seed)``) the draws are R's
(:mod:`pygbm.draws`): the folds are ``getCVgroup``'s, the seeds
``gbmCrossValModelBuild``'s ``as.integer(runif(K, -(2^31 - 1), 2^31))``, each
fold fits on ``RRandom(seeds[k])`` (``gbmDoFold``'s ``set.seed``), and the
main fit continues the stream right after the seeds' ``runif``: R's default
``n.cores`` (a cluster of ``detectCores()``, whose folds draw nothing from the
caller's stream). R with ``n.cores = 1`` would continue from the last fold's
stream instead; pygbm follows the default whatever its own ``n_cores``.

Unlike R, the case weights of each fold model are the weights of its own rows
(R passes the full weight vector to every fold, which misaligns weights with
rows when weights are given).
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass

import numpy as np

from ._checks import array_arg, missing_mask, unique_labels, weights_arg
from .draws import fold_seeds, shuffled
from .engine.predict import predict_link
from .engine.report import stopped_together
from .messages import in_worker, labelled, recorded, replay, warn
from .pairwise_rows import check_folds_keep_groups, group_folds
from .progress import progress_bar


@dataclass
class CVResult:
    error: np.ndarray        # cv deviance per iteration
    fitted: np.ndarray       # out-of-fold predictions for the training rows
    n_folds: int
    fold_id: np.ndarray      # fold (1..K) of every training row


def _stratify(class_stratify_cv, dist):
    """R's rule: folds stratified by class by default for the multinomial, on request
    for the two-class bernoulli (R names these two only)."""
    if class_stratify_cv is None:
        return dist.multi_output
    if class_stratify_cv and not (dist.multi_output or dist.name == "bernoulli"):
        warn("class_stratify_cv applies only to bernoulli and multinomial; ignored")
        return False
    return bool(class_stratify_cv)


def make_folds(y, n_folds, stratify, rng) -> np.ndarray:
    """Fold numbers 1..n_folds: R's ``getCVgroup``, ``sample(rep(1:K, length =
    n))`` (stratified: per class in ``table(y)`` order, i.e. sorted, each
    class's rows in row order). With R's stream these are R's draws."""
    n = y.shape[0]
    if not stratify:
        return shuffled(rng, np.resize(np.arange(1, n_folds + 1), n))
    folds = np.empty(n, dtype=int)
    classes, counts = np.unique(y, return_counts=True)
    if counts.min() < n_folds:
        raise ValueError(f"class_stratify_cv: the smallest class has only {counts.min()} "
                         f"rows in the training set; can't do {n_folds}-fold cross-validation")
    for c in classes:
        rows = np.flatnonzero(y == c)
        folds[rows] = shuffled(rng, np.resize(np.arange(1, n_folds + 1), rows.size))
    return folds


def _check_fold_id(fold_id, n_train):
    fold_id = array_arg("fold_id", fold_id)
    missing = int(missing_mask(fold_id).sum())
    if missing:
        raise ValueError(f"fold_id must not have missing values; {missing} are missing")
    if fold_id.ndim == 0:        # fold_id="fold": a column name (data are not searched)
        raise ValueError(f"fold_id must give one fold per training row ({n_train}), got "
                         f"the single value {fold_id.item()!r}; a name is not looked up "
                         "in data: pass the column itself, e.g. data['fold']")
    if fold_id.ndim != 1 or fold_id.shape[0] != n_train:
        raise ValueError(f"fold_id must give one fold per training row ({n_train}), "
                         f"got shape {fold_id.shape}")
    labels, codes = unique_labels("fold_id", fold_id, return_inverse=True)
    if labels.size < 2:
        raise ValueError("fold_id must contain at least 2 distinct folds")
    return codes + 1, labels.size


@dataclass(frozen=True)
class CVSpec:
    """How gbm() was asked to cross-validate."""

    n_folds: int
    fold_id: np.ndarray | None = None     # given folds (one per training row), or None
    class_stratify_cv: bool | None = None
    n_cores: int | None = None            # None: every core (all_cores)
    progress: bool = False                # a bar over the folds (pygbm.progress)
    #: run the folds in threads (the compiled engine releases the GIL) rather
    #: than in worker processes
    threads: bool = False


def all_cores() -> int:
    """The cores this process may run on (R's detectCores for gbm's folds)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:                # not on Linux
        return os.cpu_count() or 1


def _fit_fold(k, fold_id, data, fit, seed):
    """Fold ``k``'s model: ``fit(rows, seed)`` on the training rows with the
    fold's rows moved to the end as the validation set. Its errors and warnings
    say which fold: it trains on fewer rows than the fit, and its numbers (rows
    kept, levels seen) are not the fit's."""
    rows = np.arange(data.n_train)
    order = np.concatenate([rows[fold_id != k], rows[fold_id == k]])
    n_fold_train = int(np.sum(fold_id != k))
    label = f"cv fold {k} (trained on {n_fold_train} of the {data.n_train} training rows)"
    try:
        with labelled(label):
            return fit(data.rows(order, n_fold_train), seed)
    except ValueError as error:
        raise ValueError(f"{label}: {error}") from error


def _worker_errors(results):
    """The folds' results from worker processes; a fold's ValueError (a
    clear message of pygbm's checks, see :func:`_fit_fold`) raised again
    here, without joblib's frames and the worker's remote traceback."""
    try:
        yield from results
    except ValueError as error:
        raise ValueError(str(error)) from None


def _results(futures, bar, beside) -> list:
    """The results of ``futures`` in their order, ``bar`` (if any) told of each
    one done; the first error raised as soon as it happens, not once the
    futures before it are done, and so is one of the future ``beside`` them
    (the final fit's)."""
    try:
        for done in as_completed([*futures, beside]):
            done.result()
            if bar is not None and done is not beside:
                bar.update(1)
    except BaseException:
        for future in futures:      # those not started yet never start
            future.cancel()
        raise
    return [future.result() for future in futures]


def _watching(items, running):
    """``items``, the future ``running`` (the final fit's) checked before each:
    its error raised then, not once every item has come."""
    for item in items:
        if running.done():
            running.result()
        yield item


def _told(items, bar):
    """``items``, telling ``bar`` (if any) of each one done."""
    for item in items:
        yield item
        if bar is not None:
            bar.update(1)


def cross_validate(data, fit, spec: CVSpec, dist, rng, main_fit=None):
    """Run the cv folds of ``gbm(..., cv_folds=n_folds)`` on the training rows.

    ``data`` (:class:`pygbm.fitting.CodedData`) holds all rows, training
    rows first; ``fit(fold_data, seed)`` is the fitting function a fold's
    model comes from (it must be picklable for ``n_cores > 1``; ``seed`` is an
    int, or an RRandom with R's stream, see :func:`pygbm.draws.fold_seeds`), ``dist``
    the distribution (stratification and class checks). A pairwise
    ``data.group`` (group code 1..G of every row, rows sorted as R sorts
    them) makes the folds keep groups whole, as R's ``getCVgroup``.
    ``main_fit`` (no argument; it may draw from ``rng``) is called once the
    folds' seeds are drawn: after the folds with one core, alongside them
    otherwise (a thread here while worker processes fit the folds; the
    folds' predictions wait for it, so only one fit runs in this process).
    Returns ``(CVResult, main_fit())`` (None without ``main_fit``).
    """
    n_train, n_folds, fold_id = data.n_train, spec.n_folds, spec.fold_id
    stratify = _stratify(spec.class_stratify_cv, dist)
    if fold_id is not None:                        # the user's folds
        if data.group is not None:
            check_folds_keep_groups(fold_id, np.asarray(data.group)[:n_train])
        fold_id, n_folds = _check_fold_id(fold_id, n_train)
        if spec.n_folds > 1 and spec.n_folds != n_folds:
            # the user's folds would silently override the number asked for
            raise ValueError(f"cv_folds={spec.n_folds} but fold_id gives {n_folds} folds: "
                             "give fold_id alone (or cv_folds of its number of folds)")
        if spec.class_stratify_cv and stratify:
            warn("class_stratify_cv=True is ignored: fold_id gives the folds")
    elif data.group is not None:
        # R deals the K folds over every group level, so with few groups (or training
        # groups) a fold can hold none: R still fits it (on all the training rows), draws
        # its seed and adds nothing to the cv error; renumbering the folds held dropped
        # it, and the main fit then started at another point of R's stream
        group = np.asarray(data.group)
        fold_id = group_folds(group[:n_train], int(np.max(group)), n_folds, rng)
    else:
        if n_folds > n_train:
            raise ValueError(f"cv_folds={n_folds} exceeds the {n_train} training rows; "
                             "each fold needs at least one row")
        fold_id = make_folds(data.y[:n_train], n_folds, stratify, rng)
    if dist.multi_output:
        _check_classes_in_folds(data, fold_id, n_folds, stratify)
    _check_fold_weights(data, fold_id, n_folds)
    jobs = list(enumerate(fold_seeds(rng, n_folds), start=1))
    main_fit = main_fit if main_fit is not None else (lambda: None)
    n_cores = all_cores() if spec.n_cores is None else spec.n_cores
    with progress_bar(spec.progress, n_folds, "cv folds", "fold") as bar:
        if n_cores == 1 or n_folds == 1:
            models = [_fit_fold(k, fold_id, data, fit, s) for k, s in _told(jobs, bar)]
            main = main_fit()
        elif spec.threads:
            with ThreadPoolExecutor(max_workers=n_cores) as pool, stopped_together():
                running = pool.submit(in_worker(main_fit))
                folds = [pool.submit(in_worker(_fit_fold), k, fold_id, data, fit, s)
                         for k, s in jobs]
                models = _results(folds, bar, running)
                main = running.result()
        else:
            from joblib import Parallel, delayed      # worker processes: imported when used

            with ThreadPoolExecutor(max_workers=1) as alongside, stopped_together():
                running = alongside.submit(in_worker(main_fit))
                done = list(_told(_watching(_worker_errors(Parallel(
                    n_jobs=n_cores, return_as="generator")(
                    delayed(recorded(_fit_fold))(k, fold_id, data, fit, s) for k, s in jobs)),
                    running), bar))
                main = running.result()
            models = [model for model, _ in done]
            for _, given in done:       # the folds' warnings, given in their processes
                replay(given)
    sizes = np.bincount(fold_id, minlength=n_folds + 1)[1:]
    errors = np.stack([m.valid_error for m in models], axis=1)      # (n_trees, K)
    # a fold without rows (pairwise, above) adds 0: its model has no validation rows
    cv_error = np.where(sizes > 0, errors * sizes, 0.0).sum(axis=1) / n_train
    if np.isnan(cv_error).all():          # NumPy's nanargmin: "All-NaN slice encountered"
        raise ValueError(f"cv_folds={n_folds}: the cv error is NaN at every tree: the "
                         f"held-out rows of some fold give no {dist.name} deviance (coxph: "
                         "no event among them; pairwise: no group with two relevance "
                         "levels); use fewer folds or other fold_id")
    best = int(np.nanargmin(cv_error)) + 1
    n_out = int(models[0].num_classes)
    fitted = np.empty(n_train) if n_out == 1 else np.empty((n_train, n_out))
    for k, model in enumerate(models, start=1):
        rows = np.flatnonzero(fold_id == k)
        fitted[rows] = _predict_coded(model, data.x[rows], best)
    return CVResult(cv_error, fitted, n_folds, fold_id), main


def _check_fold_weights(data, fold_id, n_folds):
    """Every fold's held-out rows carry some weight: its cv error is their
    weighted deviance (else 0/0, and cv_error is undefined at every tree)."""
    if data.weights is None:
        return
    w = weights_arg(data.weights, data.x.shape[0])[:data.n_train]
    held = np.bincount(fold_id, weights=(w > 0).astype(float), minlength=n_folds + 1)[1:]
    rows = np.bincount(fold_id, minlength=n_folds + 1)[1:]
    empty = np.flatnonzero((held == 0) & (rows > 0))      # a fold without rows adds nothing
    if empty.size:
        k = int(empty[0]) + 1
        raise ValueError(f"weights: every row of cv fold {k} ({int(np.sum(fold_id == k))} "
                         "rows) has weight 0, so the fold's cv error (their weighted "
                         "deviance) would be 0/0: give them weight, or other folds "
                         "(fold_id)")


def _check_classes_in_folds(data, fold_id, n_folds, stratify):
    """multinomial: every class must have training rows in every fold model."""
    y = np.asarray(data.y)[:data.n_train]
    classes, codes = np.unique(y, return_inverse=True)
    counts = np.zeros((n_folds + 1, classes.shape[0]), dtype=int)
    np.add.at(counts, (fold_id, codes.ravel()), 1)
    outside = counts.sum(axis=0) - counts[1:]           # training rows of each fold model
    bad = np.argwhere(outside == 0)
    if bad.size:
        k, c = bad[0]
        label = classes[c]
        if data.y_levels is not None:
            label = data.y_levels[int(label)]
        hint = ("" if stratify else "; use class_stratify_cv=True (the default for "
                "multinomial)")
        raise ValueError(f"multinomial: class {label!r} has no training rows in cv fold "
                         f"{k + 1} (all its rows are in that fold){hint}, or fewer folds")


def _predict_coded(model, x, n_trees):
    K = int(model.num_classes)
    out = predict_link(model.trees, model.to_engine(x), model.engine_var_type,
                       model.c_splits, model.init_f, [n_trees], n_outputs=K,
                       engine=model.options.engine)
    return out[:, 0] if K == 1 else out[:, :, 0]
