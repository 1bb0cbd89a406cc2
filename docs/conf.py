"""Sphinx configuration of pygbm's documentation (built in CI with -W).

The notebooks of ``vignettes/`` are shown with their stored outputs (myst-nb,
no execution here: the test suite executes them, once); every ``*.ipynb``
dropped into ``vignettes/`` appears under "Vignettes" with no other change.
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

import pygbm  # noqa: E402

project = "pygbm"
author = "the pygbm authors"
copyright = "pygbm authors; R's gbm by Greg Ridgeway and contributors"  # noqa: A001
release = version = pygbm.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "myst_nb",
]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "img/**", "**/.ipynb_checkpoints"]
nb_execution_mode = "off"                  # stored outputs; tests execute the notebooks
myst_heading_anchors = 3
# a design note added to docs/ without a toctree entry is built (not a CI failure);
# list it in index.rst to put it in the navigation ("Beyond R": a capability's page;
# "Design notes": how the code works)
suppress_warnings = ["myst.header", "toc.not_included"]
autosummary_generate = True
# the class page (_templates/autosummary/class.rst): a table of the public methods,
# the docstring, then every public method and documented property in full
templates_path = ["_templates"]
autodoc_member_order = "groupwise"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
html_theme = "alabaster"
# wide enough for the examples' 90-column code lines without a scroll bar
html_theme_options = {"page_width": "1180px", "sidebar_width": "240px"}
html_title = f"pygbm {release}"
intersphinx_mapping = {}


def _copy_vignettes(app):
    """vignettes/*.ipynb -> docs/vignettes/ (built, not committed)."""
    out = HERE / "vignettes"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    for nb in sorted((ROOT / "vignettes").glob("*.ipynb")):
        shutil.copy2(nb, out / nb.name)


def _methods_and_properties_only(app, what, name, obj, skip, options):
    """A class page shows its methods and properties; its fields are documented
    in the class docstring (a dataclass's Parameters), not twice."""
    # Sphinx 9 passes the member's own kind ("attribute"), earlier ones the parent's
    if what in ("class", "attribute") and not (callable(obj) or isinstance(obj, property)):
        return True
    return None


#: classes users get from a function and never construct: their pages show no
#: constructor signature (a screenful of fields before the methods)
MADE_BY_FUNCTIONS = {"pygbm.GBMFit", "pygbm.InfluenceSummary", "pygbm.CalibratedGBM",
                     "pygbm.EarlyExitPredictor"}


def _no_constructor_signature(app, what, name, obj, options, signature, return_annotation):
    if what == "class" and name in MADE_BY_FUNCTIONS:
        return "", None
    return None


def setup(app):
    app.connect("builder-inited", _copy_vignettes)
    app.connect("autodoc-skip-member", _methods_and_properties_only)
    app.connect("autodoc-process-signature", _no_constructor_signature)
