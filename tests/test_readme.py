"""Every command in the README's bash blocks, run as written (its examples are part of the contract).

Set-up commands (make, conda, pip, git, python -m venv, .ci/run) are what CI itself runs, so they are
listed and skipped here; a command listed twice runs once. The others run in a temporary folder (with the repository's notebooks linked in and
an isolated results folder) and must end as the README says: exit 0, or, on a machine without what
they ask for, exit 2 with a one-line reason (no CUDA, no Slurm, the paper preset on a CPU without
--confirm-long).
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from statetrack.runs.store import repo_root

SETUP = ("make ", "conda ", "pip ", "git ", "python3 -m venv", "cd ", ".ci/")
MAX_LINES = 120


def readme_commands() -> list[str]:
    text = (repo_root() / "README.md").read_text()
    out = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        for cmd in block.replace("\\\n", " ").splitlines():
            cmd = re.sub(r"(^|\s)#.*$", "", cmd).strip()  # a comment, alone or after the command
            if cmd:
                out.append(cmd)
    return out


def expected_failure(cmd: str) -> str | None:
    """Why a README command may stop with exit 2 on this machine (None: it must succeed)."""
    if "--device cuda" in cmd and not torch.cuda.is_available():
        return "CUDA is not available"
    if "--executor slurm" in cmd and "--dry-run" not in cmd:
        return "sbatch was not found"
    if "--preset paper" in cmd and "sweep" in cmd and "--dry-run" not in cmd and not torch.cuda.is_available():
        return "--confirm-long"
    return None


COMMANDS = list(dict.fromkeys(c for c in readme_commands() if not c.startswith(SETUP)))


@pytest.mark.parametrize("start", ["make test ", "make book ", "statetrack train ", "statetrack verify ",
                                   "statetrack sweep all --preset paper --dry-run", "make test-book ", ".ci/run "])
def test_readme_has_the_quick_start_paper_and_test_commands(start):
    assert any((c + " ").startswith(start) for c in readme_commands()), f"no README command starts with {start!r}"


def test_readme_is_at_most_120_lines():
    lines = (repo_root() / "README.md").read_text().splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines; at most {MAX_LINES} are allowed"


@pytest.mark.notebooks
@pytest.mark.parametrize("cmd", COMMANDS, ids=[c[:60] for c in COMMANDS])
def test_readme_command_runs_as_written(cmd, tmp_path):
    (tmp_path / "notebooks").symlink_to(repo_root() / "notebooks")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("MPLBACKEND", None)
    out = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=600)
    reason = expected_failure(cmd)
    if reason is None:
        assert out.returncode == 0, f"{cmd}\n{out.stdout[-1500:]}\n{out.stderr[-2500:]}"
    else:
        assert out.returncode == 2 and reason in out.stderr, f"{cmd}\n{out.stderr[-2500:]}"
        assert "Traceback" not in out.stderr
