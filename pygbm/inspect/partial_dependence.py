"""Partial dependence (R's ``plot.gbm`` and the C++ ``gbm_plot``), brute-force
partial dependence and ICE curves.

Two ways of computing the partial dependence of f on the variables ``i_var``
at the points of a grid:

* ``"weighted_traversal"`` (R's method, Friedman 2001 section 8.2): each grid
  point is dropped down every tree; at a split on one of ``i_var`` it follows
  its branch (missing values go to the missing child), at any other split it
  goes both ways, the right child getting the fraction W_right / (W_left +
  W_right) of the current weight (W = the node weights of the fit) and the
  left child the rest; the missing child of such a split is never visited.
  A categorical level whose ``c_splits`` entry is neither -1 nor 1 adds
  nothing for that tree (R's behaviour; R's own fits never produce one).
  The node weights are those the trees were grown with: the rows' case
  weights for R's splits, but ``w h`` (the Hessians times the weights) with
  ``splits="newton"``, whose default partial dependence therefore averages
  the other variables by the Hessians, not by the rows (``"brute_force"``
  averages by the rows).
* ``"brute_force"``: the (case-weighted) average prediction over the training
  rows with the ``i_var`` columns set to the grid point. ICE curves are the
  per-row predictions of the same computation.
"""
from __future__ import annotations


import numpy as np
import pandas as pd

from .._checks import array_arg, as_generator, bool_arg, choice_arg, fit_arg, int_arg, missing_mask
from ..engine.predict import predict_link
from ..engine.tree import LEFT, MISSING, NO_NODE, NOWHERE, RIGHT, split_directions
from ..frontend import r_label
from ..messages import listed, warn
from .influence import check_n_trees, class_labels, class_view

TYPES = ("link", "response")
METHODS = ("weighted_traversal", "brute_force")
#: R's plot.gbm draws up to this many variables, beyond it only returns the grid
MAX_PLOT_VARS = 3
#: R's stored quantiles of a numeric predictor (0, .1, ..., 1): the deciles and the ends
DECILE_LEVELS = 11
#: rows per block of the brute-force computation (bounds its memory)
BRUTE_FORCE_BLOCK_ROWS = 200_000


# --------------------------------------------------------------------------- variables
#: the largest partial dependence grid computed (R allocates any size and may die)
MAX_GRID_ROWS = 10**7


def resolve_vars(fit, i_var, arg: str = "i_var") -> list[int]:
    """0-based column indices of ``i_var``: variable names, or 0-based
    positions in ``fit.var_names`` (R's ``i.var = 1`` is position 0 here)."""
    names = list(fit.var_names)
    if not isinstance(i_var, (str, int, np.integer)) and array_arg(arg, i_var).ndim != 1:
        raise TypeError(f"{arg} must be a variable name, a 0-based integer position or a "
                        f"list of them, got {i_var!r:.80}")
    items = [i_var] if isinstance(i_var, (str, int, np.integer)) else list(i_var)
    if not items:
        raise ValueError(f"{arg} must name at least one variable")
    if all(isinstance(v, str) for v in items):
        missing = [v for v in items if v not in names]
        if missing:
            raise ValueError(f"{arg}: variables not in the fit: {missing}; "
                             f"the fit's variables are {names}")
        idx = [names.index(v) for v in items]
    elif all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
             for v in items):
        bad = [int(v) for v in items if not 0 <= v < len(names)]
        if bad:
            raise ValueError(f"{arg} positions are 0-based and must be between 0 and "
                             f"{len(names) - 1}; got {bad}")
        idx = [int(v) for v in items]
    else:
        raise TypeError(f"{arg} must be variable names or 0-based integer positions "
                        f"(not a mix, nor other values); got {i_var!r}")
    if len(set(idx)) != len(idx):
        raise ValueError(f"{arg} names a variable twice: {i_var!r}")
    return idx


