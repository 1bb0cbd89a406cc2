"""The standard normal quantile by Wichura's algorithm AS 241 (PPND16).

M. J. Wichura (1988), "Algorithm AS 241: The percentage points of the normal
distribution", Applied Statistics 37, 477-484: a rational function of degree 7
in three regions (|p - 1/2| <= 0.425; r = sqrt(-log(min(p, 1-p))) <= 5; beyond),
accurate to about 1e-16. R's ``qnorm`` (the function its ``rnorm`` inverts under
``normal.kind = "Inversion"``) evaluates these same rational functions by
Horner's rule, numerator times q divided by the denominator, which this module
does in the same order so that the doubles are R's. Logarithms go through
Python's ``math.log`` (the C library's, as R's) rather than NumPy's own
vectorised one, whose last bit may differ.
"""
from __future__ import annotations

import math

import numpy as np

CENTRAL_HALF_WIDTH = 0.425          # |p - 1/2| up to this: the central region
CENTRAL_SHIFT = 0.180625            # r = 0.180625 - q^2 = 0.425^2 - q^2 there
INTERMEDIATE_LIMIT = 5.0            # r = sqrt(-log(min(p, 1-p))) up to this
INTERMEDIATE_SHIFT = 1.6
TAIL_SHIFT = 5.0

# AS 241's coefficients, highest degree first (the constant of every denominator is 1)
CENTRAL_NUM = (2509.0809287301226727, 33430.575583588128105, 67265.770927008700853,
               45921.953931549871457, 13731.693765509461125, 1971.5909503065514427,
               133.14166789178437745, 3.387132872796366608)
CENTRAL_DEN = (5226.495278852854561, 28729.085735721942674, 39307.89580009271061,
               21213.794301586595867, 5394.1960214247511077, 687.1870074920579083,
               42.313330701600911252, 1.0)
INTERMEDIATE_NUM = (7.7454501427834140764e-4, 0.0227238449892691845833,
                    0.24178072517745061177, 1.27045825245236838258, 3.64784832476320460504,
                    5.7694972214606914055, 4.6303378461565452959, 1.42343711074968357734)
INTERMEDIATE_DEN = (1.05075007164441684324e-9, 5.475938084995344946e-4,
                    0.0151986665636164571966, 0.14810397642748007459, 0.68976733498510000455,
                    1.6763848301838038494, 2.05319162663775882187, 1.0)
TAIL_NUM = (2.01033439929228813265e-7, 2.71155556874348757815e-5, 0.0012426609473880784386,
            0.026532189526576123093, 0.29656057182850489123, 1.7848265399172913358,
            5.4637849111641143699, 6.6579046435011037772)
TAIL_DEN = (2.04426310338993978564e-15, 1.4215117583164458887e-7, 1.8463183175100546818e-5,
            7.868691311456132591e-4, 0.0148753612908506148525, 0.13692988092273580531,
            0.59983220655588793769, 1.0)


def _horner(coefficients: tuple, r: np.ndarray) -> np.ndarray:
    value = coefficients[0] * r + coefficients[1]
    for c in coefficients[2:]:
        value = value * r + c
    return value


def qnorm(p: np.ndarray) -> np.ndarray:
    """Standard normal quantiles of probabilities in [0, 1] (-inf and inf at the ends)."""
    p = np.asarray(p, dtype=np.float64)
    ends = (p <= 0) | (p >= 1)
    if ends.any():
        out = np.where(p <= 0, -np.inf, np.inf)
        out[~ends] = qnorm(p[~ends])
        return out
    q = p - 0.5
    out = np.empty_like(p)
    central = np.abs(q) <= CENTRAL_HALF_WIDTH
    qc = q[central]
    rc = CENTRAL_SHIFT - qc * qc
    out[central] = qc * _horner(CENTRAL_NUM, rc) / _horner(CENTRAL_DEN, rc)

    outer = ~central
    qo = q[outer]
    nearest = np.where(qo > 0, 0.5 - p[outer] + 0.5, p[outer])      # min(p, 1 - p)
    r = np.sqrt(-np.array([math.log(v) for v in nearest.tolist()], dtype=np.float64))
    value = np.empty_like(r)
    middle = r <= INTERMEDIATE_LIMIT
    rm = r[middle] - INTERMEDIATE_SHIFT
    value[middle] = _horner(INTERMEDIATE_NUM, rm) / _horner(INTERMEDIATE_DEN, rm)
    rt = r[~middle] - TAIL_SHIFT
    value[~middle] = _horner(TAIL_NUM, rt) / _horner(TAIL_DEN, rt)
    out[outer] = np.where(qo < 0, -value, value)
    return out
