"""Shared fixtures. Every test writes run records and kept exact checks into a temporary folder, never into
data/results, data/retired or _build/cache, and runs with one torch thread."""

import os
from pathlib import Path

import pytest
import torch


def _json_files(folder: Path) -> set[str]:
    """The .json files under ``folder``, as relative posix paths (os.walk: a fifth of Path.rglob's time, and this
    runs twice per test)."""
    root, out = str(folder), set()
    for d, _, files in os.walk(root):
        rel = os.path.relpath(d, root).replace(os.sep, "/")
        out.update(f if rel == "." else f"{rel}/{f}" for f in files if f.endswith(".json"))
    return out


@pytest.fixture(autouse=True)
def _isolated_results(tmp_path, monkeypatch):
    monkeypatch.setenv("STATETRACK_RESULTS_DIR", str(tmp_path / "results"))
    # Kept exact checks (verdicts.check_cache) in the test's own folder: a test that patches a claim's sizes or
    # checks computes them afresh and keeps them from every other test and from the checkout's _build/cache.
    monkeypatch.setenv("STATETRACK_CACHE_DIR", str(tmp_path / "cache"))
    # One intra-op thread, as every CPU run of the package trains (runs.cpu_threads) and the theory checks
    # compute. The tests' tensors are small and most loops are per step: with two threads torch hands each tiny
    # op to its pool (log_sigmoid on 16 numbers: 0.003 ms with one thread, 0.2-0.5 ms with two), which made the
    # op, model and theory tests about three times slower on two cores (116 s against 37 s for ten modules).
    torch.set_num_threads(1)
    from statetrack.runs.provenance import repo_root

    stores = [repo_root() / "data" / name for name in ("results", "retired")]
    before = [_json_files(real) for real in stores]
    yield
    for real, had in zip(stores, before):
        new = sorted(_json_files(real) - had)
        assert not new, f"a test wrote into data/{real.name}: {new}"


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
        whose wake-up was missed. statetrack.site.kernel_client now re-polls for it; a cell timeout stays as a
        guard, and a notebook that hit it runs once more, alone, so any other hang is a rerun instead of a
        stuck suite."""
        from statetrack.site.book import NotebookError, execute_notebook, execute_notebooks

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
        from statetrack.verdicts.registry import CLAIMS

        self._execute([c for c in list(CLAIMS) if c not in self._done], workers=2)
        return self.folder, self.results


class SmokeTrained:
    """Each claim's smoke grid trained once per test session, in the folder the smoke notebooks use.

    ``smoke_trained(claim)`` trains the claim's grid at the smoke preset (``verdicts.registry.run_claim`` on the CPU, with the
    claim's default parameters) the first time this session asks, and returns its records in grid order: fresh
    copies each call, so a test may change them. The records live in ``smoke_trained.results`` (the folder of
    ``smoke_runs``), so a smoke notebook executed by ``smoke_runs`` loads them instead of training, and the other
    way round; a run two claims share (ne1's in ne4, bl1's in bl3) is trained once. ``smoke_trained.all()`` does
    every implemented claim and returns ``{claim: records}``.

    That folder belongs to the whole session: a test never writes into it or deletes from it. A test that needs
    the records as files (a sweep rerun that must train nothing, a kill test, an edited record) calls
    ``smoke_trained.copy_to(claims)``: every file of those claims' runs (records, and the weights x2 keeps) is
    copied, at the same relative path, into ``results_dir()`` (the test's own temporary folder, set by
    ``_isolated_results``) or ``dest``; it returns that folder.
    """

    def __init__(self, results):
        self.results = results
        self._records: dict[str, list[dict]] = {}

    def __call__(self, claim: str) -> list[dict]:
        import copy

        from statetrack.verdicts.registry import CLAIMS, run_claim

        if claim not in self._records:
            with pytest.MonkeyPatch.context() as mp:
                mp.setenv("STATETRACK_RESULTS_DIR", str(self.results))
                self._records[claim] = run_claim(claim, "smoke", device="cpu")
        return copy.deepcopy(self._records[claim])

    def all(self) -> dict[str, list[dict]]:
        from statetrack.verdicts.registry import CLAIMS

        return {claim: self(claim) for claim in list(CLAIMS)}

    def copy_to(self, claims, dest=None):
        import shutil

        from statetrack.runs.store import results_dir

        dest = Path(dest or results_dir())
        keys = {r["key"] for claim in ([claims] if isinstance(claims, str) else claims) for r in self(claim)}
        for path in self.results.rglob("*"):
            parts = path.relative_to(self.results).parts
            if path.is_file() and not any(x.startswith(".") for x in parts) and path.stem.rsplit("-", 1)[-1] in keys:
                (dest / path.relative_to(self.results)).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, dest / path.relative_to(self.results))
        return dest


@pytest.fixture(scope="session")
def smoke_runs(tmp_path_factory):
    return SmokeRuns(tmp_path_factory.mktemp("smoke"))


@pytest.fixture(scope="session")
def smoke_trained(smoke_runs):
    """``SmokeTrained``: a claim's smoke records, trained once per session (shared with the smoke notebooks)."""
    return SmokeTrained(smoke_runs.results)


@pytest.fixture(scope="session")
def built_site(smoke_runs, tmp_path_factory):
    """The HTML book built once per session from every claim notebook executed at smoke (test_book, test_browser)."""
    from statetrack.site.book import build_book

    folder, _ = smoke_runs.all()
    html, _ = build_book(executed=folder, output=tmp_path_factory.mktemp("site"))
    return html
