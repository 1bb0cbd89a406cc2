"""Fixtures shared by test modules in different folders."""
from __future__ import annotations

import pytest


@pytest.fixture
def force_bounded_search(monkeypatch):
    """``force(block)``: every node whose continuous predictors the bounded
    search (pygbm/engine/bounded.py) can handle goes through it, in blocks of
    ``block`` positions, for the rest of the test (test data are small: as
    configured, their nodes get the full computation)."""
    from pygbm.engine import bounded, exact

    def force(block: int) -> None:
        monkeypatch.setattr(exact, "BOUNDED_MIN_ELEMENTS", 0)
        monkeypatch.setattr(exact, "BOUNDED_MIN_ELEMENTS_MISSING_OR_TIED", 0)
        monkeypatch.setattr(bounded, "BLOCK", block)

    return force
