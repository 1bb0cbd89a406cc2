"""The working response as integers: exact, fast prefix sums for the searches.

With unit weights the exact search (and the binned mode's packed histogram)
round w*z once per tree to integer multiples of a power of two
(:func:`quantize`). Sums of such integers are exact in any order, so prefix
sums are cheap, the node total is the same number along every predictor, and
a histogram's largest child is its parent's minus its siblings', exactly.
These sums only rank candidates: the best ones are re-evaluated with R's own
arithmetic (:mod:`.tolerance`).
"""
from __future__ import annotations

import numpy as np

#: the integer working response w*z is scaled so that the sum of its absolute
#: values stays below 2**SUM_BITS: every prefix sum is then an integer that a
#: double represents exactly and that :func:`as_float` converts exactly
#: (|sum| < 2**51 needed; SUM_BITS leaves room for the rounding of each row)
SUM_BITS = 50
#: largest power of two used as the scale (tiny responses)
MAX_SCALE_BITS = 400
#: 2**52 + 2**51: doubles from 2**52 to 2**53 are the integers, one apart, so
#: MAGIC + k (|k| < 2**51) is exact and its bits are MAGIC's bits plus k
MAGIC = 2.0 ** 52 + 2.0 ** 51
MAGIC_BITS = np.array(MAGIC).view(np.int64)


def as_float(ints: np.ndarray) -> np.ndarray:
    """int64 values below 2**51 in magnitude as float64, exactly, in place
    (the returned array shares ``ints``' memory). Two fast whole-array passes
    instead of NumPy's int-to-float cast, which costs several times more."""
    np.add(ints, MAGIC_BITS, out=ints)
    out = ints.view(np.float64)
    np.subtract(out, MAGIC, out=out)
    return out


def quantize(wz: np.ndarray, bits: int = SUM_BITS) -> tuple[np.ndarray, float]:
    """w*z as int64 multiples of ``1 / scale`` (``scale`` a power of two, the
    largest with sum(|w*z|) * scale <= 2**bits).

    Integer prefix sums are exact, several times faster than floating ones,
    exactly representable as doubles, and differences of them are exact too;
    every sum of ``k`` rows is within ``k / (2 * scale)`` of the true sum.
    Gains computed from them only rank
    the candidates: the best ones are re-evaluated with R's arithmetic.
    """
    total = float(np.abs(wz).sum())
    if not total > 0.0 or not np.isfinite(total):
        return np.zeros(wz.shape, dtype=np.int64), 1.0
    # (capped so that gains, scaled by scale**2, stay far from overflow)
    scale = 2.0 ** min(np.floor(bits - np.log2(total)), MAX_SCALE_BITS)
    return np.rint(wz * scale).astype(np.int64), float(scale)
