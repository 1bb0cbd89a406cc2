"""GBMFit: the fitted model (R's "gbm" object) with predict and print."""
from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from . import frontend
from ._checks import bool_arg, choice_arg, per_row_arg, same_rows_arg
from .distributions import Distribution
from .distributions.inputs import FitContext
from .costs import predict_cost
from .fit_report import fit_report
from .engine._memory import reuse_freed_memory
from .engine.cegb import CostTracker
from .engine.predict import predict_link
from .messages import GBMMessage, warn
from .options import FitOptions
from .response import KeptData
from .rrandom import RRandom
from .zero_sampling import ZeroSample

if TYPE_CHECKING:                 # annotations only: pandas is imported on first use
    import pandas as pd

#: share of a sample's rows found among the fit's training rows above which qwyc() and
#: calibrate() warn that the sample flatters the fit
TRAINING_ROWS_SHARE = 0.5

_PREDICT_TYPES = ("link", "response")
#: R's predict.gbm warning for a fit whose formula has offset() terms
OFFSET_NOT_ADDED = ("predict does not add the offset to the predicted values (R's "
                    "predict.gbm warning: the formula has offset() terms)")


class _Option:
    """A read-only attribute of the fit that is the option of the same name
    (``fit.shrinkage`` is ``fit.options.shrinkage``)."""

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, fit, owner=None):
        return self if fit is None else getattr(fit.options, self.name)


