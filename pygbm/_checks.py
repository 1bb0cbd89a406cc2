"""Argument checks shared by the front end and the fitting functions: clear
errors that name the argument and what was expected."""
from __future__ import annotations

import numbers


def int_arg(name, value, low, high=None):
    """``value`` as an int in [low, high]; TypeError/ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value != int(value):
        raise TypeError(f"{name} must be a whole number, got {value!r}")
    value = int(value)
    if value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be {bound}, got {value}")
    return value
