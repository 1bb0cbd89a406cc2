"""Keeps numba's disk cache of pygbm's compiled kernels consistent with their sources.

numba caches each compiled function (``cache=True``) and checks only the
source file of that function before reusing it, while the cached machine
code also holds the compiled functions it calls from other modules and the
module-level constants it read (the split directions of
:mod:`pygbm.engine.split`, the histogram layouts, distribution codes) and the
layouts of the tuples it was given (a NamedTuple's fields are read by
position: :class:`pygbm.engine.forest.FlatForest`). After
a change to one of those files a cached caller in an unchanged file would
run the old code: wrong numbers, or a crash when a layout changed.

Each package of kernels is a :class:`KernelCache`: the package directory
(numba caches its kernels in one place per directory) and the sources its
machine code depends on. :meth:`KernelCache.drop_stale` stamps numba's cache
directory with a digest of those sources and deletes the cached kernels
whenever the digest differs, so that they are compiled again once.
:func:`drop_stale` runs every package's guard, once per process: the
compiled engine's ``available()`` calls it before any kernel is loaded (every
use of a kernel module asks ``available()`` first), and so does the import of
ordered boosting's kernels. This module does not import numba until a guard
runs.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from . import compile_notice

_PACKAGE = Path(__file__).resolve().parent
#: the file in a cache directory that records its sources' digest
STAMP_NAME = "pygbm-kernels.sha256"
#: numba's index and data files
CACHE_PATTERNS = ("*.nbi", "*.nbc")


@dataclass(frozen=True)
class KernelCache:
    """The cached kernels of the modules in ``directory`` (relative to the
    pygbm package) and the ``sources`` (globs relative to the package) their
    machine code depends on, their own modules included."""

    directory: str
    sources: tuple[str, ...]

    def source_files(self) -> list[Path]:
        """The files of :attr:`sources`, sorted within each glob."""
        files = []
        for pattern in self.sources:
            found = sorted(_PACKAGE.glob(pattern))
            if not found:
                raise FileNotFoundError(f"kernel cache guard: no source matches {pattern!r}")
            files += found
        return files

    def digest(self) -> str:
        """SHA-256 of the names and contents of :meth:`source_files`."""
        h = hashlib.sha256()
        for path in self.source_files():
            h.update(str(path.relative_to(_PACKAGE)).encode())
            h.update(path.read_bytes())
        return h.hexdigest()

    def cache_dir(self) -> Path | None:
        """Where numba caches the functions of :attr:`directory`'s modules
        (None: unknown). numba picks the place from a function's file (beside
        it if writable, else a user-wide cache); a stand-in function whose code
        claims the package's ``__init__.py`` gets the same place."""
        try:
            from numba.core.caching import FunctionCache

            init = _PACKAGE / self.directory / "__init__.py"
            namespace: dict = {}
            exec(compile("def locate():\n    pass\n", str(init), "exec"), namespace)
            return Path(FunctionCache(namespace["locate"]).cache_path)
        except Exception:       # numba's internals moved: no guard  # noqa: BLE001
            return None

    def drop_stale(self) -> None:
        """Delete the cached kernels if any source changed since they were cached."""
        directory = self.cache_dir()
        if directory is None:
            return
        digest = self.digest()
        stamp = directory / STAMP_NAME
        try:
            if stamp.read_text() == digest:
                return
        except OSError:
            pass
        try:
            directory.mkdir(parents=True, exist_ok=True)
            for pattern in CACHE_PATTERNS:
                for path in directory.glob(pattern):
                    path.unlink(missing_ok=True)
            stamp.write_text(digest)
        except OSError:         # a read-only install: numba caches elsewhere or not at all
            pass


#: every package of kernels: the engine's (exact and binned growers, the
#: boosting loop, prediction), ordered boosting's, QWYC's
KERNELS = (
    KernelCache("engine/compiled", (
        "engine/compiled/*.py", "engine/split.py", "engine/fixed_point.py", "engine/forest.py",
        "engine/histogram.py", "engine/histogram_search.py", "engine/kernels/reference.py",
        "engine/tolerance.py",
        "distributions/pairwise.py", "distributions/multinomial.py",
        "distributions/_newton.py", "distributions/poisson.py", "distributions/huberized.py",
        "distributions/adaboost.py", "distributions/_weighted.py")),
    KernelCache("ordered/compiled", (
        "ordered/compiled/*.py", "ordered/columns.py", "ordered/leaf_terms.py",
        "distributions/huberized.py", "distributions/poisson.py", "distributions/_newton.py",
        "engine/split.py",
        "engine/compiled/arith.py", "engine/compiled/histograms.py",
        "engine/compiled/tree_arrays.py")),
    KernelCache("early_exit", (
        "early_exit/compiled.py", "early_exit/outcome.py", "engine/split.py",
        "engine/forest.py")),
)


_checked: list = []


def drop_stale() -> None:
    """Run every package's guard (:meth:`KernelCache.drop_stale`), once per process,
    and have the first compilation of a kernel announced (:mod:`.compile_notice`)."""
    if not _checked:
        for kernels in KERNELS:
            kernels.drop_stale()
        compile_notice.watch()
        _checked.append(True)
