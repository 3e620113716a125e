"""Shared fixtures. Every test writes run records into a temporary folder, never into data/results."""

import os

import pytest
import torch


@pytest.fixture(autouse=True)
def _isolated_results(tmp_path, monkeypatch):
    monkeypatch.setenv("STATETRACK_RESULTS_DIR", str(tmp_path / "results"))
    torch.set_num_threads(2)
    yield


@pytest.fixture(scope="session")
def executed_smoke(tmp_path_factory):
    """Every implemented claim notebook executed once by papermill at the smoke preset.

    Returns (folder of executed notebooks, results folder they wrote to).
    """
    from statetrack.book import execute_notebook
    from statetrack.claims import implemented

    root = tmp_path_factory.mktemp("smoke")
    saved = os.environ.get("STATETRACK_RESULTS_DIR")
    os.environ["STATETRACK_RESULTS_DIR"] = str(root / "results")
    try:
        for claim in implemented():
            execute_notebook(claim, "smoke", out_dir=root / "executed")
    finally:
        if saved is None:
            os.environ.pop("STATETRACK_RESULTS_DIR", None)
        else:
            os.environ["STATETRACK_RESULTS_DIR"] = saved
    return root / "executed", root / "results"
