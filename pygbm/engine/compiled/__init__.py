"""The compiled engine (numba): the tree stage of R's exact mode in compiled loops.

The NumPy engine is the reference (``engine="numpy"``); this one grows a
whole tree in one compiled call (:mod:`.exact_tree`), finishes it on node
arrays (:mod:`.tree_arrays`) and steps the validation rows through it, with
R's arithmetic throughout, so that both engines give the same fit bit for
bit. Its modules import numba; :func:`available` says whether they can be
used, without importing them until a fit asks for them. Compiled functions
are cached on disk (numba's ``cache=True``), so only the first process
compiles them; the cache is dropped when any source they depend on changed
(:mod:`pygbm.kernel_cache`: numba itself checks only each function's own file).
"""
from __future__ import annotations

import importlib
import importlib.util

from ... import kernel_cache

#: what the fit says once when numba is missing and the engine was not named
NUMBA_MISSING_NOTE = ("numba is not installed: pygbm uses its NumPy engine (the same "
                      "results, slower on small data). pip install numba for the "
                      "compiled engine.")

_state: dict = {}


def available() -> bool:
    """Whether numba can be imported (the compiled engine can run); the first
    call imports it."""
    if "ok" not in _state:
        if importlib.util.find_spec("numba") is None:
            _state["ok"] = False
        else:
            try:
                importlib.import_module("numba")
                _state["ok"] = True
            except Exception:        # a broken install counts as missing  # noqa: BLE001
                _state["ok"] = False
        if _state["ok"]:
            # before any kernel is loaded from numba's cache
            kernel_cache.drop_stale()
    return _state["ok"]
