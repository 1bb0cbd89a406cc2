"""Execute the notebooks of vignettes/ in place, so their stored outputs (what the docs
show) are this checkout's.

Run from the repository root:  python docs/execute_vignettes.py [name ...]
(the test extra has nbclient; the default: every vignettes/*.ipynb). Each notebook runs
in a fresh kernel that imports this checkout's pygbm, with non-interactive plots and no
progress bars, and is written back only when every cell ran; tests/test_vignettes.py
runs them the same way without writing.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import nbclient
import nbformat

ROOT = Path(__file__).resolve().parents[1]
#: seconds one cell may run (as tests/test_vignettes.py)
CELL_TIMEOUT = 600


def execute(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()                   # raises CellExecutionError on the first error
    nbformat.write(nb, path)


def main(names: list[str]) -> None:
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    os.environ["MPLBACKEND"] = "Agg"
    os.environ["CI"] = "1"      # no progress bars in the stored outputs (pygbm.progress)
    paths = [ROOT / "vignettes" / (n if n.endswith(".ipynb") else f"{n}.ipynb")
             for n in names] or sorted((ROOT / "vignettes").glob("*.ipynb"))
    for path in paths:
        print(f"executing {path.relative_to(ROOT)}", flush=True)
        execute(path)


if __name__ == "__main__":
    main(sys.argv[1:])
