"""Running one benchmark process: a fresh worker per fit, with a timeout, its memory
and the CPU time of its whole process tree.

The suites make themselves a *child subreaper* (Linux ``prctl``): a process that the
worker starts and leaves behind (R's PSOCK cluster workers, which R launches through
a shell in the background) is re-parented to the suite rather than to init, so the
suite can wait for it and count its CPU time; R's own ``system.time`` cannot.
"""
from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
#: environment of a single-threaded worker: single-threaded numerical libraries
THREAD_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
              "NUMBA_NUM_THREADS": "1"}
#: Python workers import pygbm from compiled bytecode, as from an installed package
#: (pip compiles it at install): a machine's PYTHONDONTWRITEBYTECODE is lifted for the
#: workers, whose bytecode is kept here (outside the repository; keyed by source path)
PYCACHE = os.path.join(tempfile.gettempdir(), "pygbm-benchmarks-pycache")
#: polling interval while adopted processes end (s)
POLL_S = 0.05
#: seconds the processes a worker left behind get to end before they are killed
ORPHAN_GRACE_S = 30.0
#: Linux prctl option that makes the caller a subreaper for its descendants
PR_SET_CHILD_SUBREAPER = 36


@dataclass
class Finished:
    """A finished worker: exit code (None after a timeout), maximum RSS of the worker
    (MB), its stderr, wall seconds of the process and CPU seconds of its whole tree."""

    code: int | None
    maxrss_mb: float
    err: str
    wall_s: float
    tree_cpu_s: float


def become_subreaper() -> bool:
    """Adopt the orphaned descendants of the workers (see the module doc)."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _cpu(usage) -> float:
    return usage.ru_utime + usage.ru_stime


def _reap_orphans(pgid: int) -> float:
    """Wait for the adopted descendants of a finished worker (killed after
    ORPHAN_GRACE_S); the sum of their CPU seconds. Without adopted processes: 0."""
    cpu, deadline = 0.0, time.monotonic() + ORPHAN_GRACE_S
    while True:
        try:
            pid, _, usage = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:
            return cpu
        if pid:
            cpu += _cpu(usage)
            continue
        if time.monotonic() > deadline:
            try:
                os.killpg(pgid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(POLL_S)


def run_worker(cmd, timeout, env=THREAD_ENV) -> Finished:
    """Run a worker in its own session with the variables ``env`` added to the
    environment (default: single-threaded libraries); killed after ``timeout`` s."""
    env = dict({k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
               **env, PYTHONPYCACHEPREFIX=PYCACHE,
               PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    killed = threading.Event()

    def kill(pgid):
        killed.set()
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:              # ended meanwhile
            pass

    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, start_new_session=True,
                                stdout=subprocess.DEVNULL, stderr=err)
        timer = threading.Timer(timeout, kill, (proc.pid,))
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode(errors="replace")
    code = None if killed.is_set() else proc.returncode
    return Finished(code, usage.ru_maxrss / 1024, text, wall,
                    _cpu(usage) + _reap_orphans(proc.pid))


def cmd_out(cmd) -> str:
    """Standard output of a short command run in the repository ('' if it fails)."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                              cwd=REPO).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""
