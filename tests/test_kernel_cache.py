"""numba's disk cache of the kernels is dropped when a source they depend on changes."""
import re
from pathlib import Path

import pytest

import pygbm
from pygbm import kernel_cache
from pygbm.kernel_cache import KERNELS, STAMP_NAME, KernelCache

pytest.importorskip("numba")

PACKAGE = Path(pygbm.__file__).resolve().parent
CACHED_KERNEL = re.compile(r"@(?:numba\.)?njit\([^)]*cache=True")


def _guard_in(tmp_path, monkeypatch):
    monkeypatch.setattr(KernelCache, "cache_dir", lambda self: tmp_path)
    cached = [tmp_path / "grower.grow-1.py311.nbi", tmp_path / "grower.grow-1.py311.1.nbc"]
    for path in cached:
        path.write_bytes(b"old")
    return cached


@pytest.mark.parametrize("kernels", KERNELS, ids=[k.directory for k in KERNELS])
def test_a_changed_source_drops_the_cached_kernels(tmp_path, monkeypatch, kernels):
    cached = _guard_in(tmp_path, monkeypatch)
    (tmp_path / STAMP_NAME).write_text(kernels.digest())
    kernels.drop_stale()
    assert all(path.exists() for path in cached)          # up to date: kept
    (tmp_path / STAMP_NAME).write_text("an older source")
    kernels.drop_stale()
    assert not any(path.exists() for path in cached)
    assert (tmp_path / STAMP_NAME).read_text() == kernels.digest()


def test_every_module_with_cached_kernels_is_guarded():
    """Each file with ``cache=True`` kernels is a source of its directory's
    guard (the constants they compile in from other files are listed by hand
    in :data:`pygbm.kernel_cache.KERNELS`)."""
    guarded = {k.directory: {p.resolve() for p in k.source_files()} for k in KERNELS}
    for path in PACKAGE.rglob("*.py"):
        if not CACHED_KERNEL.search(path.read_text()):
            continue
        directory = str(path.parent.relative_to(PACKAGE))
        assert directory in guarded, f"{path} has cached kernels but no guard"
        assert path.resolve() in guarded[directory], f"{path} is not among its guard's sources"


def test_the_guard_finds_numbas_cache_directory():
    from pygbm.engine.compiled import arith

    for kernels in KERNELS:
        assert kernels.cache_dir() is not None
    engine = next(k for k in KERNELS if k.directory == "engine/compiled")
    from numba.core.caching import FunctionCache
    assert engine.cache_dir() == Path(FunctionCache(arith.numpy_sum.py_func).cache_path)


def test_guards_run_once_per_process(monkeypatch):
    calls = []
    monkeypatch.setattr(KernelCache, "drop_stale", lambda self: calls.append(self.directory))
    monkeypatch.setattr(kernel_cache, "_checked", [])
    kernel_cache.drop_stale()
    kernel_cache.drop_stale()
    assert sorted(calls) == sorted(k.directory for k in KERNELS)
