"""R's round() and signif() in formula terms (pygbm.frontend.r_functions): R 4's rounding
to digits, which differs from NumPy's scaling for values such as 0.65 (R: 0.7, NumPy:
0.6); signif scales and rounds halves to even (signif(0.65, 1) is 0.6 in R)."""

import shutil
import subprocess

import numpy as np
import pytest

from pygbm.frontend.r_functions import r_round, signif

X = np.array([0.15, 0.25, 0.35, 0.45, 0.65, 2.675, 1.005, -0.65, 0.125, 2.5, 1234.5678,
              -2.5, 0.5])
#: R 4.2.2: round(X, k)
R_ROUNDED = {
    0: [0, 0, 0, 0, 1, 3, 1, -1, 0, 2, 1235, -2, 0],
    1: [0.1, 0.2, 0.3, 0.4, 0.7, 2.7, 1, -0.7, 0.1, 2.5, 1234.6, -2.5, 0.5],
    2: [0.15, 0.25, 0.35, 0.45, 0.65, 2.67, 1, -0.65, 0.12, 2.5, 1234.57, -2.5, 0.5],
    -1: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1230, 0, 0],
}
#: random values checked live against R: twice this many (see _against_r_live)
N_LIVE = 20_000


@pytest.mark.parametrize("digits", sorted(R_ROUNDED))
def test_round_gives_r_values(digits):
    np.testing.assert_array_equal(r_round(X, digits), R_ROUNDED[digits])


def test_missing_and_infinite_values_stay():
    got = r_round(np.array([np.nan, np.inf, -np.inf]), 1)
    assert np.isnan(got[0]) and got[1] == np.inf and got[2] == -np.inf


def _against_r_live(tmp_path, function: str, ours, digits) -> None:
    """R's ``function(x, k)`` for each of ``digits`` on random values (to 1-5 decimals,
    and of any magnitude) against ``ours(x, k)``, bit for bit."""
    rng = np.random.default_rng()
    x = np.concatenate([np.round(rng.uniform(-100, 100, N_LIVE), rng.integers(1, 6)),
                        rng.normal(size=N_LIVE) * 10.0 ** rng.integers(-6, 8, N_LIVE)])
    np.savetxt(tmp_path / "x.txt", x, fmt="%.17g")
    script = ('args <- commandArgs(TRUE); x <- scan(args[1], quiet = TRUE); '
              f'for (k in c({", ".join(map(str, digits))})) '
              f'writeLines(sprintf("%.17g", {function}(x, k)), '
              'file.path(args[2], paste0("d", k, ".txt")))')
    subprocess.run(["Rscript", "-e", script, str(tmp_path / "x.txt"), str(tmp_path)],
                   check=True, capture_output=True, timeout=120)
    for k in digits:
        expected = np.loadtxt(tmp_path / f"d{k}.txt")
        np.testing.assert_array_equal(ours(x, k), expected, err_msg=f"{function}, digits {k}")


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript not installed")
def test_round_matches_r_live(tmp_path):
    _against_r_live(tmp_path, "round", r_round, range(-1, 5))


SIGNIF_X = np.array([0.15, 0.65, 2.675, 123456, -0.000123456, 1234.5, 0, np.nan, np.inf])
#: R 4.2.2: signif(SIGNIF_X, k) (digits below 1 count as 1, above 22 leave x)
R_SIGNIF = {
    0: [0.2, 0.6, 3, 100000, -0.0001, 1000, 0, np.nan, np.inf],
    1: [0.2, 0.6, 3, 100000, -0.0001, 1000, 0, np.nan, np.inf],
    2: [0.15, 0.65, 2.7, 120000, -0.00012, 1200, 0, np.nan, np.inf],
    6: [0.15, 0.65, 2.675, 123456, -0.000123456, 1234.5, 0, np.nan, np.inf],
    23: [0.15, 0.65, 2.675, 123456, -0.000123456, 1234.5, 0, np.nan, np.inf],
}


@pytest.mark.parametrize("digits", sorted(R_SIGNIF))
def test_signif_gives_r_values(digits):
    np.testing.assert_array_equal(signif(SIGNIF_X, digits), R_SIGNIF[digits])


#: small values rounded at 15 and 22 digits: R scales them by 10^23 and more, which
#: R forms by repeated squaring (1e23, the nearer double); the C library's pow gives
#: the double above it, and signif then lost the last digit (R 4.2.2's values)
SMALL_X = np.array([7.938331003244921e-09, -7.59968691611848e-09, 1.234567890123456e-12])
R_SIGNIF_SMALL = {15: [7.9383310032449213e-09, -7.5996869161184808e-09, 1.2345678901234599e-12],
                  22: [7.9383310032449213e-09, -7.5996869161184808e-09, 1.2345678901234561e-12]}


@pytest.mark.parametrize("digits", sorted(R_SIGNIF_SMALL))
def test_signif_scales_small_values_as_r(digits):
    np.testing.assert_array_equal(signif(SMALL_X, digits), R_SIGNIF_SMALL[digits])


def test_fractional_digits_are_rounded_as_r():
    # R takes the nearest whole number of digits, halves up; int() truncated them
    # (R 4.2.2: signif(123.456, 2.5) is 123, round(1234.56, -1.5) is 1230)
    assert [signif(123.456, d) for d in (2.5, 2.4, 3.5, 1.5, 0.4)] == \
        [123.0, 120.0, 123.5, 120.0, 100.0]
    assert [r_round(1234.56, d) for d in (-1.5, -0.5, -1.6, 0.5)] == \
        [1230.0, 1235.0, 1200.0, 1234.6]
    assert [r_round(123.456, d) for d in (1.5, 1.4, 0.6)] == [123.46, 123.5, 123.5]


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript not installed")
def test_signif_matches_r_live(tmp_path):
    _against_r_live(tmp_path, "signif", signif, [*range(1, 8), 15, 22, 23])
