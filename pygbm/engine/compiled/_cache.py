"""Keeps numba's disk cache of the compiled kernels consistent with their source.

numba caches each compiled function (``cache=True``) and checks only the
source file of that function before reusing it, while the cached machine
code also contains every compiled function it calls from the other modules
of this package. After a change to one module (say ``arith.py``), a cached
caller in an unchanged module would run the old code: wrong numbers, or a
crash when data layouts changed. :func:`drop_stale` therefore stamps the
cache directory with a digest of every module here and deletes the cached
kernels whenever the digest differs, so that they are compiled again once.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

_HERE = Path(__file__).resolve().parent
#: the file in the cache directory that records the modules' digest
STAMP_NAME = "pygbm-kernels.sha256"
#: numba's index and data files
_CACHE_PATTERNS = ("*.nbi", "*.nbc")


def source_digest() -> str:
    """SHA-256 of the names and contents of this package's modules."""
    h = hashlib.sha256()
    for path in sorted(_HERE.glob("*.py")):
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
    """Delete the cached kernels if any module changed since they were cached."""
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
        for pattern in _CACHE_PATTERNS:
            for path in directory.glob(pattern):
                path.unlink(missing_ok=True)
        stamp.write_text(digest)
    except OSError:         # a read-only install: numba caches elsewhere or not at all
        pass
