"""Small shared helpers of the distribution modules (private)."""
from __future__ import annotations

import numpy as np

from ..messages import listed


def expit(x):
    """:func:`scipy.special.expit`: ``1 / (1 + exp(-x))``."""
    from scipy.special import expit as scipy_expit

    return scipy_expit(x)


def full_f(f, offset):
    """The link value R uses: ``f + offset`` (``offset`` None = R's NA)."""
    f = np.asarray(f, dtype=float)
    if offset is None:
        return f
    return f + np.asarray(offset, dtype=float)


def residual(y, f, offset):
    """``y - offset - f`` evaluated in R's order (``y - f`` without offset)."""
    y = np.asarray(y, dtype=float)
    f = np.asarray(f, dtype=float)
    if offset is None:
        return y - f
    return y - np.asarray(offset, dtype=float) - f


def node_sum(values, node, n_nodes, mask=None):
    """Per-node sums of ``values`` over the rows selected by ``mask``."""
    node = np.asarray(node, dtype=np.intp)
    values = np.broadcast_to(np.asarray(values, dtype=float), node.shape)
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        node = node[mask]
        values = values[mask]
    return np.bincount(node, weights=values, minlength=n_nodes)[:n_nodes]


def node_ratio(numerator, denominator, node, n_nodes, inbag):
    """Per-node ``sum(numerator) / sum(denominator)`` over the in-bag rows (a
    Newton step or a weighted mean), 0 where the denominator sums to 0."""
    num = node_sum(numerator, node, n_nodes, inbag)
    den = node_sum(denominator, node, n_nodes, inbag)
    out = np.zeros(n_nodes)
    ok = den != 0
    out[ok] = num[ok] / den[ok]
    return out


def refit_by_node(t, f, leaves, bag, estimate):
    """R's terminal-node rule of laplace, quantile and tdist: a node with at
    least ``leaves.min_obs`` in-bag rows gets ``estimate(r, weights=,
    groups=, n_groups=)`` (one of ``_weighted``'s estimators) of its in-bag
    residuals ``r = y - offset - f``; the others keep the mean working
    response of growing time (``leaves.grow_pred``)."""
    bag = np.asarray(bag, dtype=bool)
    n_nodes = leaves.n_nodes
    r = residual(t.y, f, t.offset)[bag]
    node = np.asarray(leaves.node, dtype=np.intp)[bag]
    w = np.asarray(t.w, dtype=float)[bag]
    est = estimate(r, weights=w, groups=node, n_groups=n_nodes)
    refit = np.asarray(leaves.counts)[:n_nodes] >= leaves.min_obs
    return np.where(refit, est, np.asarray(leaves.grow_pred, dtype=float)[:n_nodes])


def oob_average(values, w, inbag):
    """R's BagImprovement average: sum(w * values) / sum(w) over out-of-bag rows.

    NaN when there is no out-of-bag row (``bag_fraction = 1``), as R's 0/0.
    The sums run over every row with 0 in place of the in-bag rows (so the
    in-bag rows' values, which the compiled engine does not compute, do not
    matter, even when not finite).
    """
    inbag = np.asarray(inbag, dtype=bool)
    w = np.asarray(w, dtype=float)
    with np.errstate(invalid="ignore", over="ignore"):
        num = np.where(inbag, 0.0, w * values).sum()
    den = np.where(inbag, 0.0, w).sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(num) / np.float64(den))


