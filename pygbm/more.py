"""gbm_more: more trees for a fitted model (R's ``gbm.more``), on the rows it
kept or on the same rows given again."""
from __future__ import annotations

import dataclasses

import numpy as np

from . import frontend
from ._checks import (R_INT_MAX, as_generator, bool_arg, int_arg, offset_arg,
                      rescaled_weights_arg, same_rows_arg, weights_arg)
from .fitting import continue_fit
from .messages import quiet
from .model import GBMFit
from .progress import check_progress
from .response import Response, same_rows

#: how closely weights (without data) and offsets given to gbm_more must match the
#: model's own
_SAME_VALUES_RTOL = 1e-12


def _new_rows(fit, data, weights):
    """gbm_more(data=...): the coded predictors and the targets of ``data``
    (the same rows as the first fit's)."""
    if fit.formula is None:
        raise ValueError("data= is only supported for models fitted with a formula")
    # the fit's rows again: its warnings about them (numbers held as text, a predictor
    # without variation, ...) were given by the fit
    mf = frontend.model_frame(fit.formula, data, weights, again=True)
    n_first = fit.fit.shape[0] if fit.zero_sample is None else \
        fit.zero_sample.n_original(fit.fit.shape[0])
    if mf.x.shape[0] != n_first:
        raise ValueError(f"data have {mf.x.shape[0]} rows but the model was fitted on "
                         f"{n_first}; gbm_more continues on the same rows")
    with quiet():       # a level the fit never saw is refused below, not warned about
        x = frontend.model_frame_newdata(fit.encoder, data, "data")
    n_levels = np.asarray(fit.var_type)
    unseen = [fit.var_names[j] for j in np.flatnonzero(n_levels > 0)
              if np.any(x[:, j] >= n_levels[j])]
    if unseen:      # coded after the fit's levels: no tree can be grown on them
        raise ValueError(f"data has levels of {unseen} not seen by the first fit; gbm_more "
                         "continues on the same rows, with the same levels")
    # the response coded by the fit's levels, not by those the rows happen to have
    # (text, or categories in another order, swapped the classes without a word)
    y = frontend.coded_like_fit(mf.y, mf.y_levels, fit.y_levels, "the response of data")
    if fit.distribution.multi_output and fit.y_levels is None:
        y = _class_codes(y, fit.classes)      # numbers: the classes' codes, as the fit's
    off, status = mf.offset, mf.status
    if fit.distribution.bag_by_group:                  # pairwise: the kept groups
        status = None if fit.data is None else fit.data.response.misc
        if status is None or status.shape[0] != x.shape[0]:
            raise ValueError("gbm_more(data=...) for pairwise needs the kept training "
                             "data (keep_data=True) and the same rows")
    w_raw = weights_arg(mf.weights, x.shape[0])
    sample = fit.zero_sample
    if sample is not None:          # the first fit's rows: kept training rows, validation
        x, y, off, status = (sample.select(a) for a in (x, y, off, status))
        sample.check_responses(y)
        w_raw = sample.raw_weights(sample.select(w_raw))
    if weights is None and fit.data is not None:
        w_raw = fit.data.response.w_raw     # R's gbm.more: the kept rows, their weights
    elif weights is None and fit.weighted:  # R continues with weights 1, silently
        raise ValueError("weights are missing: the model was fitted with case weights, "
                         "which data= does not carry (the model did not keep its data); "
                         "give weights= again, as the model was fitted with them")
    # the fit's normalisation (R's sum), so that the continuation is a one-shot fit
    # bit for bit: np.sum rounds otherwise, and a laplace leaf's weighted median moved
    w_norm = rescaled_weights_arg(w_raw, x.shape[0], w_raw, "w * n / sum(w)")
    if not same_rows(fit.data, fit.rows_digest, x, y, offset_arg(off, x.shape[0]), status):
        raise ValueError("data are not the rows the model was fitted on, in their order (the "
                         "predictors, the response, its offset or event status differ): "
                         "gbm_more continues the trees on the rows that grew them (R's "
                         "gbm.more reads the kept rows and ignores data); give the training "
                         "rows as they were")
    return x, Response(y=y, misc=status, offset=off, w=w_norm, w_raw=w_raw)


def _class_codes(y, classes) -> np.ndarray:
    """A multi-class response of numbers (``y``) as the codes 0..K-1 of the fit's
    ``classes`` (sorted), the coding of its kept response and of its trees (the
    values themselves, 1..3 say, were read as the codes of other classes, and 3
    past the last); a value that is none of them is refused."""
    values = np.asarray(y, dtype=float)
    known = np.asarray(classes, dtype=float)
    codes = np.minimum(np.searchsorted(known, values), known.size - 1)
    other = known[codes] != values
    if other.any():
        raise ValueError(f"the response of data has values that are none of the fit's "
                         f"classes {known.tolist()}, such as {values[other][0]!r}")
    return codes.astype(float)


def _same_offset(fit, offset, n: int, own) -> None:
    """gbm_more's ``offset`` must be the offsets of the model's ``n`` rows (``own``;
    None: no offset, zeros): R's ``gbm.more`` never reads its argument, and a
    continuation on another offset would not be one model."""
    sample = fit.zero_sample
    given = offset_arg(offset, n if sample is None else sample.n_original(n))  # zeros: None
    if given is not None and sample is not None:
        given = sample.select(given)
    if (given is None) != (own is None) or (
            given is not None and not np.allclose(given, own, rtol=_SAME_VALUES_RTOL,
                                                  atol=0.0)):
        raise ValueError("offset differs from the offsets the model was fitted with: "
                         "gbm_more continues with the model's own (R's gbm.more never "
                         "reads its offset argument); fit a new model for another offset")


