"""pygbm.RRandom against R's own stream, bit for bit.

``tests/r_reference_random/streams.json`` was written by
``tests/r_reference_random/make_fixtures.R`` (R 4.2.2): each case is
``set.seed(seed)`` and a list of calls on that one stream (``runif``, ``rnorm``,
``sample`` of n or of a vector, with and without replacement, ``set.seed`` midway),
the values R returned (doubles as exact hex floats), then ``runif(2)`` (where the
calls left the stream) and for some cases ``.Random.seed``. A live test (skipped
without ``Rscript``) runs the script again, with 100000-value cases added, and
replays its output.
"""
from __future__ import annotations

import copy
import json
import pickle
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import pygbm
from pygbm.rrandom import RRandom
from pygbm.rrandom.mersenne import MersenneTwister
from pygbm.rrandom.qnorm import qnorm
from pygbm.rrandom.stream import R_I2_32M1, _uniforms

HERE = Path(__file__).parent / "r_reference_random"
FIXTURE = HERE / "streams.json"


def _load(path: Path) -> dict:
    return json.loads(path.read_text())


def _expected(values) -> np.ndarray:
    values = list(np.atleast_1d(values))
    if values and isinstance(values[0], str) and values[0].startswith(("0x", "-0x")):
        return np.array([float.fromhex(v) for v in values], dtype=np.float64)
    return np.asarray(values)


def _size(call: dict):
    return None if call["size"] is None else int(call["size"])


def _replay(stream: RRandom, call: dict) -> np.ndarray:
    fn = call["fn"]
    if fn == "runif":
        return stream.runif(int(call["n"]), call["min"], call["max"])
    if fn == "rnorm":
        return stream.rnorm(int(call["n"]), call["mean"], call["sd"])
    if fn == "sample":
        return stream.sample(int(call["n"]), _size(call), call["replace"])
    if fn == "sample_sum":
        return np.array([float(stream.sample(int(call["n"]), _size(call)).sum())])
    if fn == "sample_x":
        return stream.sample(np.asarray(call["x"]), _size(call), call["replace"])
    if fn == "set_seed":
        stream.seed(int(call["seed"]))
        return np.array([], dtype=np.int64)
    raise AssertionError(f"unknown call {fn}")


def _assert_same(mine: np.ndarray, expected: np.ndarray, where: str) -> None:
    assert mine.shape == expected.shape, where
    if expected.dtype == np.float64:
        # bit for bit: the doubles' bit patterns agree
        assert np.array_equal(mine.view(np.int64), expected.view(np.int64)), where
    else:
        assert mine.tolist() == expected.tolist(), where


def _check_case(case: dict) -> None:
    stream = RRandom(int(case["seed"]))
    for k, (call, values) in enumerate(zip(case["calls"], case["values"])):
        _assert_same(_replay(stream, call), _expected(values), f"{case['name']} call {k}")
    if "random_seed" in case:
        assert stream.random_seed.tolist() == case["random_seed"], case["name"]
    _assert_same(stream.unif_rand(2), _expected(case["next_runif"]), f"{case['name']} after")


FIXTURE_DATA = _load(FIXTURE)


def test_fixture_is_stamped_with_r_version_and_default_kinds():
    assert FIXTURE_DATA["r_version"].startswith("R version 4.")
    assert FIXTURE_DATA["rng_kind"] == ["Mersenne-Twister", "Inversion", "Rejection"]


