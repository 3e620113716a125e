"""The book's launch buttons (Binder, Colab, the repository) and the set-up cell that lets a claim notebook run on Colab.

Every claim notebook's first code cell is ``SETUP_CELL`` (tag ``colab-setup``, folded on the page). Where statetrack
is not importable (Colab) it clones ``SOURCE`` and runs notebooks/colab_setup.py at ``COMMIT``; elsewhere it does
nothing. The two values are empty in the committed notebooks and written by ``fill_setup_cells``: into the staged
notebooks when the book is built (``book.stage``), so a page shows and downloads its repository and commit, and into
the notebooks of the ``launch`` branch, which the publishing workflow pushes for every build and the launch buttons
open. Colab opens a notebook from GitHub as it is committed, so the values must be in the file it opens; the
environment variable ``STATETRACK_SOURCE`` (a git URL or a local clone) overrides ``SOURCE``, as .ci/colab_check does.

Imports nothing of the package: the publishing workflow runs ``python -m statetrack.site.launch`` without installing it.

Used in: ``statetrack.site.book.stage``, .github/workflows/book.yml, tests/test_launch.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

#: the branch the launch buttons open: the build's commit with its notebooks' set-up cells filled in
LAUNCH_BRANCH = "launch"
SETUP_TAG = "colab-setup"
UNFILLED = 'SOURCE, COMMIT = "", ""'
SETUP_CELL = f"""\
# Colab: install statetrack at the commit this page was built from (a few minutes; Colab's torch is kept) and
# change into its notebooks/ folder. Wherever statetrack is importable (a checkout, Binder, the book) it does nothing.
{UNFILLED}  # the repository and commit, written by the book build
import importlib.util, os, subprocess, sys
if importlib.util.find_spec("statetrack") is None:
    SOURCE = os.environ.get("STATETRACK_SOURCE", SOURCE)  # a git URL or a local clone
    if not SOURCE:
        sys.exit("statetrack is not installed: open this notebook from a claim page's Colab button")
    if not os.path.isdir("statetrack"):
        subprocess.run(["git", "clone", "-q", SOURCE, "statetrack"], check=True)
    sys.path.insert(0, os.path.abspath("statetrack/notebooks"))
    import colab_setup
    colab_setup.install("statetrack", COMMIT)"""


def repository() -> str | None:
    """The GitHub repository ``owner/name`` of ``STATETRACK_REPOSITORY`` (the publishing workflow sets it), or None."""
    repo = os.environ.get("STATETRACK_REPOSITORY", "").strip()
    if not repo:
        return None
    if repo.count("/") != 1 or not all(repo.split("/")):
        raise ValueError(f"STATETRACK_REPOSITORY={repo!r} is not allowed: expected owner/name")
    return repo


def build_commit(root: Path) -> str:
    """The commit the book is built from: ``STATETRACK_COMMIT``, else ``GITHUB_SHA`` (GitHub Actions), else the
    checkout's HEAD."""
    commit = os.environ.get("STATETRACK_COMMIT") or os.environ.get("GITHUB_SHA")
    if not commit:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True)
        commit = out.stdout.strip() if out.returncode == 0 else ""
    if not commit:
        raise ValueError(f"{root} is not a git checkout: set STATETRACK_COMMIT to the commit the book is built from")
    return commit


def launch_target(root: Path) -> tuple[str, str] | None:
    """(the repository's clone URL, the build's commit) for the set-up cells, or None without a repository."""
    repo = repository()
    return None if repo is None else (f"https://github.com/{repo}", build_commit(root))


def add_launch_buttons(config: Path) -> None:
    """With ``STATETRACK_REPOSITORY=owner/name`` set, point the staged config at that GitHub repository and its
    ``launch`` branch, and turn on the Binder and Colab buttons of each claim page's paired ``.ipynb``. Without it
    the book has no launch buttons and no repository button (a local build knows no public address)."""
    repo = repository()
    text = config.read_text()
    if repo is None:
        config.write_text(text.replace("use_repository_button: true", "use_repository_button: false"))
        return
    text = text.replace('binderhub_url: ""', 'binderhub_url: "https://mybinder.org"')
    text = text.replace('colab_url: ""', 'colab_url: "https://colab.research.google.com"')
    text += f"\nrepository:\n  url: https://github.com/{repo}\n  branch: {LAUNCH_BRANCH}\n"
    config.write_text(text)


def fill_setup_cells(paths: list[Path], source: str, commit: str) -> None:
    """Write ``source`` and ``commit`` into the set-up cell of each ``.ipynb`` in ``paths``."""
    filled = f"SOURCE, COMMIT = {json.dumps(source)}, {json.dumps(commit)}"
    for path in map(Path, paths):
        nb = json.loads(path.read_text())
        cells = [c for c in nb["cells"] if SETUP_TAG in c.get("metadata", {}).get("tags", [])]
        text = "".join(cells[0]["source"]) if cells else ""
        if UNFILLED not in text:
            raise ValueError(f"{path} has no unfilled set-up cell (tag {SETUP_TAG!r} holding {UNFILLED!r})")
        cells[0]["source"] = text.replace(UNFILLED, filled).splitlines(keepends=True)
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")


def main(argv: list[str]) -> None:
    """``python -m statetrack.site.launch NOTEBOOK.ipynb...``: fill their set-up cells for this checkout's commit."""
    target = launch_target(Path.cwd())
    if target is None:
        sys.exit("set STATETRACK_REPOSITORY=owner/name: the set-up cells need the repository to clone")
    fill_setup_cells([Path(p) for p in argv], *target)


if __name__ == "__main__":
    main(sys.argv[1:])
