"""The engine's hot loops behind one interface, selectable by name.

``active()`` is the implementation the engine uses (``"numpy"``, the
reference, unless :func:`use` selected another); ``register`` adds one (a
compiled implementation, tested against the reference position by
position); ``get(name)`` returns one by name.
"""
from __future__ import annotations

import contextlib

from .interface import GainBlock, HistogramScratch, Kernels
from .reference import KERNELS as REFERENCE

__all__ = ["GainBlock", "HistogramScratch", "Kernels", "REFERENCE", "active", "get",
           "names", "register", "use"]

_IMPLEMENTATIONS: dict[str, Kernels] = {REFERENCE.name: REFERENCE}
_active = [REFERENCE]


def register(kernels: Kernels) -> None:
    """Make ``kernels`` selectable by its name."""
    _IMPLEMENTATIONS[kernels.name] = kernels


def names() -> list[str]:
    """Names of the registered implementations."""
    return sorted(_IMPLEMENTATIONS)


def get(name: str) -> Kernels:
    """The implementation called ``name`` (ValueError if none)."""
    if name not in _IMPLEMENTATIONS:
        raise ValueError(f"unknown kernel implementation {name!r}; "
                         f"available: {', '.join(names())}")
    return _IMPLEMENTATIONS[name]


def active() -> Kernels:
    """The implementation the engine's stages use now."""
    return _active[-1]


@contextlib.contextmanager
def use(name: str):
    """Context manager: the engine uses the implementation ``name`` inside."""
    _active.append(get(name))
    try:
        yield _active[-1]
    finally:
        _active.pop()
