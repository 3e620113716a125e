"""The set-up cell every claim notebook starts with, how the build fills it, and the launch buttons' config.

The cell's install path itself (a fresh venv, a local clone) is .ci/colab_check's: it installs packages.
"""

import json
import shutil
import sys

import jupytext
import pytest
import yaml

from statetrack.verdicts.registry import CLAIMS
from statetrack.runs.store import repo_root
from statetrack.site.launch import (SETUP_CELL, SETUP_TAG, LAUNCH_BRANCH, add_launch_buttons, fill_setup_cells,
                                    launch_target)

NOTEBOOKS = repo_root() / "notebooks"


@pytest.mark.parametrize("claim", list(CLAIMS))
def test_each_notebook_starts_with_the_folded_set_up_cell(claim):
    nb = jupytext.read(NOTEBOOKS / f"{CLAIMS[claim].notebook}.md")
    first = next(c for c in nb.cells if c.cell_type == "code")
    assert first.source == SETUP_CELL, "the first code cell is not statetrack.site.launch.SETUP_CELL"
    assert {"hide-cell", SETUP_TAG} <= set(first.metadata.get("tags", []))


def test_where_statetrack_is_importable_the_cell_does_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("STATETRACK_SOURCE", str(tmp_path / "nowhere"))
    path = list(sys.path)
    exec(SETUP_CELL, {})
    assert list(tmp_path.iterdir()) == [] and sys.path == path


def _notebook(tmp_path):
    src = NOTEBOOKS / f"{CLAIMS['ne1'].notebook}.ipynb"
    return shutil.copy2(src, tmp_path / src.name)


def test_the_build_fills_the_repository_and_commit(tmp_path):
    path = _notebook(tmp_path)
    fill_setup_cells([path], "https://github.com/someone/statetrack", "0123abc")
    nb = json.loads(path.read_text())
    cell = next(c for c in nb["cells"] if SETUP_TAG in c["metadata"].get("tags", []))
    namespace = {}
    exec("".join(cell["source"]), namespace)  # statetrack is importable here: the cell only sets its two values
    assert (namespace["SOURCE"], namespace["COMMIT"]) == ("https://github.com/someone/statetrack", "0123abc")
    others = [c for c in nb["cells"] if c is not cell]
    assert others == [c for c in json.loads((NOTEBOOKS / path.name).read_text())["cells"] if c["id"] != cell["id"]]
    with pytest.raises(ValueError, match="no unfilled set-up cell"):
        fill_setup_cells([path], "https://github.com/someone/statetrack", "0123abc")


def test_launch_target_needs_a_repository_and_names_the_commit(tmp_path, monkeypatch):
    monkeypatch.delenv("STATETRACK_REPOSITORY", raising=False)
    assert launch_target(repo_root()) is None
    monkeypatch.setenv("STATETRACK_REPOSITORY", "someone/statetrack")
    monkeypatch.setenv("STATETRACK_COMMIT", "feed42")
    assert launch_target(repo_root()) == ("https://github.com/someone/statetrack", "feed42")
    monkeypatch.delenv("STATETRACK_COMMIT")
    monkeypatch.delenv("GITHUB_SHA", raising=False)
    with pytest.raises(ValueError, match="not a git checkout"):
        launch_target(tmp_path)


def test_the_repository_button_is_on_only_with_a_repository(tmp_path, monkeypatch):
    cfg = tmp_path / "_config.yml"
    shutil.copy2(repo_root() / "_config.yml", cfg)
    assert yaml.safe_load(cfg.read_text())["html"]["use_repository_button"] is True
    monkeypatch.delenv("STATETRACK_REPOSITORY", raising=False)
    add_launch_buttons(cfg)
    local = yaml.safe_load(cfg.read_text())
    assert local["html"]["use_repository_button"] is False and "repository" not in local
    shutil.copy2(repo_root() / "_config.yml", cfg)
    monkeypatch.setenv("STATETRACK_REPOSITORY", "someone/statetrack")
    add_launch_buttons(cfg)
    published = yaml.safe_load(cfg.read_text())
    assert published["html"]["use_repository_button"] is True
    # no path_to_book: the theme would put "./" into every launch URL
    assert published["repository"] == {"url": "https://github.com/someone/statetrack", "branch": LAUNCH_BRANCH}
    assert published["launch_buttons"]["colab_url"] == "https://colab.research.google.com"
    assert published["launch_buttons"]["binderhub_url"] == "https://mybinder.org"


def test_colab_gets_the_pinned_stack_without_torch_and_test_tools():
    sys.path.insert(0, str(NOTEBOOKS))
    try:
        import colab_setup
    finally:
        sys.path.remove(str(NOTEBOOKS))
    got = colab_setup.requirements(repo_root())
    names = {r.split("==")[0] for r in got}
    assert not names & {"torch", "pytest", "playwright", "nbval"}
    pinned = [line.split("#")[0].strip() for line in (repo_root() / "requirements.txt").read_text().splitlines()]
    assert any(r.startswith("jupyter-book==") for r in got) and set(got) <= set(pinned) and all("==" in r for r in got)
