"""The machine and software of a benchmark run (meta.json), and the pygbm code measured."""
from __future__ import annotations

import hashlib
import importlib
import os
import platform
import shutil
import sys
import time

from processes import REPO, cmd_out

#: Python libraries whose versions a run records (meta.json key: module)
LIBRARIES = {"numpy": "numpy", "pandas": "pandas", "sklearn": "sklearn",
             "lightgbm": "lightgbm", "numba": "numba"}


def _version(module: str) -> str:
    try:
        return importlib.import_module(module).__version__
    except ImportError:
        return "not installed"


def pygbm_fingerprint() -> str:
    """git commit + hash of pygbm's sources now (the code may change during a long run)."""
    h = hashlib.sha1()
    for root, _, files in sorted(os.walk(os.path.join(REPO, "pygbm"))):
        for name in sorted(f for f in files if f.endswith(".py")):
            with open(os.path.join(root, name), "rb") as fh:
                h.update(name.encode() + fh.read())
    return f"{cmd_out(['git', 'rev-parse', '--short', 'HEAD'])}+{h.hexdigest()[:8]}"


def machine_info() -> dict:
    """Hardware and software versions of this run."""
    cpu = mem = ""
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next((ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")),
                       "")
        with open("/proc/meminfo") as fh:
            mem = f"{int(fh.readline().split()[1]) / 1024**2:.1f} GB"
    except OSError:
        pass
    r_ver = cmd_out(["Rscript", "-e",
                     "cat(R.version.string, '| gbm', as.character(packageVersion('gbm')))"]) \
        if shutil.which("Rscript") else "not installed"
    return dict(date=time.strftime("%Y-%m-%d %H:%M"), nproc=os.cpu_count(), cpu=cpu, memory=mem,
                os=platform.platform(), python=platform.python_version(),
                **{key: _version(module) for key, module in LIBRARIES.items()}, r=r_ver,
                pygbm_commit=cmd_out(["git", "rev-parse", "--short", "HEAD"]),
                pygbm_dirty=bool(cmd_out(["git", "status", "--porcelain", "pygbm"])),
                command="python benchmarks/run.py " + " ".join(sys.argv[1:]))
