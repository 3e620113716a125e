"""Every claim notebook: paired and output-free, runs at the smoke preset, and reruns identically under nbval."""

import json
import re
import subprocess
import sys

import jupytext
import nbformat
import pytest

from statetrack.claims import CLAIMS, implemented
from statetrack.results import repo_root

pytestmark = pytest.mark.notebooks
NOTEBOOKS = repo_root() / "notebooks"
VERDICT = re.compile(r"^(\w+) verdict \((smoke|quick|paper)\): (REPRODUCED|NOT REPRODUCED): (\d+)/(\d+) runs", re.M)


@pytest.mark.parametrize("claim", implemented())
def test_pair_is_in_sync_and_output_free(claim):
    stem = CLAIMS[claim].notebook
    md, ipynb = NOTEBOOKS / f"{stem}.md", NOTEBOOKS / f"{stem}.ipynb"
    assert md.exists() and ipynb.exists(), "each claim has a .md source and its paired .ipynb (for Colab)"
    stored = nbformat.read(ipynb, as_version=4)
    assert all(not c.get("outputs") and c.get("execution_count") is None
               for c in stored.cells if c.cell_type == "code"), f"{ipynb.name} holds outputs"
    source = jupytext.read(md)
    assert [(c.cell_type, c.source) for c in source.cells] == [(c.cell_type, c.source) for c in stored.cells], \
        f"{ipynb.name} is out of sync with {md.name}: run `jupytext --sync {md}`"
    params = [c for c in source.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1 and "PRESET = \"quick\"" in params[0].source


def _outputs_text(nb) -> str:
    return "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))


@pytest.mark.parametrize("claim", implemented())
def test_smoke_run_prints_a_verdict(smoke_runs, claim):
    nb = nbformat.read(smoke_runs.executed(claim), as_version=4)
    results_dir = smoke_runs.results
    m = VERDICT.search(_outputs_text(nb))
    assert m and m.group(1) == claim and m.group(2) == "smoke"
    assert list((results_dir / claim).glob("*.json")), "the smoke run wrote its records to the temporary folder"
    assert not any(o.get("output_type") == "error" for c in nb.cells for o in c.get("outputs", []))


@pytest.mark.parametrize("claim", implemented())
def test_nbval_rerun_matches(smoke_runs, claim, tmp_path):
    """nbval reruns the executed notebook and compares the cells marked to be checked (the verdict line)."""
    executed, results_dir = smoke_runs.executed(claim), smoke_runs.results
    ini = tmp_path / "pytest.ini"
    ini.write_text("[pytest]\n")
    env_cmd = [sys.executable, "-m", "pytest", "-c", str(ini), "-p", "no:cacheprovider", "-q", "--nbval-lax",
               "--nbval-current-env", "--nbval-cell-timeout=300", str(executed)]
    import os

    env = {**os.environ, "STATETRACK_RESULTS_DIR": str(results_dir)}
    env.pop("MPLBACKEND", None)
    out = subprocess.run(env_cmd, capture_output=True, text=True, env=env, cwd=NOTEBOOKS)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert re.search(r"\d+ passed", out.stdout)


def test_parameters_cell_holds_literals_only():
    import ast

    for claim in implemented():
        nb = jupytext.read(NOTEBOOKS / f"{CLAIMS[claim].notebook}.md")
        cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
        for node in ast.parse(cell.source).body:
            assert isinstance(node, ast.Assign)
            ast.literal_eval(node.value)  # raises if not a literal
    json.dumps(implemented())
