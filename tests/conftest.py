"""Shared fixtures. Every test writes run records into a temporary folder, never into data/results."""

import os

import pytest
import torch


@pytest.fixture(autouse=True)
def _isolated_results(tmp_path, monkeypatch):
    monkeypatch.setenv("STATETRACK_RESULTS_DIR", str(tmp_path / "results"))
    torch.set_num_threads(2)
    from statetrack.provenance import repo_root

    real = repo_root() / "data" / "results"
    before = sorted(p.relative_to(real).as_posix() for p in real.rglob("*.json"))
    yield
    after = sorted(p.relative_to(real).as_posix() for p in real.rglob("*.json"))
    new = sorted(set(after) - set(before))
    assert not new, f"a test wrote into data/results: {new}"


class SmokeRuns:
    """Claim notebooks executed by papermill at the smoke preset, each once per test session, on demand.

    ``runs.executed(claim)`` executes one claim's notebook (if not done yet) and returns its path;
    ``runs.folder`` holds the executed notebooks and ``runs.results`` the records they wrote. Executing
    on demand lets ``pytest -k bl1`` run one claim's notebook without the others.
    """

    def __init__(self, root):
        self.folder, self.results = root / "executed", root / "results"
        self._done: dict[str, object] = {}

    def _execute(self, claims, workers=1):
        """Execute ``claims``' notebooks, ``workers`` at a time. A smoke notebook takes seconds. Under heavy
        load we saw papermill wait forever for a cell (a widget cell) whose kernel had gone idle: a reply
        whose wake-up was missed. statetrack.kernel_client now re-polls for it; a cell timeout stays as a
        guard, and a notebook that hit it runs once more, alone, so any other hang is a rerun instead of a
        stuck suite."""
        from statetrack.book import NotebookError, execute_notebook, execute_notebooks

        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("STATETRACK_RESULTS_DIR", str(self.results))
            try:
                for claim, path, _ in execute_notebooks(list(claims), "smoke", workers=workers, out_dir=self.folder,
                                                        cell_timeout=300):
                    self._done[claim] = path
            except NotebookError as e:
                if "did not finish" not in str(e):
                    raise
            for claim in claims:
                if claim not in self._done:
                    self._done[claim] = execute_notebook(claim, "smoke", out_dir=self.folder, cell_timeout=300)[0]

    def executed(self, claim: str):
        if claim not in self._done:
            self._execute([claim])
        return self._done[claim]

    def all(self):
        """Every implemented claim executed, two at a time; returns (folder of executed notebooks, results folder)."""
        from statetrack.claims import implemented

        self._execute([c for c in implemented() if c not in self._done], workers=2)
        return self.folder, self.results


@pytest.fixture
def planned_claim(monkeypatch):
    """A registered claim without a notebook ("zz1"), as every claim was before it was built."""
    from statetrack.claims import CLAIMS, ClaimInfo

    monkeypatch.setitem(CLAIMS, "zz1", ClaimInfo("zz1", "NE", "Fig 0", "A claim not built yet"))
    return "zz1"


@pytest.fixture(scope="session")
def smoke_runs(tmp_path_factory):
    return SmokeRuns(tmp_path_factory.mktemp("smoke"))


@pytest.fixture(scope="session")
def built_site(smoke_runs, tmp_path_factory):
    """The HTML book built once per session from every claim notebook executed at smoke (test_book, test_browser)."""
    from statetrack.book import build_book

    folder, _ = smoke_runs.all()
    html, _ = build_book(executed=folder, output=tmp_path_factory.mktemp("site"))
    return html