def is_categorical(fit, j: int) -> bool:
    """True when ``var_levels[j]`` are level labels (R: not ``is.numeric``)."""
    levels = np.asarray(fit.var_levels[j])
    return levels.dtype.kind not in "biuf"


def grid_values(fit, j: int, continuous_resolution: int) -> np.ndarray:
    """R's grid of one variable (coded): all level codes, or
    ``continuous_resolution`` equally spaced points from the smallest to the
    largest of ``var_levels`` (R's ``seq(min, max, length = .)``), of its finite
    ones where some are infinite (see :func:`finite_range`)."""
    if is_categorical(fit, j):
        return np.arange(len(fit.var_levels[j]), dtype=float)
    lo, hi = finite_range(fit, j)
    with np.errstate(over="ignore"):
        spread = hi - lo
    if np.isfinite(spread):
        return np.linspace(lo, hi, continuous_resolution)
    # R's seq when to - from overflows: the points of from / 4 to to / 4, times 4
    return np.linspace(lo / 4, hi / 4, continuous_resolution) * 4


def finite_range(fit, j: int) -> tuple[float, float]:
    """The smallest and largest finite value among the stored quantiles
    ``var_levels`` of the numeric predictor ``j``. Where some are infinite (the
    predictor has Inf or -Inf values), a warning that those values are outside
    the grid (R stops: "'to' must be a finite number"); none finite: a ValueError."""
    name = fit.var_names[j]
    levels = np.asarray(fit.var_levels[j], dtype=float)
    finite = levels[np.isfinite(levels)]
    if finite.size == 0:
        raise ValueError(f"partial dependence: the predictor {name!r} has no finite value in "
                         f"the training data (its stored quantiles fit.var_levels are "
                         f"{listed(levels)}), so there is no grid of its values")
    lo, hi = float(finite.min()), float(finite.max())
    if np.isinf(levels).any():
        warn(f"partial dependence: the predictor {name!r} has infinite values, which are "
             f"outside the grid: it spans the finite ones of its stored quantiles "
             f"(fit.var_levels), {lo:.6g} to {hi:.6g}")
    return lo, hi


