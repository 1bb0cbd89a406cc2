"""Keeps numba's disk cache of ordered boosting's kernels consistent with
their sources (as :mod:`pygbm.engine.compiled._cache` does for the
engine's): numba checks only the file of each cached function, while its
machine code holds the kernels it calls from this package's other modules
and the module-level constants it read (the layout in :mod:`..columns`,
the distribution codes of :mod:`..leaf_terms`, huberized's and poisson's
constants, the engine's LEFT / RIGHT / MISSING). When any of those files
changed since the kernels were cached, the cached kernels are deleted and
compiled again once.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from ...engine.compiled._cache import STAMP_NAME

_HERE = Path(__file__).resolve().parent
_PACKAGE = _HERE.parents[1]
#: the other sources the kernels' machine code depends on
DEPENDENCIES = ("ordered/columns.py", "ordered/leaf_terms.py", "distributions/huberized.py",
                "distributions/poisson.py", "engine/split.py")
#: numba's index and data files
CACHE_PATTERNS = ("*.nbi", "*.nbc")


def sources() -> list[Path]:
    """This package's modules and the files whose constants they compile in."""
    return sorted(_HERE.glob("*.py")) + [_PACKAGE / name for name in DEPENDENCIES]


def source_digest() -> str:
    """SHA-256 of the names and contents of :func:`sources`."""
    h = hashlib.sha256()
    for path in sources():
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def cache_dir() -> Path | None:
    """Where numba caches the functions of this package (None: unknown)."""
    try:
        from numba.core.caching import FunctionCache

        return Path(FunctionCache(source_digest).cache_path)
    except Exception:       # numba's internals moved: no guard  # noqa: BLE001
        return None


def drop_stale() -> None:
    """Delete the cached kernels if any source changed since they were cached."""
    directory = cache_dir()
    if directory is None:
        return
    digest = source_digest()
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
