"""The one line logged when numba compiles pygbm's kernels (a cold cache)."""
import logging
import os
import subprocess
import sys
import textwrap

import pytest

from pygbm import compile_notice
from pygbm.compile_notice import NOTICE, Notice

numba = pytest.importorskip("numba")


def test_the_first_compilation_of_a_pygbm_kernel_is_announced_once(caplog):
    notice = Notice()
    with caplog.at_level(logging.WARNING, logger="pygbm"):
        notice.compiling("numba.np.arrayobj")          # numba's own: not pygbm's
        assert caplog.records == []
        notice.compiling("pygbm.engine.compiled.loop")
        notice.compiling("pygbm.ordered.compiled.grow")
    assert [r.getMessage() for r in caplog.records] == [NOTICE]
    assert caplog.records[0].name == "pygbm"


def test_numbas_compile_events_reach_the_notice(monkeypatch):
    """A kernel compiled in a module named as pygbm's is announced; calling
    it again (numba's in-memory overload) is not a compilation."""
    from numba.core import event

    monkeypatch.setattr(compile_notice, "_state", {})
    compile_notice.watch()
    told = []
    notice = compile_notice._state["notice"]
    monkeypatch.setattr(notice, "compiling", told.append)
    try:
        namespace = {"__name__": "pygbm.test_kernel"}
        exec("def kernel(x):\n    return x + 1\n", namespace)
        kernel = numba.njit(namespace["kernel"])
        assert kernel(1) == 2
        assert kernel(2) == 3
    finally:
        event.unregister("numba:compile", compile_notice._state["listener"])
    assert told == ["pygbm.test_kernel"]


def test_a_process_with_cached_kernels_says_nothing_and_a_cold_one_says_it(tmp_path):
    """End to end in fresh processes: numba's cache in an empty directory
    (``NUMBA_CACHE_DIR``) compiles and logs the line on standard error; the
    next process loads the kernel and is silent. A small kernel (a fit would
    compile the boosting loop, a minute)."""
    script = textwrap.dedent("""
        from pygbm.engine.compiled import available, tree_arrays
        assert available()
        print(int(tree_arrays.new_nodes(4, 1)[3].shape[0]))
    """)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           env=env, timeout=600) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr + runs[1].stderr
    assert NOTICE in runs[0].stderr
    assert NOTICE not in runs[1].stderr
