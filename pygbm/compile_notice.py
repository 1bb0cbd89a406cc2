"""One line when numba compiles pygbm's kernels: the first fit on a machine waits a minute.

numba compiles a kernel the first time it runs with new argument types and
caches the machine code on disk (:mod:`pygbm.kernel_cache`), so only the
first process on a machine (or after an upgrade of pygbm) compiles: about a
minute for the boosting loop, less for each later family of kernels (ordered
boosting, early exit). Without a word, that first fit looks hung.

:func:`watch` asks numba to report its compilations (numba's event API) and,
at the first compilation of one of pygbm's kernels in the process, logs one
line on the ``pygbm`` logger at WARNING level, as matplotlib announces the
building of its font cache: with no logging set up, Python prints it on
standard error. Loading kernels from the cache is not a compilation: a
process that finds them compiled says nothing. Silence it with
``logging.getLogger("pygbm").setLevel(logging.ERROR)``.
"""
from __future__ import annotations

import logging

#: the logger of the line (pygbm's only use of logging; everything about a
#: call is a warning, :mod:`pygbm.messages`)
LOGGER = logging.getLogger("pygbm")
#: what it says
NOTICE = ("pygbm is compiling its kernels for this machine: the first fit can take "
          "a minute. They are cached on disk, so later fits and sessions load them "
          "at once.")
#: the kernels' modules are pygbm's own
_PREFIX = "pygbm."


class Notice:
    """Logs :data:`NOTICE` once: at the first compilation of a pygbm kernel
    (:meth:`compiling`, with the module of the function numba compiles).
    numba reports a compilation while holding its global compiler lock, so
    two threads never get here at once."""

    def __init__(self):
        self.told = False

    def compiling(self, module: str) -> None:
        if self.told or not module.startswith(_PREFIX):
            return
        self.told = True
        LOGGER.warning(NOTICE)


_state: dict = {}


def watch() -> None:
    """Have numba report the start of its compilations to the process's
    :class:`Notice`, once per process (nothing when numba has no event API)."""
    if "notice" in _state:
        return
    notice = _state["notice"] = Notice()
    try:
        from numba.core import event
    except ImportError:                 # a numba without it: no notice
        return

    class Listener(event.Listener):
        """numba's listener of ``numba:compile`` events for ``notice``."""

        def on_start(self, ev):
            notice.compiling(_module_of(ev.data.get("dispatcher")))

        def on_end(self, ev):
            pass

    _state["listener"] = Listener()
    event.register("numba:compile", _state["listener"])


def _module_of(dispatcher) -> str:
    """The module of the Python function a numba dispatcher compiles ('' if
    the event carries none)."""
    py_func = getattr(dispatcher, "py_func", None)
    return getattr(py_func, "__module__", None) or ""