def expand_grid(values: list[np.ndarray]) -> np.ndarray:
    """R's ``expand.grid``: every combination, the first column varying fastest."""
    sizes = [len(v) for v in values]
    total = int(np.prod(sizes))
    cols, inner = [], 1
    for v, size in zip(values, sizes):
        cols.append(np.tile(np.repeat(np.asarray(v, dtype=float), inner), total // (inner * size)))
        inner *= size
    return np.column_stack(cols) if cols else np.empty((1, 0))


# --------------------------------------------------------------------------- computation
def weighted_traversal(fit, grid: np.ndarray, idx: list[int], n_trees: int) -> np.ndarray:
    """Partial dependence (link scale) at the rows of ``grid`` (R's ``gbm_plot``).

    ``grid`` is a coded matrix whose column c holds variable ``idx[c]``.
    Terminal contributions are added in R's order, so the result is R's to
    rounding. See the module docstring for the rules.
    """
    grid = np.asarray(grid, dtype=float)
    n = grid.shape[0]
    ts = fit.ts_encoder
    if ts is not None:
        # levels -> their target statistics (and combinations of the chosen variables)
        grid, idx = ts.grid_to_engine(grid, idx)
    col_of = {v: c for c, v in enumerate(idx)}
    var_type = np.asarray(fit.engine_var_type if ts is not None else fit.var_type)
    out = np.full(n, float(fit.init_f))
    everyone = np.arange(n)
    for tree in fit.trees[:n_trees]:
        split_var = np.asarray(tree.split_var)
        node_w = np.asarray(tree.weight, dtype=float)
        value = np.asarray(tree.split_code_pred, dtype=float)
        n_nodes = split_var.shape[0]
        weight = np.zeros(n_nodes)
        rows: list = [None] * n_nodes
        weight[0], rows[0] = 1.0, everyone
        for k in range(n_nodes):
            r = rows[k]
            if r is None or r.size == 0:
                continue
            v = int(split_var[k])
            if v == NO_NODE:
                if r is everyone:
                    out += weight[k] * value[k]
                else:
                    out[r] += weight[k] * value[k]
                continue
            left, right, miss = int(tree.left[k]), int(tree.right[k]), int(tree.missing[k])
            if v not in col_of:       # average over both branches, by node weight
                w_right = weight[k] * node_w[right] / (node_w[left] + node_w[right])
                weight[right], weight[left] = w_right, weight[k] - w_right
                rows[left] = rows[right] = r
                continue
            d = split_directions(tree, k, grid[r, col_of[v]], var_type[v] > 0, fit.c_splits,
                                 unseen=NOWHERE)
            for child, side in ((left, LEFT), (right, RIGHT), (miss, MISSING)):
                weight[child] = weight[k]
                rows[child] = r[d == side]
    return out


def _training_rows(fit):
    """The training rows (coded) and their case weights, for averages over them:
    a zero-subsampled fit's kept zeros count 1/l each (the original rows)."""
    data = fit.data
    if data is None:
        raise ValueError("brute-force partial dependence and ICE need the training data: "
                         "fit the model with keep_data=True")
    rows = fit.training_index     # pairwise: the training groups are not the first rows
    x = np.asarray(data.x, dtype=float)[rows]
    w = data.response.w[rows]
    if fit.zero_sample is not None:   # the kept rows stand for all training rows
        w = fit.zero_sample.population_weights(w)
    return x, w


def brute_force_predictions(fit, grid, idx, n_trees, x) -> np.ndarray:
    """Link-scale predictions, shape (len(grid), len(x)): row i of ``x`` with
    its ``idx`` columns set to each grid point in turn.

    Trees that never split on ``idx`` give the same value at every grid point,
    so they are evaluated once per row; only the others see the replicated rows.
    """
    grid = np.asarray(grid, dtype=float)
    n_rows = x.shape[0]
    trees = list(fit.trees[:n_trees])
    ts = fit.ts_encoder
    engine_idx = ts.engine_columns_of(idx) if ts is not None else idx
    to_engine = fit.to_engine if ts is not None else (lambda a: a)
    var_type = fit.engine_var_type if ts is not None else fit.var_type
    uses = np.array([np.isin(np.asarray(t.split_var), engine_idx).any() for t in trees],
                    dtype=bool)
    varying = [t for t, u in zip(trees, uses) if u]
    fixed = [t for t, u in zip(trees, uses) if not u]
    base = predict_link(fixed, to_engine(x), var_type, fit.c_splits, fit.init_f,
                        [len(fixed)], engine=fit.options.engine)[:, 0]
    out = np.empty((grid.shape[0], n_rows))
    out[:] = base
    if not varying:
        return out
    per_block = max(1, BRUTE_FORCE_BLOCK_ROWS // max(n_rows, 1))
    for start in range(0, grid.shape[0], per_block):
        g = grid[start:start + per_block]
        rep = np.tile(x, (g.shape[0], 1))
        rep[:, idx] = np.repeat(g, n_rows, axis=0)
        pred = predict_link(varying, to_engine(rep), var_type, fit.c_splits, 0.0,
                            [len(varying)], engine=fit.options.engine)
        out[start:start + g.shape[0]] += pred[:, 0].reshape(g.shape[0], n_rows)
    return out


# --------------------------------------------------------------------------- frames
def _var_column(fit, j, coded):
    if not is_categorical(fit, j):
        return np.asarray(coded, dtype=float)
    levels = [str(s) for s in fit.var_levels[j]]
    ordered = int(np.asarray(fit.var_type)[j]) == 0   # ordered factor coded as numeric
    return pd.Categorical.from_codes(np.asarray(coded, dtype=np.intp), categories=levels,
                                     ordered=ordered)


def _frame(fit, idx, grid, extra: dict, attrs: dict, row=None) -> pd.DataFrame:
    """The grid's variable columns, then ICE's ``row`` (when given) and
    ``extra`` (``y``, or one column per class). A ``row``, ``y`` or class
    column named like a chosen predictor or an earlier column (a predictor
    ``y``, a class ``a`` beside a predictor ``a``) is suffixed with "_" until
    its name is free, so that it overwrites nothing; ``attrs`` records the
    names of the value and row columns (``y_column``, ``row_column``)."""
    cols = {fit.var_names[j]: _var_column(fit, j, grid[:, c]) for c, j in enumerate(idx)}
    names = []
    for key, values in ([("row", row)] if row is not None else []) + list(extra.items()):
        name = key
        while name in cols:
            name = f"{name}_"
        names.append(name)
        cols[name] = values
    frame = pd.DataFrame(cols)
    frame.attrs.update(attrs)
    if row is not None:
        frame.attrs["row_column"] = names[0]
    if list(extra) == ["y"]:
        frame.attrs["y_column"] = names[-1]
    elif extra:
        frame.attrs["class_columns"] = names[-len(extra):]
    return frame


def _check_resolution(continuous_resolution) -> int:
    """``continuous_resolution`` as an int: a whole number (10.0 is 10, as ``n_trees``
    takes it; R's seq rounds 7.5 up, pygbm asks for a whole number) from 1 to the
    grid's cap (above it one variable's axis alone would not fit in a grid)."""
    return int_arg("continuous_resolution", continuous_resolution, 1, MAX_GRID_ROWS)


def response_label(fit, type: str) -> str:
    """Axis label of the partial dependence: "f(x)" or the response scale: a
    probability for the class distributions (a 0/1 response, or multinomial's
    classes); else the inverse link itself (pairwise's logistic of a ranking
    score, as R's predict and plot.gbm give it, is no probability of anything)."""
    if type == "link":
        return "f(x)"
    dist = fit.distribution
    link = dist.response_link
    if link == "softmax" or (link in ("logistic", "logistic2") and dist.zero_one_response):
        return "probability"
    return {"logistic": "1/(1+exp(-f(x)))", "logistic2": "1/(1+exp(-2f(x)))",
            "exp": "exp(f(x))"}.get(link, "f(x)")


def _class_index(fit, class_):
    """Position of ``class_`` among a multi-class fit's classes (None: all)."""
    K = int(fit.num_classes)
    if class_ is None:
        return None
    if K == 1:
        raise ValueError("class_ applies to multi-class (multinomial) fits only")
    labels = class_labels(fit)
    # as R labels them (1 not 1.0): what the message lists, and a label to match
    shown = [r_label(c) for c in labels]
    if np.ndim(class_) != 0:
        raise ValueError(f"class_ must be one of the fit's classes {shown} (one label), got "
                         f"{type(class_).__name__} of shape {np.shape(class_)}")
    if missing_mask([class_])[0]:          # pandas' NA compares as NA, not False
        raise ValueError(f"class_ must be one of the fit's classes {shown}; got a missing "
                         f"value ({class_!r})")
    matches = [k for k, c in enumerate(labels)
               if c == class_ or str(c) == str(class_) or shown[k] == str(class_)]
    if not matches:
        raise ValueError(f"class_ must be one of the fit's classes {shown}; got {class_!r}")
    return matches[0]


def partial_dependence(fit, i_var, n_trees=None, continuous_resolution=100, type="link",
                       method="weighted_traversal", ice=False, ice_rows=None,
                       random_state=None, class_=None) -> pd.DataFrame:
    """Partial dependence of the fit on ``i_var`` over R's grid, as a DataFrame.

    Parameters
    ----------
    fit : GBMFit
        The fitted model (R: ``object``).
    i_var : str, int or list of them
        The variables, by name or by 0-based position in ``fit.var_names``
        (R: ``i.var``, 1-based there).
    n_trees : int, optional
        Trees used (R: ``n.trees``); default all. More than the fit has:
        a warning, and all are used; 0: none, the initial value ``init_f``
        at every grid point (on the scale of ``type``), as R.
    continuous_resolution : int, default 100
        Grid points of a continuous variable, equally spaced from its
        minimum to its maximum (R: ``continuous.resolution``); a whole
        number (10.0 is 10; R's ``seq`` takes 7.5 as 8, pygbm refuses it).
    type : {"link", "response"}, default "link"
        The scale (R: ``type``): "response" applies the distribution's
        inverse link to the link-scale partial dependence (for brute force:
        to the weighted mean of the link predictions; for ICE: to each curve),
        the scale of ``predict(type="response")`` for every distribution.
        R's ``plot.gbm`` has it for bernoulli, poisson, multinomial and
        pairwise only; for the others it warns "Ignoring" and its
        ``return.grid`` has no ``y`` column.
    method : {"weighted_traversal", "brute_force"}, default "weighted_traversal"
        "weighted_traversal" is R's algorithm (Friedman's: the trees' node
        weights average the other variables out; with Newton splits those
        weights are w h, see the module docstring); "brute_force" averages the
        model's predictions over the training rows, with their weights. Not
        in R.
    ice : bool, default False
        Individual conditional expectation: one curve per training row
        instead of their average. Not in R.
    ice_rows : int, optional
        ICE only: draw that many training rows at random; default None, all
        (given without ``ice=True``: a warning, and it is ignored).
    random_state : int or numpy.random.Generator, optional
        Seeds the draw of ``ice_rows``.
    class_ : class label, optional
        Multi-class fits: keep this class only, as the ``y`` column; default
        None, one column per class.

    Returns
    -------
    pandas.DataFrame
        One column per variable (categoricals as pandas Categorical with the
        fit's levels), then ``y``; the rows are R's ``expand.grid`` order
        (first variable fastest). With ``ice=True`` the frame is long: the
        grid repeated for every training row used, with a ``row`` column
        (0-based training row) before ``y``. ``frame.attrs`` records
        ``method`` ("weighted_traversal", "brute_force" or "ice"), ``type``
        and ``n_trees`` (and ``classes`` for multi-class fits), and the
        names of the ``y`` and ``row`` columns (``y_column``,
        ``row_column``): when a chosen predictor has the name, these (and a
        class column named like one) take a trailing "_" (``y_``), and the
        predictor's column keeps its name.

    Notes
    -----
    R returns this grid from ``plot.gbm(..., return.grid=TRUE)``; here it is
    a function of its own, and :func:`plot_gbm` draws it. Multi-class
    (multinomial) fits give the partial dependence of every class's link
    f_k, as R's ``plot.gbm``; ``type="response"`` turns them into class
    probabilities (softmax over the classes, at each grid point or, for
    ICE, each curve). When ordered target statistics combine a chosen
    predictor with an unchosen one, the tree weights cannot average them
    out: a warning, and ``method="brute_force"`` is used.

    Examples
    --------
    >>> grid = pygbm.partial_dependence(fit, "lstat")
    >>> grid.columns.tolist()
    ['lstat', 'y']
    >>> both = pygbm.partial_dependence(fit, ["lstat", "rm"], continuous_resolution=20)
    """
    fit_arg(fit)
    idx = resolve_vars(fit, i_var)
    n_trees = check_n_trees(fit, n_trees, cap=True, least=0)   # 0: the initial value, as R
    ice = bool_arg(ice, "ice")
    ice_rows, random_state = _ice_args(ice_rows, random_state)
    if ice_rows is not None and not ice:
        warn("ice_rows applies to ICE curves (ice=True) only; ignored")
    continuous_resolution = _check_resolution(continuous_resolution)
    choice_arg("type", type, TYPES)
    choice_arg("method", method, METHODS)
    k_class = _class_index(fit, class_)
    axes = [grid_values(fit, j, continuous_resolution) for j in idx]
    size = int(np.prod([len(a) for a in axes], dtype=float))
    if size > MAX_GRID_ROWS:
        raise ValueError(f"the grid of {len(idx)} variables at continuous_resolution="
                         f"{continuous_resolution} has {size:,} points (more than "
                         f"{MAX_GRID_ROWS:,}); lower continuous_resolution")
    grid = expand_grid(axes)
    inverse = fit.distribution.inverse_link if type == "response" else (lambda f: f)
    attrs = {"type": type, "n_trees": n_trees}
    K = int(fit.num_classes)
    if K > 1:
        return _multiclass(fit, idx, grid, n_trees, type, method, ice, ice_rows,
                           random_state, k_class, attrs)
    if ice:
        x, w = _training_rows(fit)
        rows = _ice_rows(x.shape[0], ice_rows, random_state)
        pred = brute_force_predictions(fit, grid, idx, n_trees, x[rows])  # (grid, rows)
        long_grid = np.tile(grid, (rows.size, 1))
        return _frame(fit, idx, long_grid, {"y": inverse(pred.T.ravel())},
                      {"method": "ice", **attrs}, row=np.repeat(rows, grid.shape[0]))
    if method == "weighted_traversal" and crosses_combinations(fit, idx):
        warn("partial dependence: the trees split on combinations that involve "
             "other predictors too; using method='brute_force'")
        method = "brute_force"
        attrs = {**attrs, "method": method}
    if method == "weighted_traversal":
        y = weighted_traversal(fit, grid, idx, n_trees)
    else:
        y = averaged_predictions(fit, grid, idx, n_trees)
    return _frame(fit, idx, grid, {"y": inverse(y)}, {"method": method, **attrs})


def crosses_combinations(fit, idx) -> bool:
    """Whether the trees split on feature combinations (``ts_max_combination`` > 1)
    of some of the predictors ``idx`` with others: the tree weights cannot average
    such a split over the others, so a partial dependence on ``idx`` needs
    :func:`averaged_predictions` instead of :func:`weighted_traversal`."""
    ts = fit.ts_encoder
    return ts is not None and bool(ts.partial_combinations(idx))


def averaged_predictions(fit, grid, idx, n_trees) -> np.ndarray:
    """Partial dependence by brute force (link scale): at each row of ``grid``, the
    training rows' predictions with their ``idx`` columns set to it, averaged with
    the rows' case weights (a zero-subsampled fit's kept zeros counted 1/l)."""
    x, w = _training_rows(fit)
    return brute_force_predictions(fit, grid, idx, n_trees, x) @ w / w.sum()


def _ice_rows(n, ice_rows, rng):
    """The rows of the ICE curves: all ``n``, or ``ice_rows`` of them drawn by ``rng``."""
    rows = np.arange(n)
    if ice_rows is not None and ice_rows < rows.size:
        rows = np.sort(rng.choice(rows.size, size=int(ice_rows), replace=False))
    return rows


def _ice_args(ice_rows, random_state):
    """``ice_rows`` (None or a positive integer) and the generator of
    ``random_state`` (None, a non-negative whole number or a numpy Generator),
    checked when given, whether or not ICE curves are drawn."""
    if ice_rows is not None and (isinstance(ice_rows, (bool, np.bool_))
                                 or not isinstance(ice_rows, (int, np.integer)) or ice_rows < 1):
        raise ValueError(f"ice_rows must be a positive integer or None, got {ice_rows!r:.80}")
    rng = as_generator(random_state)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"random_state must be None, a non-negative whole number or a numpy "
                        f"Generator, got {type(random_state).__name__}")
    return ice_rows, rng


def _multiclass(fit, idx, grid, n_trees, type, method, ice, ice_rows, random_state,
                k_class, attrs):
    """partial_dependence of a multi-class fit: every class's link (class
    views), softmax over the classes for ``type="response"``."""
    K = int(fit.num_classes)
    if ice or method == "brute_force":
        x, w = _training_rows(fit)
    if ice:
        rows = _ice_rows(x.shape[0], ice_rows, random_state)
        values = np.stack([brute_force_predictions(class_view(fit, k), grid, idx, n_trees,
                                                   x[rows]).T.ravel() for k in range(K)])
    elif method == "weighted_traversal":
        values = np.stack([weighted_traversal(class_view(fit, k), grid, idx, n_trees)
                           for k in range(K)])
    else:
        values = np.stack([brute_force_predictions(class_view(fit, k), grid, idx, n_trees, x)
                           @ w / w.sum() for k in range(K)])
    if type == "response":
        values = fit.distribution.inverse_link(values.T).T
    labels = class_labels(fit)
    if k_class is not None:
        extra = {"y": values[k_class]}
    else:
        extra = {c: values[k] for k, c in enumerate(labels)}
    attrs = {**attrs, "classes": labels if k_class is None else [labels[k_class]]}
    if ice:
        long_grid = np.tile(grid, (rows.size, 1))
        return _frame(fit, idx, long_grid, extra, {"method": "ice", **attrs},
                      row=np.repeat(rows, grid.shape[0]))
    return _frame(fit, idx, grid, extra, {"method": method, **attrs})


def plot_gbm(fit, i_var=0, n_trees=None, continuous_resolution=100, return_grid=False,
             type="link", ax=None, method="weighted_traversal", ice=False, ice_rows=100,
             random_state=None, class_=None, rug=False):
    """Partial dependence plot (R's ``plot.gbm``) or its grid.

    Parameters
    ----------
    fit : GBMFit
        The fitted model (R: ``x``).
    i_var : str, int or list of them, default 0
        Variables by name or by 0-based position in ``fit.var_names``
        (R: ``i.var``; R's default ``i.var = 1`` is 0 here).
    n_trees : int, optional
        Trees used (R: ``n.trees``); default all. More than the fit has:
        a warning, and all are used; 0: a flat line at the initial value,
        as R.
    continuous_resolution : int, default 100
        Grid points of a continuous variable, from its minimum to its maximum
        (R: ``continuous.resolution``); a whole number, as in
        :func:`partial_dependence`.
    return_grid : bool, default False
        Return the DataFrame of :func:`partial_dependence` instead of drawing
        (R: ``return.grid``); forced, with a warning, for more than 3
        variables, as in R.
    type : {"link", "response"}, default "link"
        The scale drawn (R: ``type``).
    ax : matplotlib Axes or Figure, optional
        Where to draw: an Axes for 1 or 2 variables, a Figure for 3 (panels);
        default a new one; checked with ``return_grid`` too. Not in R.
    method : {"weighted_traversal", "brute_force"}, default "weighted_traversal"
        How the other variables are averaged out (see
        :func:`partial_dependence`). Not in R.
    ice : bool, default False
        Individual conditional expectation curves (one variable only): one
        thin line per training row drawn, and in bold the plain (unweighted)
        mean of those curves on the scale drawn (legend "mean of the ICE
        curves"). That mean is the brute-force partial dependence only on
        the link scale, over all the training rows (``ice_rows=None``) and
        with equal case weights: it averages the drawn rows, unweighted, and
        with ``type="response"`` the transformed curves. Not in R.
    ice_rows : int, default 100
        ICE only: the training rows drawn at random for the curves (and
        their mean); None: all of them.
    random_state : int or numpy.random.Generator, optional
        Seeds the draw of ``ice_rows``.
    class_ : class label, optional
        Multi-class fits: the class drawn. Default None: every class (one
        variable: a curve each; two variables, or ICE curves: a panel each;
        three variables draw one class); with ``return_grid=True`` the grid
        of all classes.
    rug : bool, default False
        Mark where the data are: the deciles of each continuous variable
        that is on an axis of the plot drawn as short ticks on that axis (as
        scikit-learn's display), on every panel, from the fit's stored
        quantiles of the training data (``fit.var_levels``; infinite ones
        left out). The x axis shows the first variable, except that a
        continuous second one goes there when the first is categorical; the
        y axis a second continuous variable when both are continuous. With
        3 variables each panel shows two of them, ticked so; the panels'
        variable has no ticks. With ``return_grid`` nothing is drawn (``rug``
        is still checked). Not in R.

    Returns
    -------
    pandas.DataFrame or matplotlib Axes or list of Axes
        The grid DataFrame when ``return_grid``, else the Axes (1-2
        variables) or the list of the panels' Axes (3 variables, and every
        class of a multinomial fit for 2 variables or ICE curves; the Figure
        is ``panels[0].figure``).

    Notes
    -----
    R draws with lattice and returns nothing useful; here the drawing is
    matplotlib's and the Axes (or the panels' Axes) are returned so that the
    drawing can be changed. A multinomial fit draws one curve per class for one
    variable (R 2.1.8 draws the classes' curves as one line, each joined to the
    next from the right end back to the left: a bug, not followed) and a panel
    per class for two variables or ICE curves; three variables need ``class_``.

    Examples
    --------
    >>> ax = pygbm.plot_gbm(fit, "lstat", rug=True)
    >>> grid = pygbm.plot_gbm(fit, ["lstat", "rm"], return_grid=True)
    """
    fit_arg(fit)
    idx = resolve_vars(fit, i_var)
    return_grid, ice = bool_arg(return_grid, "return_grid"), bool_arg(ice, "ice")
    rug = bool_arg(rug, "rug")
    _ice_args(ice_rows, random_state)
    if ax is not None:      # an Axes or a Figure (panels), even when return_grid draws nothing
        from ..plotting.axes import check_axes

        check_axes(ax, figure=True)
    if len(idx) > MAX_PLOT_VARS and not return_grid:
        warn("plot_gbm draws up to 3 variables; returning the grid instead")
        return_grid = True
    if ice and len(idx) != 1 and not return_grid:
        raise ValueError("ice=True draws curves for one variable; give a single i_var")
    if fit.num_classes > 1 and class_ is None and not return_grid and len(idx) > 2:
        raise ValueError("plot_gbm draws every class of a multinomial fit for one or two "
                         "variables; for three variables give class_= (one of "
                         f"{class_labels(fit)}), or return_grid=True for all classes")
    frame = partial_dependence(fit, i_var, n_trees, continuous_resolution, type, method,
                               ice, ice_rows if ice else None, random_state, class_)
    if return_grid:
        return frame
    from ..plotting import pdp

    label = response_label(fit, type)
    if ice:
        drawn = pdp.plot_ice(frame, ax=ax, ylabel=label)
    else:
        drawn = pdp.plot_partial_dependence(frame, ax=ax, ylabel=label)
    if rug:
        pdp.draw_deciles(drawn, frame, {fit.var_names[j]: _deciles(fit, j) for j in idx})
    return drawn


def _deciles(fit, j):
    """The training data's deciles of predictor ``j`` (R's stored quantiles at
    0, .1, ..., 1 without the ends), the finite ones (an infinite decile, of a
    predictor with infinite values, is off the axis); None for a categorical or
    ordered one."""
    if fit.var_type[j] != 0:
        return None
    levels = np.asarray(fit.var_levels[j])
    if levels.dtype.kind not in "fi" or levels.shape[0] != DECILE_LEVELS:
        return None                                   # ordered categorical: labels
    deciles = levels[1:-1].astype(float)
    return deciles[np.isfinite(deciles)]
