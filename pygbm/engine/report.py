"""What the boosting loop tells the user while it runs: R's iteration table
(``verbose=True``) and the progress hook (``progress=``, a :mod:`pygbm.progress`
bar); shared by the NumPy loop (:mod:`.boost`) and the compiled one
(:mod:`.compiled.boosting`), so that both print the same lines."""
from __future__ import annotations

import contextlib
import threading
from contextvars import ContextVar

#: R's gbm prints every iteration up to this one, then every PRINT_EVERY-th
PRINT_FIRST = 10
PRINT_EVERY = 20

#: the stop request of the fits run in this context (a threading.Event; None:
#: none can be made), read after every iteration (a compiled chunk)
STOP_REQUEST: ContextVar[threading.Event | None] = ContextVar("pygbm_stop_request",
                                                                default=None)


class FitStopped(Exception):
    """A fit stopped on request: it ran beside others (a cv's folds and final fit)
    one of which failed or was interrupted, and its result is not wanted."""


@contextlib.contextmanager
def stopped_together():
    """The fits started inside (in worker threads given a copy of this context)
    stop after their current iteration, or compiled chunk, when this thread
    leaves with an error: a fold's, or the user's interrupt (Ctrl-C, a
    notebook's "Interrupt kernel"), so that the pool's exit waits for that
    only, not for every fit to its end. Enter it inside the pool's ``with``."""
    stop = threading.Event()
    token = STOP_REQUEST.set(stop)
    try:
        yield stop
    except BaseException:
        stop.set()
        raise
    finally:
        STOP_REQUEST.reset(token)


class IterationReport:
    """R's iteration table and the progress hook of one ``run_boosting`` call
    of ``n_trees`` iterations (``verbose``: print the table; ``progress``: a
    hook told of every finished iteration with ``update(k)``, or None)."""

    def __init__(self, verbose: bool, progress, shrinkage: float, n_trees: int):
        self.verbose, self.progress = bool(verbose), progress
        self.shrinkage, self.n_trees = float(shrinkage), int(n_trees)

    def header(self) -> None:
        if self.verbose:
            print("Iter   TrainDeviance   ValidDeviance   StepSize   Improve")

    def iteration(self, it: int, n_done: int, train_err: float, valid_err: float,
                  oob: float) -> None:
        """Iteration ``it`` of this call (0-based) finished; ``n_done`` trees
        per output in the model now."""
        if self.verbose and (it < PRINT_FIRST or n_done % PRINT_EVERY == 0
                             or it == self.n_trees - 1):
            print(f"{n_done:6d} {train_err:13.4f} {valid_err:15.4f} {self.shrinkage:10.4f} "
                  f"{oob:9.4f}")

    def iterations(self, first: int, n_before: int, train_err, valid_err, oob) -> None:
        """Iterations ``first``, ``first + 1``, ... of this call finished (one per
        entry of the error arrays); ``n_before`` trees per output in the model
        before the first of them."""
        if self.verbose:
            for k in range(len(train_err)):
                self.iteration(first + k, n_before + k + 1, train_err[k], valid_err[k], oob[k])

    def advance(self, k: int) -> None:
        """``k`` more iterations finished (the progress bar moves); a fit asked
        to stop (:func:`stopped_together`) stops here."""
        if self.progress is not None:
            self.progress.update(k)
        stop = STOP_REQUEST.get()
        if stop is not None and stop.is_set():
            raise FitStopped("the fit was asked to stop: a fit run beside it failed or "
                             "was interrupted")
