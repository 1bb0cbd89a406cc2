"""The Mersenne-Twister MT19937 (Matsumoto and Nishimura, 1998) as R holds it.

R's state of its default generator is ``.Random.seed``: a kind code, then the
position ``mti`` in the current block, then the 624 words of the block. This
module keeps exactly that state (so it can be compared with, or loaded from, R's
``.Random.seed``), seeds it as ``set.seed`` does, and produces the 32-bit outputs.

``set.seed(seed)`` (documented in R's ``?RNGkind`` as B. D. Ripley's
initialisation) takes the seed as an unsigned 32-bit integer, scrambles it with
50 steps of the linear congruential generator ``seed <- 69069 * seed + 1``
(mod 2^32), then fills R's 625 seed words (the position, then the 624 words of
the block) with the next 625 values of that generator; the position is then set
to 624, so the first draw twists a fresh block.

The twist is vectorised: word i of the new block depends on words i + 1 and
i + 397 of the block, which are old words for i < 227 and new words (computed in
an earlier slice) after that, so four slices compute the block in order.
"""
from __future__ import annotations

import numpy as np

N = 624                       # words in a block
M = 397                       # the twist's middle distance
MATRIX_A = 0x9908B0DF         # the twist's constant vector a
UPPER_MASK = 0x80000000       # most significant bit of a word
LOWER_MASK = 0x7FFFFFFF       # the other 31 bits
TEMPERING_B = 0x9D2C5680
TEMPERING_C = 0xEFC60000

LCG_MULTIPLIER = 69069        # set.seed's scrambling generator
SCRAMBLE_STEPS = 50           # its steps before the words are filled
WORD = 2 ** 32

# R's code for the kind of generator in .Random.seed[1]: Mersenne-Twister (3),
# Inversion normals (1, in the hundreds), Rejection sampling (1, in the ten thousands)
KIND_CODE = 10403
SEED_WORDS = N + 1            # .Random.seed[-1]: the position, then the block

_SLICES = ((0, N - M), (N - M, 2 * (N - M)), (2 * (N - M), N - 1))


def _lcg(seed: int) -> int:
    return (LCG_MULTIPLIER * seed + 1) % WORD


def scrambled_words(seed: int) -> np.ndarray:
    """The 625 seed words ``set.seed(seed)`` writes (uint32; the first is the
    position word before R sets it to 624)."""
    value = seed % WORD
    for _ in range(SCRAMBLE_STEPS):
        value = _lcg(value)
    words = np.empty(SEED_WORDS, dtype=np.uint32)
    for j in range(SEED_WORDS):
        value = _lcg(value)
        words[j] = value
    return words


def _twisted(y: np.ndarray, far: np.ndarray) -> np.ndarray:
    """New words from the (upper | lower) combinations y and the words M apart."""
    return far ^ (y >> np.uint32(1)) ^ ((y & np.uint32(1)) * np.uint32(MATRIX_A))


def twist(mt: np.ndarray) -> None:
    """Replace the 624 words of ``mt`` (uint32) by the next block, in place."""
    upper, lower = np.uint32(UPPER_MASK), np.uint32(LOWER_MASK)
    for start, stop in _SLICES:
        y = (mt[start:stop] & upper) | (mt[start + 1:stop + 1] & lower)
        far = mt[start + M:stop + M] if stop + M <= N else mt[start + M - N:stop + M - N]
        mt[start:stop] = _twisted(y, far)
    y = (mt[N - 1:N] & upper) | (mt[0:1] & lower)
    mt[N - 1:N] = _twisted(y, mt[M - 1:M])


def temper(words: np.ndarray) -> np.ndarray:
    """MT19937's tempering of the block's words into its 32-bit outputs."""
    y = words ^ (words >> np.uint32(11))
    y ^= (y << np.uint32(7)) & np.uint32(TEMPERING_B)
    y ^= (y << np.uint32(15)) & np.uint32(TEMPERING_C)
    return y ^ (y >> np.uint32(18))


class MersenneTwister:
    """MT19937 state ``(mt, mti)`` as in R's ``.Random.seed[-1]``, and its outputs."""

    def __init__(self, mt: np.ndarray, mti: int):
        if mt.shape != (N,):
            raise ValueError(f"the Mersenne-Twister state needs {N} words, got {mt.shape}")
        if not 0 < mti <= N:
            raise ValueError(f"the Mersenne-Twister position must be in 1..{N}, got {mti}")
        self.mt = mt.astype(np.uint32, copy=True)
        self.mti = int(mti)
        self._outputs = temper(self.mt)

    @classmethod
    def from_seed(cls, seed: int) -> "MersenneTwister":
        """The state after R's ``set.seed(seed)``."""
        return cls(scrambled_words(seed)[1:], N)

    def copy(self) -> "MersenneTwister":
        return MersenneTwister(self.mt, self.mti)

    def skip(self, n: int) -> None:
        """Advance the state by ``n`` outputs."""
        self.raw(n)

    def raw(self, n: int) -> np.ndarray:
        """The next ``n`` 32-bit outputs (uint32), advancing the state."""
        out = np.empty(n, dtype=np.uint32)
        filled = 0
        while filled < n:
            if self.mti >= N:
                twist(self.mt)
                self._outputs = temper(self.mt)
                self.mti = 0
            take = min(n - filled, N - self.mti)
            out[filled:filled + take] = self._outputs[self.mti:self.mti + take]
            self.mti += take
            filled += take
        return out
