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
import os
import sys
import warnings

__all__ = ["GBMMessage", "labelled", "warn"]

#: the package's directory: frames whose code lives here are pygbm's own
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
#: what the warnings of the fit running in this thread start with ("cv fold 2 (...)";
#: empty: none, the fit the caller asked for)
_LABEL = contextvars.ContextVar("pygbm_warning_label", default="")


class GBMMessage(UserWarning):
    """What R gbm prints as a message, not as a warning.

    R's ``message("Using", n.trees, "trees...")`` in ``predict.gbm``, the
    caveat of ``gbm.perf``'s OOB rule and ``gbm``'s "Distribution not
    specified, assuming ..." are information, not a sign of trouble. pygbm
    shows them as warnings of this category (a ``UserWarning`` subclass), so
    that they appear in a notebook and can be silenced alone with
    ``warnings.filterwarnings("ignore", category=pygbm.GBMMessage)``.
    """


def _caller_stacklevel() -> int:
    """The ``stacklevel`` of the first frame outside pygbm, as seen from
    :func:`warn`'s call of :func:`warnings.warn`."""
    level = 2                                   # 1: warn() itself, 2: its caller
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    return level


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
    labelled as :func:`labelled` says)."""
    label = _LABEL.get()
    warnings.warn(f"{label}: {message}" if label else message, category,
                  stacklevel=_caller_stacklevel())
