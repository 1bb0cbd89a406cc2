"""R's round() in formula terms (pygbm.frontend.r_functions.r_round): R 4's rounding to
digits, which differs from NumPy's scaling for values such as 0.65 (R: 0.7, NumPy: 0.6)."""

import shutil
import subprocess

import numpy as np
import pytest

from pygbm.frontend.r_functions import r_round

X = np.array([0.15, 0.25, 0.35, 0.45, 0.65, 2.675, 1.005, -0.65, 0.125, 2.5, 1234.5678,
              -2.5, 0.5])
#: R 4.2.2: round(X, k)
R_ROUNDED = {
    0: [0, 0, 0, 0, 1, 3, 1, -1, 0, 2, 1235, -2, 0],
    1: [0.1, 0.2, 0.3, 0.4, 0.7, 2.7, 1, -0.7, 0.1, 2.5, 1234.6, -2.5, 0.5],
    2: [0.15, 0.25, 0.35, 0.45, 0.65, 2.67, 1, -0.65, 0.12, 2.5, 1234.57, -2.5, 0.5],
    -1: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1230, 0, 0],
}
#: random values checked live against R: this many, to 1-5 decimals and of any magnitude
N_LIVE = 20_000


@pytest.mark.parametrize("digits", sorted(R_ROUNDED))
def test_round_gives_r_values(digits):
    np.testing.assert_array_equal(r_round(X, digits), R_ROUNDED[digits])


def test_missing_and_infinite_values_stay():
    got = r_round(np.array([np.nan, np.inf, -np.inf]), 1)
    assert np.isnan(got[0]) and got[1] == np.inf and got[2] == -np.inf


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript not installed")
def test_round_matches_r_live(tmp_path):
    rng = np.random.default_rng()
    x = np.concatenate([np.round(rng.uniform(-100, 100, N_LIVE), rng.integers(1, 6)),
                        rng.normal(size=N_LIVE) * 10.0 ** rng.integers(-6, 8, N_LIVE)])
    np.savetxt(tmp_path / "x.txt", x, fmt="%.17g")
    script = ('x <- scan(commandArgs(TRUE)[1], quiet = TRUE); '
              'for (k in -1:4) writeLines(sprintf("%.17g", round(x, k)), '
              'file.path(commandArgs(TRUE)[2], paste0("r", k, ".txt")))')
    subprocess.run(["Rscript", "-e", script, str(tmp_path / "x.txt"), str(tmp_path)],
                   check=True, capture_output=True, timeout=120)
    for k in range(-1, 5):
        expected = np.loadtxt(tmp_path / f"r{k}.txt")
        np.testing.assert_array_equal(r_round(x, k), expected, err_msg=f"digits {k}")
