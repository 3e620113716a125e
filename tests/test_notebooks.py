"""Every claim notebook: paired and output-free, and runs at the smoke preset printing its verdict.

Each notebook is executed once per session by papermill (``smoke_runs`` in conftest.py, the same executions
the book build uses); ``test_smoke_run_prints_a_verdict`` checks the executed notebook: a verdict line for this
claim at smoke, a record of every run of its smoke grid in the session's scratch folder, no error output.

There is no nbval rerun any more. It reran each executed notebook against the outputs it had just written,
loading the records that run had just stored: the code compared with itself, at the price of one more kernel
per claim, and nothing independent behind the comparison. What it caught otherwise is checked elsewhere: a
notebook that fails or hangs fails here (papermill, with a cell timeout); a rerun that would retrain is
``test_sweep``'s "a rerun trains nothing"; records that depend on the thread count are ``test_threads``'s.
nbval stays available by hand: ``pytest --nbval-lax --nbval-current-env _build/executed/<notebook>.ipynb``.
"""

import json
import re

import jupytext
import nbformat
import pytest

from statetrack.verdicts.registry import CLAIMS
from statetrack.runs.store import repo_root

pytestmark = pytest.mark.notebooks
NOTEBOOKS = repo_root() / "notebooks"
VERDICT = re.compile(r"^(\w+) verdict \((smoke|quick|paper)\): (REPRODUCED|SUPPORTED|PARTLY REPRODUCED|NOT REPRODUCED|"
                     r"UNDECIDED|NOT RUN AT THIS PRESET|OURS ONLY: \d+ OF \d+ HOLD)(?:, \d+ OF \d+ DECIDED)?: "
                     r"experiments: (?:(\d+)/(\d+) of the paper's hold|none of the paper's decided)", re.M)


@pytest.mark.parametrize("claim", list(CLAIMS))
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


@pytest.mark.parametrize("claim", list(CLAIMS))
def test_smoke_run_prints_a_verdict(smoke_runs, claim, monkeypatch):
    from statetrack.verdicts.registry import CLAIMS, get_claim
    from statetrack.runs.store import record_path

    nb = nbformat.read(smoke_runs.executed(claim), as_version=4)
    m = VERDICT.search(_outputs_text(nb))
    assert m and m.group(1) == claim and m.group(2) == "smoke"
    monkeypatch.setenv("STATETRACK_RESULTS_DIR", str(smoke_runs.results))
    missing = [str(record_path(c)) for c in get_claim(claim).grid("smoke") if not record_path(c).exists()]
    assert not missing, f"the smoke run did not write these records to the session's folder: {missing}"
    assert not any(o.get("output_type") == "error" for c in nb.cells for o in c.get("outputs", []))


def test_parameters_cell_holds_literals_only():
    import ast

    for claim in list(CLAIMS):
        nb = jupytext.read(NOTEBOOKS / f"{CLAIMS[claim].notebook}.md")
        cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
        for node in ast.parse(cell.source).body:
            assert isinstance(node, ast.Assign)
            ast.literal_eval(node.value)  # raises if not a literal
    json.dumps(list(CLAIMS))