def as_numeric_response(y, dist_name):
    """Finite float 1-d response, or ValueError naming the response."""
    arr = np.asarray(y)
    if arr.dtype == object or arr.dtype.kind in "USO":
        raise ValueError(
            f"{dist_name} needs a numeric response y; got values of type {arr.dtype}"
        )
    try:
        arr = np.asarray(arr, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{dist_name} needs a numeric response y: {exc}") from None
    if arr.ndim != 1:
        raise ValueError(
            f"{dist_name} needs a one-dimensional response y; got shape {arr.shape}"
        )
    check_finite(arr, dist_name)
    return arr


def check_finite(arr, dist_name, what="response y"):
    """Raise ValueError if ``arr`` has NaN or infinite values."""
    bad = ~np.isfinite(arr)
    if np.any(bad):
        kind = "missing (NaN)" if np.any(np.isnan(arr)) else "infinite"
        raise ValueError(
            f"{dist_name}: the {what} has {int(bad.sum())} {kind} value(s); "
            "remove those rows first"
        )


def as_binary_response(y, dist_name, proportions=False):
    """Code a 0/1, boolean or 2-level categorical response as 0.0/1.0.

    A 2-level categorical (pandas Categorical, strings) is coded as R's
    ``as.integer(factor(y)) - 1``: first level 0, second level 1. With
    ``proportions`` a numeric response may take any value in [0, 1] (a
    proportion of successes, bernoulli's likelihood as R computes it).
    """
    need = f"{dist_name} needs a response y coded 0/1 (or a 2-level factor)"
    cat = getattr(y, "cat", None)
    if cat is not None or type(y).__name__ == "Categorical":
        import pandas as pd

        c = pd.Categorical(y)
        if np.any(c.codes < 0):
            raise ValueError(f"{dist_name}: the response y has missing values")
        c = c.remove_unused_categories()
        if len(c.categories) != 2:
            raise ValueError(f"{need}; got {len(c.categories)} distinct values")
        return c.codes.astype(float)
    arr = np.asarray(y)
    if arr.dtype == bool:
        return arr.astype(float)
    if arr.dtype == object or arr.dtype.kind in "US":
        if any(v is None or (isinstance(v, float) and np.isnan(v)) for v in arr.ravel()):
            raise ValueError(f"{dist_name}: the response y has missing values")
        levels, codes = np.unique(arr.astype(str), return_inverse=True)
        if len(levels) != 2:
            raise ValueError(f"{need}; got {len(levels)} distinct values")
        return codes.astype(float).reshape(arr.shape)
    arr = as_numeric_response(arr, dist_name)
    if proportions:
        if arr.size and (arr.min() < 0.0 or arr.max() > 1.0):
            raise ValueError(
                f"{dist_name} needs a response y in [0, 1] (0/1, proportions of successes "
                f"with their trials as weights, or a 2-level factor); got values from "
                f"{float(arr.min())!r} to {float(arr.max())!r} (R gbm fits them unchecked: "
                f"its deviance is then NaN or meaningless)")
        return arr
    values = np.unique(arr)
    if not np.all(np.isin(values, (0.0, 1.0))):
        raise ValueError(
            f"{need}; got {len(values)} distinct values: {listed(values)}")
    return arr


def check_class_weights(dist_name, y, w, both: bool) -> None:
    """The initial value of a log-odds (``both``: bernoulli; adaboost, half of it)
    needs weight on both classes, huberized's ratio weight on the 0s: a response of
    one value, or a class of zero weight, makes it infinite. A proportion y counts
    y of a 1 and 1 - y of a 0."""
    y, w = np.asarray(y, dtype=float), np.asarray(w, dtype=float)
    if both and np.unique(y).size < 2 and y[0] in (0.0, 1.0):
        raise ValueError(f"{dist_name}: the response y has only the value "
                         f"{float(y[0]):g} among the training rows; it needs both 0 and 1")
    if both:
        classes = ((0.0, "< 1", w * (1.0 - y)), (1.0, "> 0", w * y))
    else:
        classes = ((0.0, "< 1", np.where(y == 0.0, w, 0.0)),)
    proportions = bool(np.any((y > 0.0) & (y < 1.0)))
    for value, side, weight in classes:
        if not np.any(weight > 0):
            which = f"y {side}" if proportions else f"y = {value:g}"
            raise ValueError(f"{dist_name}: no training row with {which} has a positive "
                             f"weight (their weights sum to 0), so the initial value would "
                             f"be infinite; it needs weight on "
                             + ("both 0 and 1" if both else "the rows with y = 0"))
