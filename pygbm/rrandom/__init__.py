"""R's default random number stream (``set.seed``, ``runif``, ``sample``, ``rnorm``)."""
from .stream import RRandom

__all__ = ["RRandom"]
