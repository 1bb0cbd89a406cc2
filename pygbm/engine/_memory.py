"""Keep freed memory for reuse while the engine runs (glibc only).

The engine allocates NumPy temporaries of the size of a node many thousand
times. glibc hands blocks above its mmap threshold back to the kernel as soon
as they are freed, so each new temporary pays page faults again; on virtual
machines that costs several times the arithmetic itself (measured: 7x on
the split-gain kernel). While a fit or a prediction runs we raise glibc's
mmap and trim thresholds so that freed blocks stay in the heap, and restore
glibc's documented defaults afterwards. Elsewhere (macOS, Windows, musl)
this is a no-op.
"""
from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import sys
import threading

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
#: what is kept while the engine runs
_KEEP_BYTES = 1 << 30
#: glibc's documented initial values, restored afterwards
_GLIBC_DEFAULT = 128 * 1024

_libc = None
if sys.platform.startswith("linux"):
    try:
        _lib = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        _lib.mallopt  # noqa: B018  (glibc has it, musl does not)
        _libc = _lib
    except (OSError, AttributeError):
        _libc = None

_depth = 0
#: fits may run in threads (cv folds): one of them at a time changes the count
_lock = threading.Lock()


@contextlib.contextmanager
def reuse_freed_memory():
    """Context manager: keep freed heap memory for reuse (nested use is fine)."""
    global _depth
    if _libc is None:
        yield
        return
    with _lock:
        if _depth == 0:
            _libc.mallopt(_M_MMAP_THRESHOLD, _KEEP_BYTES)
            _libc.mallopt(_M_TRIM_THRESHOLD, _KEEP_BYTES)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                _libc.mallopt(_M_MMAP_THRESHOLD, _GLIBC_DEFAULT)
                _libc.mallopt(_M_TRIM_THRESHOLD, _GLIBC_DEFAULT)
