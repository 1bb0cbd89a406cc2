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
INT32_MIN = -2 ** 31                  # .Random.seed's words are any 32 bits (as int32)
TWO_POW_M32 = 2.0 ** -32              # the weight of an MT output in unif_rand
R_I2_32M1 = 2.328306437080797e-10     # R's constant for 1/(2^32 - 1), used by the fix-up
BITS_PER_DRAW = 16                    # R_unif_index takes 16 bits from each uniform
SPAN_SHIFT = 32 - BITS_PER_DRAW       # floor(65536 u) is the output's top 16 bits
INVERSION_BIG = 134217728.0           # 2^27, rnorm's two-uniform construction
HASH_MIN_N = 10_000_000               # sample.int hashes above this n (size <= n / 2)
READ_AHEAD = 1024                     # uniforms read ahead by a sampling loop
MAX_COUNT = 4_500_000_000_000_000     # R's sample.int: n above 4.5e15 is "invalid"


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
    if value > MAX_COUNT:
        raise ValueError(f"RRandom: {name} must be at most {MAX_COUNT:.2g} (R's limit); got "
                         f"{value!r}")
    return int(value)


def _real(where: str, **values) -> None:
    """Each of ``values`` (by argument name) is one real number (R: "invalid
    arguments"), else a TypeError naming it."""
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"{where}: {name} must be a number; got {value!r:.80}")


