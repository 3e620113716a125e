"""The README's Layout block against the repository's tree, in both directions.

Every folder the block lists exists; every top-level folder that git tracks is listed (itself, or, for a folder
such as data/ that is listed by its subfolders, each tracked subfolder); every sub-package of src/statetrack/ is
listed. The tree is read from ``git ls-files`` and the file system, not from the README.
"""

import re
import shutil
import subprocess

import pytest

from statetrack.runs.store import repo_root


def layout_paths() -> list[str]:
    """The folders the README's Layout block lists, one per line: the first word of each line."""
    text = (repo_root() / "README.md").read_text()
    section = re.search(r"^## Layout\n(.*?)(?=^## )", text, flags=re.S | re.M)
    assert section, "README.md has no '## Layout' section"
    block = re.search(r"^```\n(.*?)^```", section.group(1), flags=re.S | re.M)
    assert block, "README.md's Layout section has no plain ``` block"
    return [line.split()[0] for line in block.group(1).splitlines() if line.strip()]


def tracked_folders() -> set[str]:
    """Every folder that holds a file git tracks, as 'a/b/' (all depths)."""
    if shutil.which("git") is None or not (repo_root() / ".git").exists():
        pytest.skip("not a git checkout: the tracked tree is unknown")
    files = subprocess.run(["git", "ls-files"], cwd=repo_root(), capture_output=True, text=True,
                           check=True).stdout.splitlines()
    return {"/".join(f.split("/")[:depth]) + "/" for f in files for depth in range(1, f.count("/") + 1)}


def test_every_listed_path_is_a_folder_of_the_repository():
    paths = layout_paths()
    assert len(paths) == len(set(paths)), f"listed twice: {sorted(p for p in paths if paths.count(p) > 1)}"
    bad = [p for p in paths if not p.endswith("/") or not (repo_root() / p).is_dir()]
    assert not bad, f"the Layout lists folders that do not exist (or lack their trailing /): {bad}"


def test_every_tracked_top_level_folder_is_listed():
    listed = set(layout_paths())
    folders = tracked_folders()
    missing = []
    for top in sorted(f for f in folders if f.count("/") == 1):
        if top in listed:
            continue
        subfolders = sorted(f for f in folders if f.startswith(top) and f.count("/") == 2)
        if not any(p.startswith(top) for p in listed) or not subfolders:
            missing.append(top)
        else:  # listed by its subfolders: then by every one
            missing += [f for f in subfolders if f not in listed and not any(p.startswith(f) for p in listed)]
    assert not missing, f"tracked folders the README's Layout does not list: {missing}"


def test_every_subpackage_of_the_package_is_listed():
    listed = set(layout_paths())
    package = repo_root() / "src" / "statetrack"
    subpackages = sorted(f"src/statetrack/{d.name}/" for d in package.iterdir() if (d / "__init__.py").is_file())
    assert subpackages, "src/statetrack/ has no sub-packages: the test reads the wrong folder"
    assert "src/statetrack/" in listed, "the Layout does not list the core, src/statetrack/"
    missing = [p for p in subpackages if p not in listed]
    assert not missing, f"sub-packages of src/statetrack/ the README's Layout does not list: {missing}"
