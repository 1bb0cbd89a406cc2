"""Distributions (loss functions) of R's gbm, and their registry.

``get_distribution(spec)`` accepts a name (``"gaussian"``), R's list form as
a dict (``{"name": "quantile", "alpha": 0.25}``) or a ``Distribution``
instance.  ``guess_distribution`` is R's ``guessDist`` rule.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .adaboost import AdaBoost
from .base import Distribution
from .bernoulli import Bernoulli
from .coxph import CoxPH
from .gaussian import Gaussian
from .huberized import Huberized
from .inputs import FitContext, Leaves, Targets
from .laplace import Laplace
from .multinomial import Multinomial
from .pairwise import Pairwise
from .poisson import Poisson
from .quantile import Quantile
from .tdist import TDist

_REGISTRY: dict[str, type[Distribution]] = {
    cls.name: cls
    for cls in (AdaBoost, Bernoulli, CoxPH, Gaussian, Huberized, Laplace,
                Multinomial, Pairwise, Poisson, Quantile, TDist)
}


#: the package's own class of each name, as shipped (the compiled engine implements these)
_BUILTIN: dict[str, type[Distribution]] = dict(_REGISTRY)


def is_builtin(distribution: Distribution) -> bool:
    """Whether ``distribution`` is an instance of the package's own class of its
    name. The compiled engine implements those classes' methods; a subclass or a
    registered class of the same name may change them, so its fits run on the
    NumPy engine, which calls its methods."""
    return type(distribution) is _BUILTIN.get(distribution.name)


def available_distributions() -> list[str]:
    """The distribution names :func:`gbm` and :func:`get_distribution` accept.

    Returns
    -------
    list of str
        R's spellings, sorted; "multinomial" is Friedman's K-class
        algorithm (R's is broken), and pygbm adds none of its own names.

    Examples
    --------
    >>> pygbm.available_distributions()            # doctest: +NORMALIZE_WHITESPACE
    ['adaboost', 'bernoulli', 'coxph', 'gaussian', 'huberized', 'laplace',
     'multinomial', 'pairwise', 'poisson', 'quantile', 'tdist']
    """
    return sorted(_REGISTRY)


def distributions_with(flag: str) -> list[str]:
    """The registered distributions whose class sets the capability ``flag`` (a
    class attribute of :class:`Distribution`, such as ``"zero_one_response"``)."""
    return sorted(name for name, cls in _REGISTRY.items() if getattr(cls, flag))


def register_distribution(cls: type[Distribution]) -> type[Distribution]:
    """Add a Distribution subclass to the registry (usable as a decorator)."""
    if not (isinstance(cls, type) and issubclass(cls, Distribution)) or not cls.name:
        raise TypeError("register_distribution needs a Distribution subclass with a name")
    _REGISTRY[cls.name] = cls
    return cls


def _unknown(name) -> ValueError:
    return ValueError(
        f"unknown distribution {name!r}; available: {', '.join(available_distributions())}"
    )


def get_distribution(spec) -> Distribution:
    """A Distribution instance from a name, an R-style dict or an instance.

    Parameters
    ----------
    spec : str, dict or Distribution
        The loss (R: ``distribution``): a name (see
        :func:`available_distributions`), R's list form as a dict with a
        ``"name"`` entry and the distribution's parameters (``alpha`` for
        quantile, ``df`` for tdist, ``group``/``metric``/``max_rank`` for
        pairwise; ``splits``, "gradient" or "newton", for bernoulli, poisson
        and multinomial, not R's), or an instance, returned as it is.

    Returns
    -------
    Distribution
        The distribution with its parameters.

    Notes
    -----
    R's ``gbm`` takes the name or the list; pygbm also takes an instance.
    An unknown name or a dict without ``"name"`` raises an error.

    Examples
    --------
    >>> pygbm.get_distribution("bernoulli")
    Bernoulli()
    >>> pygbm.get_distribution({"name": "quantile", "alpha": 0.9})
    Quantile(alpha=0.9)
    >>> pygbm.get_distribution({"name": "tdist", "df": 4})
    TDist(df=4.0)
    """
    if isinstance(spec, Distribution):
        return spec
    if isinstance(spec, str):
        name, params = spec, {}
    elif isinstance(spec, Mapping):
        if "name" not in spec:
            raise ValueError(
                "distribution given as a dict needs a 'name' entry, e.g. "
                "{'name': 'quantile', 'alpha': 0.5}"
            )
        name = spec["name"]
        params = {k: v for k, v in spec.items() if k != "name"}
        if not isinstance(name, str):
            raise TypeError(f"distribution name must be a string; got {name!r}")
    else:
        raise TypeError(
            "distribution must be a name (str), a dict like {'name': 'quantile', "
            "'alpha': 0.5} or a Distribution instance; got " + type(spec).__name__
        )
    cls = _REGISTRY.get(name)
    if cls is None:
        raise _unknown(name)
    return cls(**params)


def guess_distribution(y, is_surv=False, is_categorical=False, n_levels=None) -> str:
    """R's ``guessDist``: the distribution name gbm assumes when none is given.

    A survival response gives "coxph"; otherwise a response with exactly 2
    distinct observed values (missing values count as one value, like R's
    ``unique``) gives "bernoulli"; another categorical response gives
    "multinomial"; anything else "gaussian".  ``n_levels`` (the number of levels of a
    categorical response) is checked for consistency only: R counts the
    observed values.
    """
    if is_surv:
        return "coxph"
    if n_levels is not None:
        if isinstance(n_levels, bool) or int(n_levels) != n_levels or n_levels < 1:
            raise ValueError(f"n_levels must be a positive integer; got {n_levels!r}")
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"guess_distribution needs a one-dimensional response y; got shape {arr.shape}")
    if arr.dtype.kind == "f":
        n_distinct = np.unique(arr[~np.isnan(arr)]).size + int(np.isnan(arr).any())
    else:
        n_distinct = len(set(arr.tolist()))
    if n_distinct == 2:
        return "bernoulli"
    if is_categorical:
        return "multinomial"
    return "gaussian"


__all__ = [
    "AdaBoost", "Bernoulli", "CoxPH", "Distribution", "FitContext", "Gaussian", "Huberized",
    "Leaves", "Targets",
    "Laplace", "Multinomial", "Pairwise", "Poisson", "Quantile", "TDist", "available_distributions",
    "distributions_with", "get_distribution", "guess_distribution", "register_distribution",
]
