"""How pygbm speaks to its caller: warnings and R's messages.

Every warning pygbm gives points at the caller's line (the first frame
outside the pygbm package, wherever inside pygbm it was raised) and is given
once per call.

R tells two kinds of remark apart: ``warning()`` (something may be wrong)
and ``message()`` or ``cat()`` (information: "Using 100 trees...",
"Distribution not specified, assuming gaussian ...", the OOB rule's caveat).
pygbm shows both through Python's :mod:`warnings` machinery, so that they
appear in a notebook under the cell that caused them and can be filtered; R's
messages have their own category, :class:`GBMMessage` (a ``UserWarning``),
so they can be silenced alone::

    import warnings
    warnings.filterwarnings("ignore", category=pygbm.GBMMessage)
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import sys
import warnings

import numpy as np

__all__ = ["GBMMessage", "in_worker", "labelled", "listed", "quiet", "recorded", "replay",
           "warn"]

#: values a message lists before it stops with "..."
LISTED_VALUES = 5

#: the package's directory: frames whose code lives here are pygbm's own
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
#: what the warnings of the fit running in this thread start with ("cv fold 2 (...)";
#: empty: none, the fit the caller asked for)
_LABEL = contextvars.ContextVar("pygbm_warning_label", default="")
#: where the warnings of a worker thread point (file name, line number and module
#: globals of the line outside pygbm that started the work, see in_worker); None: the
#: first frame of this thread's own stack outside pygbm
_ORIGIN = contextvars.ContextVar("pygbm_warning_origin", default=None)
#: whether the warnings of this thread are dropped (see quiet)
_QUIET = contextvars.ContextVar("pygbm_warnings_quiet", default=False)


class GBMMessage(UserWarning):
    """What R gbm prints as a message, not as a warning.

    R's ``message("Using", n.trees, "trees...")`` in ``predict.gbm``, the
    caveat of ``gbm.perf``'s OOB rule and ``gbm``'s "Distribution not
    specified, assuming ..." are information, not a sign of trouble. pygbm
    shows them as warnings of this category (a ``UserWarning`` subclass), so
    that they appear in a notebook and can be silenced alone with
    ``warnings.filterwarnings("ignore", category=pygbm.GBMMessage)``.
    """


def _outside(frame):
    """The first frame from ``frame`` outwards whose code is not pygbm's (None: none)."""
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
    return frame


def _caller_stacklevel() -> int:
    """The ``stacklevel`` of the first frame outside pygbm, as seen from
    :func:`warn`'s call of :func:`warnings.warn`."""
    level = 2                                   # 1: warn() itself, 2: its caller
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    return level


def in_worker(fn):
    """``fn`` to be run in a worker thread (``pool.submit(in_worker(fn), ...)``): in a
    copy of this thread's context (its warnings' label), its warnings pointing at the
    line outside pygbm that this thread is running, not at the thread pool's code
    where a worker's own stack ends."""
    context = contextvars.copy_context()
    if context.get(_ORIGIN) is None:
        frame = _outside(sys._getframe(1))
        if frame is not None:
            context.run(_ORIGIN.set, (frame.f_code.co_filename, frame.f_lineno, frame.f_globals))
    return functools.partial(context.run, fn)


def recorded(fn):
    """``fn`` to be run in another process: there it returns ``(result, warnings)``,
    the warnings it gave recorded (message and category) rather than printed to
    that process's stderr, out of the caller's sight and filters; :func:`replay`
    gives them in the caller's process."""
    return functools.partial(_run_recorded, fn)


def _run_recorded(fn, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(*args, **kwargs)
    return result, [(str(w.message), w.category) for w in caught]


def replay(given) -> None:
    """Give again, here, the warnings :func:`recorded` brought back from another
    process (at the caller's line, under the caller's filters)."""
    for message, category in given:
        warn(message, category)


@contextlib.contextmanager
def quiet():
    """:func:`warn` gives nothing inside (in this thread): work done again whose
    warnings the caller has had once (gbm_more(data=) codes the fit's rows again)."""
    token = _QUIET.set(True)
    try:
        yield
    finally:
        _QUIET.reset(token)


@contextlib.contextmanager
def labelled(label: str):
    """Warnings given inside (in this thread) start with ``label``: a cv fold's fit
    warns of its own rows, which the caller's fit does not have."""
    token = _LABEL.set(label)
    try:
        yield
    finally:
        _LABEL.reset(token)


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """Warn ``message``, attributed to the caller's line outside pygbm (and
    labelled as :func:`labelled` says); nothing inside :func:`quiet`."""
    if _QUIET.get():
        return
    label = _LABEL.get()
    text = f"{label}: {message}" if label else message
    origin = _ORIGIN.get()
    if origin is None:
        warnings.warn(text, category, stacklevel=_caller_stacklevel())
        return
    filename, lineno, module_globals = origin
    module = module_globals.get("__name__", "<unknown>")
    registry = module_globals.setdefault("__warningregistry__", {})
    try:
        warnings.warn_explicit(text, category, filename, lineno, module=module,
                               registry=registry, module_globals=module_globals)
    except ImportError:
        # Python's (C) warn_explicit asks the module's loader for the source line and
        # lets the loader's ImportError through: the code of `python -c` and of a
        # script read from stdin is __main__ loaded by BuiltinImporter, which has no
        # source to give (warnings.warn shows none there either); raised before the
        # filters and the registry are read, so the warning is given once, without it
        warnings.warn_explicit(text, category, filename, lineno, module=module,
                               registry=registry)


def listed(values, limit: int = LISTED_VALUES) -> str:
    """The first ``limit`` of ``values`` as a list's text, ending in "..." when there
    are more: ``['a', 'b', 'c', 'd', 'e', ...]`` (NumPy's values as Python's, so that
    ``1.5`` does not read ``np.float64(1.5)``)."""
    items = np.asarray(values).ravel().tolist()
    text = ", ".join(map(repr, items[:limit]))
    return f"[{text}{', ...' if len(items) > limit else ''}]"
