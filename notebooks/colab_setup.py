"""The install a claim notebook's first cell runs where statetrack is not importable (Colab).

The cell clones the repository into ``statetrack/`` and calls ``install``: it checks out the page's commit, installs
the package in editable mode without dependencies, then the pinned stack of requirements.txt except torch (Colab's
own build is kept) and the test-only tools, makes the package importable in the running kernel and changes into the
clone's notebooks/ folder, so the committed run records are found as in a checkout. Standard library only: it runs
before statetrack is importable.

Used in: the set-up cell of every claim notebook (tag ``colab-setup``; ``statetrack.site.launch``), .ci/colab_check.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import re
import subprocess
import sys
from pathlib import Path

#: requirements.txt's packages that Colab does not get: its own torch, and what only the tests and CI use.
SKIP = ("torch", "playwright", "pytest", "pytest-xdist", "execnet", "nbval", "submitit")
#: packages a Colab kernel may have loaded before this cell: a new version of one needs a restarted session.
LOADED = ("numpy", "pandas", "matplotlib")


def requirements(clone: Path) -> list[str]:
    """The pinned requirements of the clone's requirements.txt, less ``SKIP``."""
    out = []
    for line in (clone / "requirements.txt").read_text().splitlines():
        spec = line.split("#")[0].strip()
        name = re.split(r"[=<>!~\[ ;]", spec)[0].lower() if spec else ""
        if name and name not in SKIP:
            out.append(spec)
    return out


def install(clone: str | Path, commit: str = "") -> Path:
    """Check out ``commit`` (empty: keep the clone's), install the clone and change into its notebooks/; returns
    the clone's absolute path."""
    clone = Path(clone).resolve()
    if commit:
        subprocess.run(["git", "-C", str(clone), "checkout", "-q", commit], check=True)
    pip = [sys.executable, "-m", "pip", "install", "-q"]
    subprocess.run([*pip, "--no-deps", "-e", str(clone)], check=True)
    subprocess.run([*pip, *requirements(clone)], check=True)
    sys.path.insert(0, str(clone / "src"))  # the editable install is seen by new kernels only
    importlib.invalidate_caches()
    os.chdir(clone / "notebooks")
    changed = [m for m in LOADED if m in sys.modules and getattr(sys.modules[m], "__version__", None)
               != importlib.metadata.version(m)]
    if changed:
        print(f"statetrack is installed; {', '.join(changed)} changed version: restart the session "
              "(Runtime > Restart session) and run the notebook from the top")
    else:
        print(f"statetrack is installed from {clone}")
    return clone