def _kept_weights(fit, weights, w_raw):
    """gbm_more without ``data``: the fit continues with the case weights it
    kept (``w_raw``), as R's ``gbm.more`` does; ``weights`` given there must
    be those (R ignores them silently)."""
    if isinstance(weights, str):
        raise ValueError(f"weights={weights!r} names a column of data, but no data were "
                         "given: gbm_more continues with the weights the model kept "
                         "(give data= to use the column)")
    sample = fit.zero_sample
    n = w_raw.shape[0] if sample is None else sample.n_original(w_raw.shape[0])
    w = weights_arg(weights, n)
    if sample is not None:
        w = sample.raw_weights(sample.select(w))
    if not np.allclose(w, w_raw, rtol=_SAME_VALUES_RTOL, atol=0.0):
        raise ValueError("weights differ from the ones the model was fitted with: without "
                         "data= gbm_more continues with the weights the model kept (R "
                         "ignores new ones there); give data= with the new weights")


def gbm_more(fit: GBMFit, n_new_trees=100, data=None, weights=None, offset=None,
             verbose=None, random_state=None, progress=None):
    """Add trees to a fitted model (R's ``gbm.more``).

    Parameters
    ----------
    fit : GBMFit
        The model to continue (R: ``object``).
    n_new_trees : int, default 100
        Iterations to add (R: ``n.new.trees``).
    data : pandas.DataFrame, optional
        The training rows again (a formula fit), when the fit did not keep
        them (R: ``data``); the same rows.
    weights : str or array-like, optional
        Row weights with ``data`` (R: ``weights``), for the new trees. Without
        them, a model that kept its data continues with the weights it kept
        (as R's ``gbm.more``); one that did not is refused if it was fitted
        with weights (R would continue with weights 1, silently).
        Without ``data`` the model continues with the weights it kept; weights
        given then must be those (R ignores them silently; pygbm refuses
        others).
    offset : array-like, optional
        The offsets of the model's rows, if given (R: ``offset``, which
        ``gbm.more`` never reads): the model continues with the offsets it was
        fitted with (kept, or the formula's ``offset()`` terms on ``data``), and
        others are refused (trees on another offset would not be one model).
    verbose : bool, optional
        Print R's iteration table; default: as the fit (R: ``verbose``).
    random_state : int, numpy.random.Generator or RRandom, optional
        Seeds the new trees' bagging; default None: the fit's own generator or
        R stream continues (as R's ``gbm.more`` continues R's global stream).
    progress : bool, optional
        A progress bar (see :func:`gbm`).

    Returns
    -------
    GBMFit
        A new fit with ``fit.n_trees + n_new_trees`` trees. ``fit``'s trees are
        unchanged; without ``random_state`` its random generator advances, as
        R's stream does, so a second ``gbm_more(fit)`` draws other bags.
        As R's ``gbm.more``, ``cv_error`` stays ``fit``'s, of its first
        ``fit.n_trees`` trees (no folds are refitted): ``gbm_perf(method="cv")``,
        ``print`` and the default ``n_trees`` of ``predict`` still use it;
        ``cv_fitted`` is None.

    Notes
    -----
    A zero-subsampled fit continues on its kept rows with its weights
    (``data``, ``weights`` and ``offset`` are then the original rows, before
    subsampling).

    Examples
    --------
    >>> import numpy as np, pygbm
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(200, 2))
    >>> fit = pygbm.gbm_fit(x, x[:, 0], distribution="gaussian", n_trees=20)
    >>> pygbm.gbm_more(fit, 30).n_trees
    50
    """
    if not isinstance(fit, GBMFit):
        raise TypeError(f"fit must be a GBMFit, got {type(fit).__name__}")
    n_new_trees = int_arg("n_new_trees", n_new_trees, 1, R_INT_MAX)
    same_rows_arg("offset", offset, data, "data")       # weights: by model_frame
    if data is None:
        if fit.data is None:
            raise ValueError("gbm_more needs data: the model was fitted with keep_data=False"
                             + ("; give the training rows again as data=" if fit.formula
                                else " by gbm_fit, which has no formula to read data= "
                                "with (as R's gbm.more): refit with keep_data=True"))
        x, targets = fit.data.x, fit.data.response
        if weights is not None:
            _kept_weights(fit, weights, targets.w_raw)
    else:
        x, targets = _new_rows(fit, data, weights)
    if offset is not None:
        _same_offset(fit, offset, x.shape[0], targets.offset)
    n = x.shape[0]
    if n != fit.fit.shape[0]:
        raise ValueError(f"data have {n} rows but the model was fitted on {fit.fit.shape[0]}")
    rng = fit.rng if random_state is None else as_generator(random_state)
    report = (fit.verbose if verbose is None else bool_arg(verbose, "verbose"),
              check_progress(progress))
    more = continue_fit(fit, x, targets, n_new_trees, report, rng)
    # R's gbm.more records its own call: print(fit) shows how the trees came to be
    call = f"gbm_more({fit.call or 'fit'}, n_new_trees = {n_new_trees})  # {more.n_trees} trees"
    return dataclasses.replace(more, options=dataclasses.replace(more.options, call=call))
