"""The smoke preset never writes into data/results: a fresh clone's `statetrack reproduce <claim> --preset smoke`
leaves its data/ folder exactly as committed, ignored files included (records, locks)."""

import os
import subprocess
import sys

import pytest

from statetrack.runs.provenance import repo_root


def _git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


@pytest.mark.skipif(not (repo_root() / ".git").exists(), reason="needs the project's git checkout")
def test_smoke_in_a_fresh_clone_writes_nothing_under_data(tmp_path):
    clone = tmp_path / "clone"
    _git("clone", "-q", "--no-hardlinks", str(repo_root()), str(clone), cwd=tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("STATETRACK_")}  # the defaults, as a user has them
    env["PYTHONPATH"] = str(clone / "src")  # the clone's own package (and so its own data/results)
    ran = subprocess.run([sys.executable, "-m", "statetrack", "reproduce", "bl8", "--preset", "smoke", "--workers", "1"],
                         cwd=clone, env=env, capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    assert str(clone / "src") in subprocess.run(
        [sys.executable, "-c", "import statetrack; print(statetrack.__file__)"], env=env, capture_output=True,
        text=True).stdout  # the run used the clone's package, not this checkout's
    assert _git("status", "--porcelain", "--ignored", "--untracked-files=all", "--", "data", cwd=clone) == ""
    assert list((clone / "_build" / "smoke-results").rglob("*.json"))  # the smoke records went to the scratch folder