def _flag(name: str, value) -> bool:
    """``value`` as True or False (0 and 1 too), else a TypeError naming it."""
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, numbers.Integral)
                                               and value in (0, 1)):
        return bool(value)
    raise TypeError(f"RRandom: {name} must be True or False; got {value!r:.80}")


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

    ``RRandom(42).runif(3)`` is R's ``set.seed(42); runif(3)``, bit for bit.
    Passed as ``random_state`` to :func:`pygbm.gbm` (and ``gbm_fit``,
    ``gbm_more``, ``summary(method="permutation")``), it makes every random
    step of gbm take R's draws in R's order: bagged fits and cross-validation
    then give R's numbers (see "The same numbers as R" in the README).

    Parameters
    ----------
    seed : int
        R's ``set.seed(seed)``: an R integer, -(2^31 - 1) to 2^31 - 1.

    Notes
    -----
    R's default kinds, ``RNGkind("Mersenne-Twister", "Inversion",
    "Rejection")`` (R >= 3.6): uniforms from the Mersenne-Twister, normals
    by inversion, ``sample`` by rejection sampling. Other kinds and R's
    ``sample.kind = "Rounding"`` (R < 3.6) are not provided.

    The object carries its state on, as R's global stream does, so a
    sequence of calls gives R's sequence; :meth:`reset` returns to the seed,
    :meth:`seed` is ``set.seed``. ``copy.copy`` and ``copy.deepcopy`` give
    independent streams in the same state, and the object pickles.
    :attr:`random_seed` is R's ``.Random.seed`` of the current state and
    :meth:`from_random_seed` loads one. A fit that bags keeps its stream,
    where it stopped, in ``fit.rng`` (for :func:`pygbm.gbm_more`), as R's
    global stream moves on during ``gbm``.

    Examples
    --------
    >>> r = pygbm.RRandom(42)                 # set.seed(42)
    >>> r.runif(3)                            # runif(3)
    array([0.91480604, 0.93707541, 0.28613953])
    >>> r.sample(10)                          # sample(10), continuing the stream
    array([ 9,  4,  2,  8,  1, 10,  6,  5,  7,  3])
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
        """Restart the stream from ``seed`` (R's ``set.seed(seed)``).

        Parameters
        ----------
        seed : int
            An R integer, -(2^31 - 1) to 2^31 - 1 (R: ``seed``).

        Examples
        --------
        >>> r = pygbm.RRandom(42)
        >>> r.seed(1)                              # set.seed(1)
        >>> r.runif(1)
        array([0.26550866])
        """
        seed = _seed_value(seed)
        origin = MersenneTwister.from_seed(seed)
        self._set(seed, origin, origin.copy())

    def reset(self) -> None:
        """Go back to the state after the last :meth:`seed`.

        For a stream made by :meth:`from_random_seed`: back to the loaded
        state. Not in R (there: ``set.seed`` again).

        Examples
        --------
        >>> r = pygbm.RRandom(1)
        >>> first = r.runif(2)
        >>> r.reset()
        >>> bool((r.runif(2) == first).all())
        True
        """
        self._mt = self._origin.copy()

    @property
    def seed_value(self):
        """The seed of the last :meth:`seed` call (None for a stream loaded
        by :meth:`from_random_seed`)."""
        return self._seed

    @property
    def random_seed(self) -> np.ndarray:
        """R's ``.Random.seed`` of the current state (int32, 626 values: the
        kind code 10403, the position, the 624 Mersenne-Twister words)."""
        words = np.concatenate([[self._mt.mti], self._mt.mt]).astype(np.uint32)
        return np.concatenate([[KIND_CODE], words.view(np.int32)]).astype(np.int32)

    @classmethod
    def from_random_seed(cls, values: Sequence[int]) -> "RRandom":
        """A stream in the state R's ``.Random.seed`` describes.

        Parameters
        ----------
        values : sequence of int
            R's ``.Random.seed`` of the default kinds: 626 integers, the
            first 10403 (e.g. read from R with ``dput(.Random.seed)``).

        Returns
        -------
        RRandom
            A stream that continues from that state; :meth:`reset` returns
            to it.

        Examples
        --------
        >>> r = pygbm.RRandom(7)
        >>> state = r.random_seed
        >>> copy = pygbm.RRandom.from_random_seed(state)
        >>> bool((copy.runif(3) == r.runif(3)).all())
        True
        """
        values = _seed_words(values)
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
        """The next ``n`` values of R's C-level ``unif_rand()``.

        Parameters
        ----------
        n : int
            How many, >= 0.

        Returns
        -------
        numpy.ndarray
            ``n`` floats in (0, 1): what ``runif(n)`` returns.

        Examples
        --------
        >>> pygbm.RRandom(42).unif_rand(2)
        array([0.91480604, 0.93707541])
        """
        return _uniforms(self._mt.raw(_count("n", n)))

    def runif(self, n: int, min: float = 0.0, max: float = 1.0) -> np.ndarray:
        """Uniform draws (R's ``runif(n, min, max)``).

        Parameters
        ----------
        n : int
            How many, >= 0 (R: ``n``; R also takes a vector's length).
        min : float, default 0.0
            Lower end (R: ``min``), finite.
        max : float, default 1.0
            Upper end (R: ``max``), finite and >= ``min``.

        Returns
        -------
        numpy.ndarray
            ``min + (max - min) * u`` for ``n`` uniforms ``u``; ``n`` copies
            of ``min`` without a draw when ``min == max``, as R.

        Notes
        -----
        Where R returns NaN with a warning (infinite ends, ``min > max``),
        pygbm raises ValueError.

        Examples
        --------
        >>> pygbm.RRandom(42).runif(2, 10, 20)         # set.seed(42); runif(2, 10, 20)
        array([19.14806043, 19.37075413])
        """
        n = _count("n", n)
        _real("RRandom.runif", min=min, max=max)
        if not (math.isfinite(min) and math.isfinite(max) and min <= max):
            raise ValueError(f"RRandom.runif: needs finite min <= max; got min={min}, "
                             f"max={max} (R returns NaN there)")
        if min == max:
            return np.full(n, float(min))
        return min + (max - min) * self.unif_rand(n)

    def rnorm(self, n: int, mean: float = 0.0, sd: float = 1.0) -> np.ndarray:
        """Normal draws by inversion (R's ``rnorm(n, mean, sd)``).

        Parameters
        ----------
        n : int
            How many, >= 0 (R: ``n``).
        mean : float, default 0.0
            The mean (R: ``mean``), finite.
        sd : float, default 1.0
            The standard deviation (R: ``sd``), finite and >= 0.

        Returns
        -------
        numpy.ndarray
            ``mean + sd * z``; each ``z`` is ``qnorm`` of a 2^-27 grid point
            plus a second uniform (two uniforms per value, R's "Inversion").
            ``n`` copies of ``mean`` without a draw when ``sd == 0``.

        Notes
        -----
        Where R returns NaN with a warning (infinite arguments, ``sd < 0``),
        pygbm raises ValueError.

        Examples
        --------
        >>> pygbm.RRandom(1).rnorm(2)                    # set.seed(1); rnorm(2)
        array([-0.62645381,  0.18364332])
        """
        n = _count("n", n)
        _real("RRandom.rnorm", mean=mean, sd=sd)
        if not (math.isfinite(mean) and math.isfinite(sd) and sd >= 0):
            raise ValueError(f"RRandom.rnorm: needs a finite mean and a finite sd >= 0; "
                             f"got mean={mean}, sd={sd}")
        if sd == 0:
            return np.full(n, float(mean))
        u = self.unif_rand(2 * n).reshape(n, 2)
        p = (np.floor(INVERSION_BIG * u[:, 0]) + u[:, 1]) / INVERSION_BIG
        return mean + sd * (0.0 + qnorm(p))       # qnorm(p, 0, 1), then mean + sd * z

    def unif_index(self, n: int) -> int:
        """One uniform integer in 0..n-1 (R's C-level ``R_unif_index(n)``).

        Parameters
        ----------
        n : int
            The number of values, >= 0.

        Returns
        -------
        int
            Drawn by rejection sampling of ``ceil(log2(n))``-bit integers
            built 16 bits per uniform, as every draw of R's ``sample``; 0
            without a draw for ``n == 0``.

        Examples
        --------
        >>> pygbm.RRandom(42).unif_index(10) + 1    # set.seed(42); sample(10, 1)
        1
        """
        drawer = _IndexDrawer(self._mt)
        value = drawer.index(_count("n", n))
        self._mt.skip(drawer.used)
        return value

    def sample_int(self, n: int, size: int | None = None, replace: bool = False) -> np.ndarray:
        """A random sample of 1..n (R's ``sample.int(n, size, replace)``).

        Parameters
        ----------
        n : int
            The population 1..n, n >= 0 (R: ``n``).
        size : int, optional
            How many to draw (R: ``size``); default None: ``n`` (a permutation).
        replace : bool, default False
            Draw with replacement (R: ``replace``).

        Returns
        -------
        numpy.ndarray
            ``size`` values in 1..n (int64), 1-based as R returns them.

        Notes
        -----
        Without replacement R's partial Fisher-Yates shuffle (for n > 1e7
        and size <= n / 2 R's hashed variant); with replacement one
        ``R_unif_index`` per value. R's ``prob`` (weighted sampling) is not
        provided.

        Examples
        --------
        >>> pygbm.RRandom(1).sample_int(100, 5)          # set.seed(1); sample.int(100, 5)
        array([68, 39,  1, 34, 87])
        """
        n = _count("n", n)
        size = n if size is None else _count("size", size)
        replace = _flag("replace", replace)
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
        """A random sample of ``x``'s elements, or of 1..x (R's ``sample(x, size, replace)``).

        Parameters
        ----------
        x : int or one-dimensional array-like
            An integer ``x >= 1`` samples 1..x (R's ``sample.int(x)``); a
            sequence has its elements sampled (R: ``x``).
        size : int, optional
            How many to draw (R: ``size``); default None: all of them.
        replace : bool, default False
            Draw with replacement (R: ``replace``).

        Returns
        -------
        numpy.ndarray
            The sampled values (1-based integers for an integer ``x``).

        Notes
        -----
        Unlike R, a one-element sequence is never read as ``n`` (R's
        ``sample(5)`` and ``sample(c(5))`` are the same call; here
        ``sample([5])`` returns ``[5]``): pass an int for 1..n.

        Examples
        --------
        >>> r = pygbm.RRandom(1)
        >>> r.sample(["a", "b", "c"])                  # set.seed(1); sample(c("a", "b", "c"))
        array(['a', 'b', 'c'], dtype='<U1')
        """
        if isinstance(x, numbers.Integral) and not isinstance(x, bool) and x >= 1:
            return self.sample_int(int(x), size, replace)
        try:
            x = np.asarray(x)
        except ValueError:          # a ragged nested list
            raise ValueError("RRandom.sample: x must be an integer >= 1 or a flat sequence "
                             "of values; got a ragged nested list") from None
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


