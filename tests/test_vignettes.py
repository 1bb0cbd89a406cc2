"""The notebooks of vignettes/ run without error (issue 21 item 6): each
``vignettes/*.ipynb`` is executed from a fresh kernel with nbclient (in
memory: the stored outputs are not rewritten). A new notebook dropped into
vignettes/ is executed here and shown by the docs with no other change.

Skipped when nbclient or ipykernel is not installed (the "test" extra
installs them).
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "vignettes").glob("*.ipynb"))
#: seconds one cell may run
CELL_TIMEOUT = 600


def test_there_are_vignettes():
    assert {p.name for p in NOTEBOOKS} >= {"gbm_guide.ipynb", "ordered_target_statistics.ipynb"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_vignette_runs_without_error(path, monkeypatch):
    # the kernel imports the pygbm of this checkout, with the non-interactive plots
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()                  # raises CellExecutionError on the first error
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