@pytest.mark.parametrize("case", FIXTURE_DATA["cases"], ids=lambda c: c["name"])
def test_stream_matches_r(case):
    _check_case(case)


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript not installed")
def test_stream_matches_live_r(tmp_path):
    out = tmp_path / "streams.json"
    subprocess.run(["Rscript", str(HERE / "make_fixtures.R"), str(out), "--large"],
                   check=True, capture_output=True, text=True)
    live = _load(out)
    assert [c["name"] for c in live["cases"]][:len(FIXTURE_DATA["cases"])] == \
        [c["name"] for c in FIXTURE_DATA["cases"]]
    for case in live["cases"]:
        _check_case(case)


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript not installed")
def test_gbm_draw_facts_hold_in_live_r():
    # the facts of docs/r_random_stream.md, checked against R gbm itself
    run = subprocess.run(["Rscript", str(HERE / "gbm_draws.R")], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "all facts confirmed" in run.stdout


def test_exported_from_the_package():
    assert pygbm.RRandom is RRandom


def test_twist_agrees_with_numpy_mt19937():
    # the same MT19937 from an independent implementation, over several blocks
    mt = MersenneTwister.from_seed(2024)
    numpy_mt = np.random.MT19937()
    numpy_mt.state = {"bit_generator": "MT19937", "state": {"key": mt.mt.copy(), "pos": 624}}
    assert np.array_equal(mt.raw(5000), numpy_mt.random_raw(5000).astype(np.uint32))


def test_qnorm_ends_and_symmetry():
    assert qnorm(np.array([0.0, 1.0])).tolist() == [-np.inf, np.inf]
    values = qnorm(np.array([1e-300, 1e-20, 0.01, 0.3, 0.5, 0.7, 0.99]))
    assert (values[:4] < 0).all() and values[4] == 0.0 and (values[5:] > 0).all()
    assert np.array_equal(qnorm(np.array([0.25, 0.75])), [-qnorm(np.array([0.75]))[0],
                                                          qnorm(np.array([0.75]))[0]])


def test_unif_rand_resolution_and_fix_up_away_from_zero():
    raw = np.array([0, 1, 2 ** 31, 2 ** 32 - 1], dtype=np.uint32)
    assert _uniforms(raw).tolist() == [0.5 * R_I2_32M1, 2.0 ** -32, 0.5, 1 - 2.0 ** -32]


def test_state_carries_on_across_calls():
    one = RRandom(5)
    a = np.concatenate([one.runif(3), one.runif(4)])
    assert np.array_equal(a, RRandom(5).runif(7))


def test_copies_are_independent_streams():
    stream = RRandom(3)
    stream.runif(10)
    for make in (copy.copy, copy.deepcopy):
        other = make(stream)
        ahead = other.runif(700)                           # the copy moves on alone
        assert np.array_equal(stream.runif(700), ahead)    # the original was where it was
        assert np.array_equal(other.random_seed, stream.random_seed)


def test_pickle_round_trip_continues_the_stream():
    stream = RRandom(-17)
    stream.sample(50)
    restored = pickle.loads(pickle.dumps(stream))
    assert np.array_equal(restored.rnorm(400), stream.rnorm(400))
    restored.reset()
    assert np.array_equal(restored.runif(3), RRandom(-17).runif(3))


def test_reset_and_seed():
    stream = RRandom(8)
    first = stream.runif(5)
    stream.sample(30)
    stream.reset()
    assert np.array_equal(stream.runif(5), first)
    stream.seed(9)
    assert stream.seed_value == 9
    assert np.array_equal(stream.runif(5), RRandom(9).runif(5))


def test_random_seed_round_trip():
    stream = RRandom(77)
    stream.runif(100)
    loaded = RRandom.from_random_seed(stream.random_seed)
    assert loaded.seed_value is None
    assert np.array_equal(loaded.runif(1000), stream.runif(1000))
    loaded.reset()                     # back to the loaded state
    assert np.array_equal(loaded.random_seed, RRandom.from_random_seed(loaded.random_seed)
                          .random_seed)


def test_random_seed_positions_as_r_reads_them():
    values = RRandom(3).random_seed
    values[1] = 0                      # R treats a position <= 0 as 624 (a fresh block)
    assert np.array_equal(RRandom.from_random_seed(values).runif(5), RRandom(3).runif(5))
    values[1] = 625
    with pytest.raises(ValueError, match="position must be in 1..624"):
        RRandom.from_random_seed(values)


@pytest.mark.parametrize("seed, error, words", [
    (1.5, TypeError, "float 1.5"),
    ("42", TypeError, "str '42'"),
    (True, TypeError, "bool True"),
    (None, TypeError, "NoneType None"),
    (2 ** 31, ValueError, "2147483648"),
    (-(2 ** 31), ValueError, "-2147483648"),
])
def test_seed_errors_name_the_argument_and_what_was_given(seed, error, words):
    with pytest.raises(error, match="seed must be") as info:
        RRandom(seed)
    assert words in str(info.value)


def test_numpy_integer_seeds_are_accepted():
    assert np.array_equal(RRandom(np.int64(42)).runif(3), RRandom(42).runif(3))


def test_argument_errors():
    stream = RRandom(1)
    with pytest.raises(ValueError, match="larger than the population"):
        stream.sample(5, 6)
    with pytest.raises(ValueError, match="n must be a non-negative integer"):
        stream.runif(-1)
    with pytest.raises(ValueError, match="min <= max"):
        stream.runif(3, 2, 1)
    with pytest.raises(ValueError, match="sd >= 0"):
        stream.rnorm(3, 0, -1)
    with pytest.raises(ValueError, match="626 integers starting with 10403"):
        RRandom.from_random_seed([10403, 624])