def _seed_words(values) -> np.ndarray:
    """``values``, R's ``.Random.seed`` of the default kinds (SEED_WORDS + 1
    32-bit integers, the first KIND_CODE), as int64; else an error naming
    ``values`` and what it holds (fractions and values beyond 32 bits are not
    truncated or wrapped)."""
    expected = (f"R's .Random.seed of the default kinds ({SEED_WORDS + 1} integers "
                f"starting with {KIND_CODE})")
    try:
        words = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"RRandom.from_random_seed: values must be {expected}; got "
                        f"{values!r:.80}") from None
    if words.ndim != 1:
        raise ValueError(f"RRandom.from_random_seed: values must be {expected}; got "
                         f"{values!r:.80}")
    if words.shape[0] != SEED_WORDS + 1 or words[0] != KIND_CODE:
        raise ValueError(f"RRandom.from_random_seed: values must be {expected}; got "
                         f"{words.shape[0]} values starting with {words[:1].tolist()}")
    bad = ~np.isfinite(words) | (words != np.round(words)) | (words < INT32_MIN) \
        | (words > INT_MAX)
    if bad.any():
        raise ValueError(f"RRandom.from_random_seed: values must be {expected}; got "
                         f"{int(bad.sum())} value(s) that are not 32-bit integers, such as "
                         f"{float(words[bad][0])!r}")
    return words.astype(np.int64)
