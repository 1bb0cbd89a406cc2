"""RRandom: R's global random stream after ``set.seed(seed)``, in Python.

R's defaults (``RNGkind("Mersenne-Twister", "Inversion", "Rejection")``, R >= 3.6):

* ``unif_rand``: a Mersenne-Twister output times 2^-32; an exact 0 is moved to
  half of R's 1/(2^32 - 1) (R's fix-up into the open interval; the other end,
  an exact 1, cannot come from this generator);
* ``R_unif_index(n)`` (every draw of ``sample``): rejection sampling of
  ``bits = ceil(log2(n))``-bit integers, each built from ``bits // 16 + 1``
  uniforms, 16 bits at a time (``floor(65536 u)``), keeping the low ``bits``
  bits; a value >= n is drawn again;
* ``sample.int(n, size)`` without replacement: a partial Fisher-Yates shuffle of
  1..n (an index j among the n - i remaining values, take value j, move the
  last remaining value into its place); with replacement, one index per value;
  for n > 1e7 and size <= n / 2 R's hashed variant (an index redrawn until new);
* ``runif(n, a, b)``: ``a + (b - a) * u``; no draw when a == b;
* ``rnorm(n)`` by inversion (``?RNGkind``): two uniforms per value,
  ``qnorm((floor(2^27 u1) + u2) / 2^27)``.

Every method continues one stream, as R's global stream goes on across calls.
"""
from __future__ import annotations

import math
import numbers
from typing import Sequence

import numpy as np

from .mersenne import KIND_CODE, N, SEED_WORDS, MersenneTwister
from .qnorm import qnorm

INT_MAX = 2 ** 31 - 1                 # R integers: -INT_MAX..INT_MAX (-2^31 is NA)
TWO_POW_M32 = 2.0 ** -32              # the weight of an MT output in unif_rand
R_I2_32M1 = 2.328306437080797e-10     # R's constant for 1/(2^32 - 1), used by the fix-up
BITS_PER_DRAW = 16                    # R_unif_index takes 16 bits from each uniform
SPAN_SHIFT = 32 - BITS_PER_DRAW       # floor(65536 u) is the output's top 16 bits
INVERSION_BIG = 134217728.0           # 2^27, rnorm's two-uniform construction
HASH_MIN_N = 10_000_000               # sample.int hashes above this n (size <= n / 2)
READ_AHEAD = 1024                     # uniforms read ahead by a sampling loop


def _seed_value(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"RRandom: seed must be an integer, as R's set.seed takes; "
                        f"got {type(seed).__name__} {seed!r}")
    if not -INT_MAX <= int(seed) <= INT_MAX:
        raise ValueError(f"RRandom: seed must be an R integer in [{-INT_MAX}, {INT_MAX}]; "
                         f"got {seed}")
    return int(seed)


def _count(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"RRandom: {name} must be a non-negative integer; got {value!r}")
    return int(value)


def _uniforms(raw: np.ndarray) -> np.ndarray:
    """unif_rand of MT outputs: output * 2^-32, an exact 0 fixed up."""
    u = raw.astype(np.float64) * TWO_POW_M32
    u[raw == 0] = 0.5 * R_I2_32M1
    return u


class _IndexDrawer:
    """R_unif_index on a copy of the stream's generator, read ahead in blocks;
    ``used`` is the number of uniforms consumed, by which the stream then skips."""

    def __init__(self, mt: MersenneTwister):
        self._mt = mt.copy()
        self._spans: list = []
        self._pos = 0
        self.used = 0

    def _span(self) -> int:
        # floor(65536 * unif_rand()) is the output's top 16 bits (0 for a fixed-up 0)
        if self._pos == len(self._spans):
            self._spans = (self._mt.raw(READ_AHEAD) >> np.uint32(SPAN_SHIFT)).tolist()
            self._pos = 0
        self._pos += 1
        self.used += 1
        return self._spans[self._pos - 1]

    def index(self, n: int) -> int:
        """A uniform integer in 0..n-1 (R_unif_index(n); 0 without a draw for n <= 0)."""
        if n <= 0:
            return 0
        bits = (n - 1).bit_length()          # ceil(log2(n))
        mask = (1 << bits) - 1
        draws = bits // BITS_PER_DRAW + 1
        while True:
            value = 0
            for _ in range(draws):
                value = (value << BITS_PER_DRAW) + self._span()
            value &= mask
            if value < n:
                return value


