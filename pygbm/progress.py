"""Progress of long fits: a tqdm bar, the notebook widget in Jupyter.

``progress=`` of :func:`pygbm.gbm`, :func:`pygbm.gbm_fit` and
:func:`pygbm.gbm_more`:

* ``None`` (the default): a bar where someone watches, that is when standard
  error is a terminal or the code runs in a Jupyter kernel, and not in CI
  (the ``CI`` environment variable set) nor under a test runner capturing
  the output; it appears only once the fit has run :data:`DELAY_SECONDS`, so
  short fits show nothing;
* ``True``: a bar wherever the fit runs (after the same delay);
* ``False``: never.

``verbose=True`` prints R's iteration table instead (no bar). A cv fit
shows one bar over its folds and one over the final fit;
:func:`pygbm.qwyc_tradeoff` one over its curves' points. tqdm is imported
only when a bar is made.

The boosting loop (:func:`pygbm.engine.boost.run_boosting`) takes the bar
as a hook (``progress``: anything with ``update(n)``) and calls it once per
iteration; without one it calls nothing.
"""
from __future__ import annotations

import contextlib
import importlib
import os
import sys
import threading

from .messages import warn

#: seconds a fit runs before its bar appears (tqdm's ``delay``): fits shorter
#: than this show nothing
DELAY_SECONDS = 3.0


def check_progress(progress) -> bool | None:
    """``progress=``: None, True or False."""
    if progress is not None and not isinstance(progress, bool):
        raise ValueError(f"progress must be None, True or False, got {progress!r}")
    return progress


def _in_jupyter() -> bool:
    """Whether a Jupyter kernel runs this code (IPython is never imported here:
    a kernel has imported it already)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


def _watched() -> bool:
    """Whether someone watches the output: a terminal or a notebook, not CI."""
    if os.environ.get("CI"):
        return False
    return _in_jupyter() or (hasattr(sys.stderr, "isatty") and sys.stderr.isatty())


def wanted(progress: bool | None, verbose: bool) -> bool:
    """Whether a fit shows a bar (see the module's docstring)."""
    if verbose or progress is False:
        return False
    return True if progress else _watched()


def _tqdm_class():
    """tqdm's notebook widget in Jupyter (when ipywidgets is installed), else
    the text bar (tqdm.auto's choice, without its warning when ipywidgets is
    missing)."""
    if _in_jupyter():
        try:
            importlib.import_module("ipywidgets")       # the widget's own dependency
            notebook = importlib.import_module("tqdm.notebook")
        except ImportError:
            notebook = None
        # tqdm.notebook imported before ipywidgets was installed in this kernel
        # keeps no widget (IProgress None): its bars raise ImportError
        if notebook is not None and notebook.IProgress is not None:
            return notebook.tqdm
    from tqdm.std import tqdm
    return tqdm


#: tqdm's module of the text bar (the notebook widget is tqdm.notebook's)
TEXT_BAR_MODULE = "tqdm.std"
#: text bars open in a Jupyter kernel (a cv's folds and its final fit run at once)
_open_text_bars = []
_bars_lock = threading.Lock()


@contextlib.contextmanager
def progress_bar(show: bool, total: int, desc: str, unit: str = "it"):
    """A bar of ``total`` steps (None when ``show`` is false), closed on exit.

    In a notebook without ipywidgets a text bar is not opened while another is:
    tqdm places a second text bar a line below and returns with a cursor-up
    code, which notebooks do not honour, so every update of either became a
    new line (a cv's fold bar and its final fit's, which run at once). The
    first bar (the folds') is shown; a terminal stacks bars as it should."""
    if not show:
        yield None
        return
    try:
        cls = _tqdm_class()
    except ImportError as error:    # a broken install: a fit never fails for its bar
        warn(f"no progress bar: tqdm cannot be imported ({error})")
        yield None
        return
    stacked_text = _in_jupyter() and cls.__module__ == TEXT_BAR_MODULE   # not the widget
    with _bars_lock:
        if stacked_text and _open_text_bars:
            cls = None
        elif stacked_text:
            _open_text_bars.append(desc)
    if cls is None:
        yield None
        return
    bar = cls(total=total, desc=desc, unit=unit, delay=DELAY_SECONDS)
    try:
        yield bar
    finally:
        bar.close()
        if stacked_text:
            with _bars_lock:
                _open_text_bars.remove(desc)