@dataclass(frozen=True, eq=False, repr=False)
class GBMFit:
    """A fitted generalized boosted model (R's ``gbm`` object, names in snake_case).

    Built once by the fitting functions (:func:`gbm`, :func:`gbm_fit`),
    never changed afterwards: gbm() (cv results, pairwise row order) and
    :func:`gbm_more` make changed copies (``dataclasses.replace``). Users
    read its fields; they do not construct it.

    Parameters
    ----------
    options : FitOptions
        What the fit was asked for (the checked arguments). R's tuning
        parameters are read from it as attributes: ``fit.shrinkage``,
        ``fit.bag_fraction``, ``fit.interaction_depth``,
        ``fit.n_minobsinnode``, ``fit.var_monotone``, ``fit.verbose``,
        ``fit.formula``, ``fit.call``, ...
    distribution : Distribution
        The loss, with its parameters (R: ``distribution``).
    context : FitContext
        What the fit learned besides the distribution's parameters (classes,
        tie-breaking noise, the exp mode), for gbm_more and the loss.
    init_f : float or numpy.ndarray
        The initial link value (R: ``initF``); one per class for multinomial.
    trees : sequence of Tree
        The trees (R: ``trees``): one per iteration, K per iteration for a
        K-class fit (class-major); a ``TreeList`` (a sequence that makes a
        tree's Tree when it is indexed), not a Python list.
    c_splits : list
        Categorical splits (R: ``c.splits``): per level -1 left, 1 right.
    num_classes : int
        Link columns, i.e. trees per iteration (R: ``num.classes``).
    classes : numpy.ndarray or None
        Multinomial: the class labels.
    train_error : numpy.ndarray
        Training loss per iteration (R: ``train.error``).
    valid_error : numpy.ndarray
        Validation loss per iteration (R: ``valid.error``; NaN without a
        validation set).
    oobag_improve : numpy.ndarray
        Out-of-bag improvement per iteration (R: ``oobag.improve``).
    fit : numpy.ndarray
        The training rows' link values, without offset, in the data's row
        order (R: ``fit``).
    n_train : int
        Training rows (R: ``nTrain``).
    train_fraction : float
        Share of the rows that trained (R: ``train.fraction``).
    response_name : str
        The response's name (R: ``response.name``).
    var_names : list of str
        The predictors' names (R: ``var.names``).
    var_type : numpy.ndarray
        0 for a continuous predictor, else its number of levels (R:
        ``var.type``).
    var_levels : list
        Per predictor: its quantiles (continuous) or levels (categorical)
        (R: ``var.levels``).
    encoder : object
        Codes new data for prediction (None for a fit on arrays).
    data : KeptData or None
        The kept training data (``keep_data``; R: ``data``): the coded
        predictors ``x`` and their :class:`~pygbm.response.Response` (``y``,
        ``offset``, ``misc``, ``w`` normalised, ``w_raw``); None with
        ``keep_data=False``.
    y_levels : list, optional
        The levels of a categorical response.
    engine_var_type : numpy.ndarray, optional
        ``var_type`` as the trees see the predictors (ordered target
        statistics only).
    ts_encoder : object, optional
        The ordered target statistics' encoder (``categorical != "native"``).
    cv_error : numpy.ndarray, optional
        Cross-validation loss per iteration (R: ``cv.error``).
    cv_fitted : numpy.ndarray, optional
        Each row's held-out link value from the cv fold models (R:
        ``cv.fitted``), one per training row; a pairwise fit's has one per
        row of the data in its order, NaN for the validation rows (R's has
        the training rows only, sorted by group).
    cv_folds : int, default 0
        The number of cv folds (R: ``cv.folds``).
    fold_id : numpy.ndarray, optional
        The cv fold of every training row.
    ord_group : numpy.ndarray, optional
        Pairwise: R's ``ord.group`` (0-based).
    group_levels : numpy.ndarray, optional
        Pairwise: the group labels in code order.
    rng : numpy.random.Generator or RRandom, optional
        The bagging generator where it stopped, for :func:`gbm_more`.
    row_order : numpy.ndarray, optional
        The engine's row order (None: the data's).
    ts_support : numpy.ndarray, optional
        Ordered target statistics: the supporting models' training link
        values (engine row order).
    zero_sample : ZeroSample, optional
        Zero-response subsampling: the rate, the mode and the kept training
        rows; None without. Not in R.
    cost_tracker : CostTracker, optional
        Cost-efficient boosting: the training rows' feature-use marks, the
        model's used predictors and each split's penalty; None without
        effective costs. Not in R.
    matrix_offset : bool, default False
        The fit was trained with an ``offset`` argument (:func:`gbm_fit`),
        not a formula's ``offset()`` terms: what adds
        offsets to new rows' predictions (:func:`qwyc`, :func:`calibrate`,
        :func:`cost_tradeoff`) needs their offsets given (``offset=``).
        False for a multinomial fit, whose offset has no effect. Not in R.
    rows_digest : str, optional
        Without kept data (``keep_data=False``): a digest of the training
        rows' coded predictors and response, by which :func:`gbm_more` knows
        ``data=`` to be the same rows in the same order. Not in R.
    weighted : bool, default False
        The fit was given case weights (not all equal: equal weights are
        none once normalised): without kept data, :func:`gbm_more` with
        ``data=`` needs ``weights=`` again (R continues with weights 1). A fit
        pickled before this field existed reads False. Not in R.

    Notes
    -----
    R's object is a mutable list; this one is frozen so that a fit cannot
    drift from the trees that made it, and R's dotted names are snake_case
    (``n.trees`` is ``fit.n_trees``, the number of iterations).

    Examples
    --------
    >>> fit = pygbm.gbm("medv ~ .", boston, distribution="gaussian", n_trees=100)
    >>> fit.n_trees, fit.shrinkage
    (100, 0.1)
    >>> pred = fit.predict(boston, n_trees=50)
    """

    #: what the fit was asked for (checked arguments)
    options: FitOptions
    #: the loss (its parameters only)
    distribution: Distribution
    #: what the fit learned besides the distribution's parameters (classes, the
    #: tie-breaking noise, the exp mode), for gbm_more and the loss
    context: FitContext
    # ---- the model
    init_f: float | np.ndarray        # initial link value (one per class for multinomial)
    trees: Sequence                   # Tree per iteration (K per iteration: class-major): a TreeList
    c_splits: list                    # categorical splits: -1 left, 1 right, per level
    num_classes: int                  # link columns (trees per iteration)
    classes: np.ndarray | None        # multinomial: the class labels
    # ---- per iteration
    train_error: np.ndarray
    valid_error: np.ndarray
    oobag_improve: np.ndarray
    # ---- per row (link values without offset, the data's row order)
    fit: np.ndarray
    # ---- the data
    n_train: int
    train_fraction: float
    response_name: str
    var_names: list
    var_type: np.ndarray
    var_levels: list
    encoder: object                   # codes new data (PredictorEncoder), None for arrays
    data: KeptData | None             # the kept training data (keep_data), the data's order
    y_levels: list | None = None      # levels of a categorical response
    # ---- target statistics (categorical != "native")
    engine_var_type: np.ndarray | None = None   # var_type as the trees see the predictors
    ts_encoder: object = None
    # ---- cross-validation (gbm(cv_folds=...))
    cv_error: np.ndarray | None = None
    cv_fitted: np.ndarray | None = None
    cv_folds: int = 0
    fold_id: np.ndarray | None = None
    # ---- pairwise: R's ord.group (0-based) and the group labels in code order
    ord_group: np.ndarray | None = None
    group_levels: np.ndarray | None = None
    # ---- what gbm_more continues
    rng: np.random.Generator | RRandom | None = None   # the bagging generator, where it stopped
    row_order: np.ndarray | None = None         # the engine's row order (None: the data's)
    #: ordered target statistics: the supporting models' training link values
    #: (engine row order); ordered boosting: its supporting models
    #: (pygbm.ordered.scheme.OrderedModels)
    ts_support: object | None = None
    #: zero-response subsampling: the rate, the mode and the kept training
    #: rows (pygbm.zero_sampling.ZeroSample); None without
    zero_sample: ZeroSample | None = None
    #: cost-efficient boosting: the training rows' feature-use marks, the
    #: model's used predictors and each split's penalty (engine row order;
    #: None without effective costs)
    cost_tracker: CostTracker | None = None
    #: trained with an offset argument (gbm_fit), not a formula's offset():
    #: new rows' offsets must be given where they are added (qwyc, calibrate)
    matrix_offset: bool = False
    #: without kept data: the digest of the training rows (response.rows_digest),
    #: by which gbm_more(data=) knows them again; None with kept data and for cv's
    #: fold fits (FitOptions.digest_rows), which are never continued
    rows_digest: str | None = None
    #: given case weights (not all equal): gbm_more(data=) without kept data needs
    #: them again
    weighted: bool = False

    # ---- R's parameters, read from the options
    shrinkage = _Option()
    bag_fraction = _Option()
    interaction_depth = _Option()
    n_minobsinnode = _Option()
    var_monotone = _Option()
    max_bins = _Option()
    categorical = _Option()
    zero_subsample = _Option()
    zero_weight = _Option()
    target_stats = _Option()
    verbose = _Option()
    formula = _Option()
    call = _Option()
    #: cost-efficient boosting's costs (a CostSpec; None: none)
    costs = _Option()

    # ------------------------------------------------------------------ sizes
    @property
    def n_trees(self) -> int:
        """Number of boosting iterations (trees per output)."""
        return len(self.trees) // self.num_classes

    @property
    def training_index(self) -> np.ndarray:
        """The training rows' indices in the kept data (the data's row order): the
        engine's first ``n_train`` rows (``row_order``; None: the data's). With
        ``train_fraction < 1`` and pairwise groups they are not the first rows."""
        n = int(self.n_train)
        return np.arange(n) if self.row_order is None else np.sort(self.row_order[:n])

    @property
    def n_features(self) -> int:
        """Number of predictors (R: ``length(var.names)``)."""
        return len(self.var_names)

    # ---------------------------------------------------------------- predict
    def _training_share(self, x) -> float:
        """How far the coded rows ``x`` (:meth:`_design`; None: the training data) are
        rows the fit was trained on, beyond what new rows match by chance: 0 for new
        rows, 1 for training rows (0 when the training data were not kept; with
        ``train_fraction`` < 1 the validation rows are not training rows). Rows are
        matched by their values, so a new row equal to a training row matches too;
        the chance of that is estimated on the training rows themselves (the share
        whose values another training row repeats: many with few distinct values,
        as categorical-only data have) and taken out. qwyc() and calibrate() warn
        when it is high (their numbers then flatter the fit)."""
        if x is None:
            return 1.0
        if self.data is None:
            return 0.0

        def keys(x):
            x = np.ascontiguousarray(x, dtype=float)
            return x.view(np.dtype((np.void, x.dtype.itemsize * x.shape[1]))).ravel()

        train, counts = np.unique(keys(self.data.x[self.training_index]),
                                  return_counts=True)
        chance = counts[counts > 1].sum() / max(1, counts.sum())
        if chance >= 1.0:       # every training row repeated: values cannot tell
            return 0.0
        share = float(np.isin(keys(x), train).mean()) if x.shape[0] else 0.0
        return max(0.0, (share - chance) / (1.0 - chance))

    def _link(self, x, counts) -> np.ndarray:
        """Link-scale predictions of the coded rows ``x`` (:meth:`_design`) at each of
        the checked tree ``counts``: (rows, counts), or (rows, classes, counts)."""
        with reuse_freed_memory():
            return predict_link(self.trees, self.to_engine(x), self.engine_var_type,
                                self.c_splits, self.init_f, counts,
                                n_outputs=self.num_classes, engine=self.options.engine)

    def _single_trees(self, x, counts) -> np.ndarray:
        """R's ``single.tree = TRUE``: the link contribution of iteration ``c``'s
        tree(s) alone (shrunken, no initial value) for each of the ``counts``
        (each >= 1), shaped as :meth:`_link`'s."""
        K = int(self.num_classes)
        x_engine, zero = self.to_engine(x), np.zeros(K)
        with reuse_freed_memory():
            parts = [predict_link(self.trees[(c - 1) * K:c * K], x_engine, self.engine_var_type,
                                  self.c_splits, zero, [1], n_outputs=K,
                                  engine=self.options.engine) for c in counts]
        return np.concatenate(parts, axis=-1)

    def _design(self, newdata, name: str = "newdata") -> np.ndarray:
        """The coded predictor matrix for ``newdata`` (None: the training data);
        errors call it ``name``, the caller's argument."""
        if newdata is None:
            if self.data is None:
                raise ValueError(f"{name} is required: the model was fitted with "
                                 "keep_data=False, so the training data were not kept")
            return self.data.x
        if isinstance(newdata, np.ndarray) and self.encoder is None:
            x = np.asarray(newdata, dtype=float)
            if x.ndim != 2 or x.shape[1] != self.n_features:
                raise ValueError(f"{name} must have {self.n_features} columns "
                                 f"({', '.join(self.var_names)}); got shape {x.shape}")
            return x
        prior = () if self.ts_encoder is None else self.ts_encoder.ts_names
        return frontend.model_frame_newdata(self.encoder, newdata, name, prior)

    def _new_offsets(self, data, offset, n: int, name: str = "offset",
                     table: str = "newdata") -> np.ndarray | None:
        """The offsets of the ``n`` rows of ``data`` (the caller's argument ``table``):
        ``offset`` given (the caller's argument ``name``; one finite number per row),
        else the formula's ``offset()`` terms evaluated on ``data``; None for a
        fit without offsets. Refused: none for a fit trained with an offset
        argument (``matrix_offset``: its new rows cannot be scored without theirs);
        one for a fit trained without any offset (its scores have none)."""
        if offset is None:
            if self.matrix_offset:
                raise ValueError(f"{name} is required: the model was fitted with an offset "
                                 f"argument (gbm_fit(offset=)), so the rows of {table} are "
                                 f"scored with theirs; give one number per row")
            if self.formula is None:
                return None
            return frontend.offset_newdata(self.encoder, data, table)
        if not (self.matrix_offset or (self.encoder is not None and self.encoder.offset_terms)):
            if self.distribution.multi_output:
                raise ValueError(f"{name} was given, but an offset has no effect under "
                                 f"distribution {self.distribution.name!r} (added to every "
                                 "class's link, it leaves the class probabilities as they "
                                 f"are): leave {name} out")
            raise ValueError(f"{name} was given, but the model was fitted without an offset "
                             f"(neither gbm_fit(offset=) nor offset() in its formula): its "
                             f"scores have none to add to; leave {name} out")
        same_rows_arg(name, offset, data, table)
        return per_row_arg(name, offset, n, table)

    def to_engine(self, x: np.ndarray) -> np.ndarray:
        """The coded predictors as the trees see them.

        Parameters
        ----------
        x : numpy.ndarray
            Coded predictors (n, p), as the fit's encoder codes them.

        Returns
        -------
        numpy.ndarray
            ``x`` itself, or with target statistics in place of categoricals
            when the fit's ``categorical`` is not "native".
        """
        if self.ts_encoder is None:
            return x
        return self.ts_encoder.transform(x)

    def best_iteration(self, quiet: bool = False) -> tuple[int, str]:
        """The number of trees ``predict`` uses by default, and the rule used.

        Parameters
        ----------
        quiet : bool, default False
            Silence ``gbm_perf``'s messages (the OOB rule's caveat).

        Returns
        -------
        tuple of (int, str)
            The number of trees and the rule, R's ``predict.gbm``'s: "test" with
            a validation set (even when cv was run too), else "cv" if it was
            run, else all trees. The out-of-bag estimate is never used by
            default (ask ``gbm_perf(fit, method="OOB")``).
        """
        from .inspect.perf import gbm_perf

        quiet = bool_arg(quiet, "quiet")
        if self.train_fraction < 1:
            method = "test"
        elif self.cv_error is not None:
            method = "cv"
        else:
            return self.n_trees, "all trees: no validation set or cv to choose with"
        with warnings.catch_warnings():
            if quiet:
                warnings.simplefilter("ignore")
            best = gbm_perf(self, method=method, plot_it=False)
        return int(best), method

    def _check_n_trees(self, n_trees) -> np.ndarray:
        """Whole numbers >= 0; above the trees fitted: R's warning and the cap."""
        wrong = (f"n_trees must be a whole number or a list of whole numbers, "
                 f"got {n_trees!r}")
        if isinstance(n_trees, (list, tuple)) and \
                any(isinstance(v, (bool, np.bool_)) for v in n_trees):
            raise ValueError(wrong)                 # np.asarray([True, 2]) is [1, 2]
        try:
            raw = np.asarray(n_trees)
        except ValueError:                          # a ragged list ([[1, 2], [3]])
            raise ValueError(wrong) from None
        counts = _whole_ints_as_floats(np.atleast_1d(raw))
        if counts.ndim != 1 or counts.size == 0 or counts.dtype == bool \
                or not np.issubdtype(counts.dtype, np.number) or np.iscomplexobj(counts) \
                or not np.all(np.isfinite(counts)) or np.any(counts != np.round(counts)):
            raise ValueError(wrong)
        if np.any(counts < 0):
            raise ValueError(f"n_trees must be >= 0, got {n_trees!r}")
        if np.any(counts > self.n_trees):
            counts = np.minimum(counts, self.n_trees)
            warn(f"n_trees exceeded the number fit so far ({self.n_trees}); "
                 f"using {' '.join(str(int(c)) for c in counts)}")        # R's warning and cap
        return counts.astype(int)

    def predict(self, newdata=None, n_trees=None, type: str = "link",  # noqa: A002 (R's name)
                single_tree: bool = False):
        """Predictions on the link or the response scale (R's ``predict.gbm``).

        Parameters
        ----------
        newdata : pandas.DataFrame or numpy.ndarray, optional
            The predictors (R: ``newdata``; a matrix for ``gbm_fit`` models on
            arrays). None predicts the training data (when kept). Offsets are
            not added, as in R, which warns so for a formula's offset() terms.
        n_trees : int or list of int, optional
            Trees used (R: ``n.trees``); a list gives one column per value,
            all computed in one pass. None uses :meth:`best_iteration` (R's
            rule: test, else cv, else all trees) and says so ("Using N
            trees...", R's message, a :class:`pygbm.GBMMessage`); above the
            trees fitted: a warning and the cap, as R.
        type : {"link", "response"}, default "link"
            The scale (R: ``type``): "response" gives probabilities for
            bernoulli, counts for poisson, ...
        single_tree : bool, default False
            R's ``single.tree``: each count's iteration alone, its tree's
            shrunken values without the initial value (the change that
            iteration makes to the link; ``type="response"`` maps it through
            the inverse link, as R does). Counts must be at least 1 (R
            crashes on 0).

        Returns
        -------
        numpy.ndarray or pandas.DataFrame
            (n,) for one ``n_trees``, (n, len(n_trees)) for a list.
            Multinomial: a DataFrame (n x K, columns the class labels, the
            index ``newdata``'s when it is a DataFrame) for one ``n_trees``,
            an array (n, K, len(n_trees)) for a list.

        Examples
        --------
        >>> p = fit.predict(boston.iloc[:5], n_trees=100)
        >>> p.shape
        (5,)
        >>> fit.predict(boston.iloc[:5], n_trees=[50, 100]).shape     # one column per count
        (5, 2)
        >>> step = fit.predict(boston.iloc[:5], n_trees=100, single_tree=True)
        >>> bool(np.allclose(step, p - fit.predict(boston.iloc[:5], n_trees=99)))
        True
        """
        import pandas as pd        # imported on first use: import pygbm stays fast

        choice_arg("type", type, _PREDICT_TYPES)
        if self.encoder is not None and self.encoder.offset_terms:
            warn(OFFSET_NOT_ADDED)                             # R's warning
        single = n_trees is None
        if n_trees is None:
            n_trees, rule = self.best_iteration(quiet=True)
            warn(f"Using {n_trees} trees... ({rule})", GBMMessage)   # R's message
        counts = self._check_n_trees(n_trees)
        single = single or np.ndim(n_trees) == 0      # n_trees checked: not a ragged list
        if bool_arg(single_tree, "single_tree") and np.any(counts < 1):
            raise ValueError(f"n_trees must be >= 1 with single_tree=True (the tree of "
                             f"iteration n_trees), got {n_trees!r}")
        x = self._design(newdata)
        f = self._single_trees(x, counts) if single_tree else self._link(x, counts)
        if type == "response":
            f = self.distribution.inverse_link(f)
        f = f[..., 0] if single else f
        if self.num_classes > 1 and single:
            labels = self.classes if self.classes is not None else range(self.num_classes)
            f = pd.DataFrame(f, index=frontend.row_labels(newdata),
                             columns=pd.Index(list(labels), name="class"))
        return f

    def predict_cost(self, newdata=None, n_trees=None):
        """Each row's prediction cost (cost-efficient boosting, docs/cegb.md).

        Parameters
        ----------
        newdata : pandas.DataFrame or numpy.ndarray, optional
            The predictors (a matrix for gbm_fit models); None: the training
            data (when kept).
        n_trees : int or list of int, optional
            Iterations counted; None: all. A list gives a dict of tables keyed
            by the counts asked for, computed in one pass over the trees (a
            count above the trees fitted: all of them, with ``predict``'s
            warning).

        Returns
        -------
        pandas.DataFrame or dict of pandas.DataFrame
            One row per row of ``newdata``: ``feature_cost`` (the cost of every
            distinct predictor on the row's paths), ``split_cost`` (the split
            cost times the splits evaluated), ``model_cost`` (the once-per-model
            costs of the predictors those trees use) and ``total``; for a list
            ``n_trees``, one such table per count.

        Examples
        --------
        >>> costly = pygbm.gbm("medv ~ .", data=boston, distribution="gaussian",
        ...                    n_trees=50, feature_costs={"lstat": 5.0, "rm": 2.0},
        ...                    random_state=1)
        >>> cost = costly.predict_cost(boston.iloc[:3])
        >>> cost.columns.tolist()
        ['feature_cost', 'split_cost', 'model_cost', 'total']
        """
        return predict_cost(self, newdata, n_trees)

    # ------------------------------------------------------------ inspection
    def relative_influence(self, n_trees=None, scale=False, sort=False, per_class=False):
        """Relative influence of each predictor (R's ``relative.influence``).

        Parameters
        ----------
        n_trees : int, optional
            Trees used (R: ``n.trees``); default None: R's choice (test, else
            cv, else all trees), which pygbm then states as R does.
        scale : bool, default False
            Divide by the largest influence (R: ``scale.``).
        sort : bool, default False
            Sort by decreasing influence (R: ``sort.``).
        per_class : bool, default False
            Multinomial: one column per class.

        Returns
        -------
        pandas.Series or pandas.DataFrame
            See :func:`pygbm.relative_influence`.
        """
        from .inspect import relative_influence

        return relative_influence(self, n_trees=n_trees, scale=scale, sort=sort,
                                  per_class=per_class)

    def summary(self, n_trees=None, method="relative_influence", plot_it=True, **kw):
        """R's ``summary.gbm``: the relative influence table (and R's bar chart).

        Parameters
        ----------
        n_trees : int, optional
            Trees used (default all).
        method : {"relative_influence", "permutation"}, default "relative_influence"
            How influence is measured.
        plot_it : bool, default True
            Draw R's bar chart (R: ``plotit``).
        **kw
            Other arguments of :func:`pygbm.summary` (``c_bars``, ``order``,
            ``normalize``, ``ax``, ``random_state``).

        Returns
        -------
        InfluenceSummary
            Prints as a table (HTML in a notebook); ``.to_frame()`` is R's data
            frame, ``.plot(ax=)`` the bar chart.
        """
        from .inspect import summary

        return summary(self, n_trees=n_trees, method=method, plot_it=plot_it, **kw)

    def plot(self, i_var=0, n_trees=None, **kw):
        """R's ``plot.gbm``: partial dependence of one to three predictors.

        Parameters
        ----------
        i_var : str, int or list of them, default 0
            Predictors by name or 0-based position (R: ``i.var``, 1-based).
        n_trees : int, optional
            Trees used (default all).
        **kw
            Other arguments of :func:`pygbm.plot_gbm` (``ax``, ``ice``,
            ``rug``, ``type``, ...).

        Returns
        -------
        matplotlib.axes.Axes or list of them
            The axes (1-2 predictors) or the panels' axes (3; a multinomial
            fit's classes for 2 or ICE curves), or the grid with
            ``return_grid=True``.
        """
        from .inspect import plot_gbm

        return plot_gbm(self, i_var, n_trees=n_trees, **kw)

    # ------------------------------------------------------------------ print
    def __repr__(self) -> str:
        """R's print.gbm (:class:`pygbm.fit_report.FitReport`)."""
        return fit_report(self).as_text()

    def __str__(self) -> str:
        return self.__repr__()

    def _repr_html_(self) -> str:
        """R's print of the fit as a small HTML table (a notebook's display):
        call, distribution, trees, the best iteration by each method the fit
        supports, the five most influential predictors."""
        return fit_report(self).as_html()

    def errors(self) -> pd.DataFrame:
        """The error curves per iteration as one table.

        Returns
        -------
        pandas.DataFrame
            One row per iteration: ``iteration`` (1-based), ``train_error``
            (R: ``train.error``), ``valid_error`` (``valid.error``; NaN
            without a validation set), ``oobag_improve`` (``oobag.improve``)
            and, when cv was run, ``cv_error`` (``cv.error``; NaN for the
            trees ``gbm_more`` added).

        Examples
        --------
        >>> fit.errors().columns.tolist()
        ['iteration', 'train_error', 'valid_error', 'oobag_improve', 'cv_error']
        """
        import pandas as pd        # imported on first use: import pygbm stays fast
        out = pd.DataFrame({"iteration": np.arange(1, self.n_trees + 1),
                            "train_error": self.train_error,
                            "valid_error": self.valid_error,
                            "oobag_improve": self.oobag_improve})
        if self.cv_error is not None:      # after gbm_more: the first fit's trees only
            cv = np.full(self.n_trees, np.nan)
            cv[:len(self.cv_error)] = self.cv_error
            out["cv_error"] = cv
        return out


def _whole_ints_as_floats(counts: np.ndarray) -> np.ndarray:
    """``counts`` as floats when NumPy kept them as objects only because some are
    Python ints beyond int64 (above any fit: capped with R's warning, as R caps
    1e20); any other object array (text, None) as given, for the caller to refuse."""
    if counts.dtype == object and all(isinstance(c, numbers.Integral) and not isinstance(c, bool)
                                      for c in counts.ravel()):
        return counts.astype(float)
    return counts