class RRandom:
    """R's random stream after ``set.seed(seed)`` (R >= 3.6 defaults).

    ``RRandom(42).runif(3)`` is R's ``set.seed(42); runif(3)``, bit for bit; the
    object carries its state on, as R's global stream does, so a sequence of
    calls gives R's sequence. ``reset()`` returns to the seed (or to the state a
    stream was loaded in), ``seed(s)`` is ``set.seed(s)``; ``copy.copy`` and
    ``copy.deepcopy`` give independent streams in the same state, and the
    object pickles. ``random_seed`` is R's ``.Random.seed`` of the current state
    and ``RRandom.from_random_seed`` loads one.
    """

    def __init__(self, seed: int):
        self.seed(seed)

    def _set(self, seed, origin: MersenneTwister, current: MersenneTwister) -> None:
        # the one place the fields are set: the seed (None for a loaded state), the
        # state reset() returns to, and the current state
        self._seed = seed
        self._origin = origin
        self._mt = current

    @classmethod
    def _from_states(cls, seed, origin: MersenneTwister, current: MersenneTwister) -> "RRandom":
        stream = cls.__new__(cls)
        stream._set(seed, origin, current)
        return stream

    # -- state -----------------------------------------------------------------
    def seed(self, seed: int) -> None:
        """R's ``set.seed(seed)``: restart the stream from ``seed``."""
        seed = _seed_value(seed)
        origin = MersenneTwister.from_seed(seed)
        self._set(seed, origin, origin.copy())

    def reset(self) -> None:
        """Back to the state after the last ``seed`` (or the loaded ``.Random.seed``)."""
        self._mt = self._origin.copy()

    @property
    def seed_value(self):
        """The seed of the last ``seed`` call (None for a stream loaded from a state)."""
        return self._seed

    @property
    def random_seed(self) -> np.ndarray:
        """R's ``.Random.seed`` of the current state (int32, 626 values)."""
        words = np.concatenate([[self._mt.mti], self._mt.mt]).astype(np.uint32)
        return np.concatenate([[KIND_CODE], words.view(np.int32)]).astype(np.int32)

    @classmethod
    def from_random_seed(cls, values: Sequence[int]) -> "RRandom":
        """A stream in the state of R's ``.Random.seed`` ``values`` (R's default kinds)."""
        values = np.asarray(values, dtype=np.int64)
        if values.shape != (SEED_WORDS + 1,) or values[0] != KIND_CODE:
            raise ValueError(f"RRandom.from_random_seed: expected R's .Random.seed of the "
                             f"default kinds ({SEED_WORDS + 1} integers starting with "
                             f"{KIND_CODE}); got {values.shape[0]} values starting with "
                             f"{values[:1].tolist()}")
        mti = int(values[1]) if values[1] > 0 else N   # R treats a position <= 0 as 624
        origin = MersenneTwister(values[2:].astype(np.uint32), mti)
        return cls._from_states(None, origin, origin.copy())

    def __copy__(self) -> "RRandom":
        return self._from_states(self._seed, self._origin.copy(), self._mt.copy())

    def __deepcopy__(self, memo) -> "RRandom":
        return self.__copy__()

    def __getstate__(self) -> dict:
        return {"seed": self._seed,
                "origin": (self._origin.mt.copy(), self._origin.mti),
                "state": (self._mt.mt.copy(), self._mt.mti)}

    def __setstate__(self, state: dict) -> None:
        self._set(state["seed"], MersenneTwister(*state["origin"]),
                  MersenneTwister(*state["state"]))

    def __repr__(self) -> str:
        origin = f"seed={self._seed}" if self._seed is not None else "loaded state"
        return f"RRandom({origin}, position={self._mt.mti})"

    # -- draws -----------------------------------------------------------------
    def unif_rand(self, n: int) -> np.ndarray:
        """The next ``n`` values of R's ``unif_rand()`` (what ``runif(n)`` returns)."""
        return _uniforms(self._mt.raw(_count("n", n)))

    def runif(self, n: int, min: float = 0.0, max: float = 1.0) -> np.ndarray:
        """R's ``runif(n, min, max)``: ``min + (max - min) * u``."""
        n = _count("n", n)
        if not (math.isfinite(min) and math.isfinite(max) and min <= max):
            raise ValueError(f"RRandom.runif: needs finite min <= max; got min={min}, "
                             f"max={max} (R returns NaN there)")
        if min == max:
            return np.full(n, float(min))
        return min + (max - min) * self.unif_rand(n)

    def rnorm(self, n: int, mean: float = 0.0, sd: float = 1.0) -> np.ndarray:
        """R's ``rnorm(n, mean, sd)`` by inversion: two uniforms per value."""
        n = _count("n", n)
        if not (math.isfinite(mean) and math.isfinite(sd) and sd >= 0):
            raise ValueError(f"RRandom.rnorm: needs a finite mean and a finite sd >= 0; "
                             f"got mean={mean}, sd={sd}")
        if sd == 0:
            return np.full(n, float(mean))
        u = self.unif_rand(2 * n).reshape(n, 2)
        p = (np.floor(INVERSION_BIG * u[:, 0]) + u[:, 1]) / INVERSION_BIG
        return mean + sd * (0.0 + qnorm(p))       # qnorm(p, 0, 1), then mean + sd * z

    def unif_index(self, n: int) -> int:
        """R's ``R_unif_index(n)``: a uniform integer in 0..n-1 by rejection."""
        drawer = _IndexDrawer(self._mt)
        value = drawer.index(_count("n", n))
        self._mt.skip(drawer.used)
        return value

    def sample_int(self, n: int, size: int | None = None, replace: bool = False) -> np.ndarray:
        """R's ``sample.int(n, size, replace)``: values in 1..n (int64), as R returns."""
        n = _count("n", n)
        size = n if size is None else _count("size", size)
        if not replace and size > n:
            raise ValueError("RRandom.sample_int: cannot take a sample larger than the "
                             "population when replace=False (R's sample.int)")
        drawer = _IndexDrawer(self._mt)
        if replace or size < 2:
            values = [drawer.index(n) for _ in range(size)]
        elif n > HASH_MIN_N and 2 * size <= n:
            values = _hashed(drawer, n, size)
        else:
            values = _shuffled(drawer, n, size)
        self._mt.skip(drawer.used)
        return np.asarray(values, dtype=np.int64) + 1

    def sample(self, x, size: int | None = None, replace: bool = False) -> np.ndarray:
        """R's ``sample(x, size, replace)``: an integer ``x >= 1`` is ``sample.int(x)``,
        a sequence has its elements sampled (unlike R, a one-element sequence is
        never read as n: pass an int for that)."""
        if isinstance(x, numbers.Integral) and not isinstance(x, bool) and x >= 1:
            return self.sample_int(int(x), size, replace)
        x = np.asarray(x)
        if x.ndim != 1:
            raise ValueError(f"RRandom.sample: x must be an integer >= 1 or a "
                             f"one-dimensional sequence; got {x!r}")
        return x[self.sample_int(len(x), size, replace) - 1]


def _shuffled(drawer: _IndexDrawer, n: int, size: int) -> list:
    """R's partial Fisher-Yates draw of ``size`` of 0..n-1."""
    pool = list(range(n))
    out = []
    for remaining in range(n, n - size, -1):
        j = drawer.index(remaining)
        out.append(pool[j])
        pool[j] = pool[remaining - 1]
    return out


def _hashed(drawer: _IndexDrawer, n: int, size: int) -> list:
    """R's hashed draw of ``size`` distinct values of 0..n-1 (a repeat is redrawn)."""
    seen: set = set()
    out = []
    while len(out) < size:
        value = drawer.index(n)
        if value not in seen:
            seen.add(value)
            out.append(value)
    return out
