"""The run a figure shows for each cell of a spectra page (its first exact solution, else its first run) and that
run's readings.

Used in: notebooks/x2_eigenvalue_explorer.md (the spectra figures and the numbers their captions name),
tests/test_page_readings_ne7_x2.py.
"""

from __future__ import annotations

from typing import Any

from statetrack.claims.x2 import claim as x2

def by_panel(records: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The trained runs of each cell, keyed by the cell's panel label (``claims.x2.label``), in record order."""
    out: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        if r["status"] == "ok":
            out.setdefault(x2.label(x2.cell_of(r)), []).append(r)
    return out


def shown_run(cell_records: list[dict[str, Any]]) -> dict[str, Any]:
    """The run a figure shows for one cell: the first exact solution (``claims.x2.exact``), else the first."""
    solved = [r for r in cell_records if x2.exact(r)]
    return (solved or cell_records)[0]


def shown_seeds(records: list[dict[str, Any]]) -> dict[str, int]:
    """Panel label → the seed of the run its figure shows."""
    return {panel: shown_run(rs)["config"]["seed"] for panel, rs in by_panel(records).items()}


def reading(readings: list[dict[str, Any]], task: str, model: str, key: str, seed: int | None = None) -> float:
    """One number of a run's reading (``claims.x2.analyse``): the first read run of the cell (of ``seed``, if given);
    NaN when the cell did not run or the reading lacks ``key``."""
    hit = [a for a in readings if a["task"] == task and a["model"] == model
           and (seed is None or a["seed"] == seed) and not a["error"]]
    return float(hit[0].get(key, float("nan"))) if hit else float("nan")


def flip_split(readings: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The exact parity solutions ("exact") split by their flip score against ``claims.x2.flip_bound``: "flip" (a
    direction that token 1 flips and token 0 keeps) and "no flip" (a score above the bound)."""
    solving = [a for a in readings if a["task"] == "parity" and a["exact"] and not a["error"]]
    return {"exact": solving, "flip": [a for a in solving if a["spectral"] <= x2.flip_bound(a["length"])],
            "no flip": [a for a in solving if a["spectral"] > x2.flip_bound(a["length"])]}


__all__ = ["by_panel", "flip_split", "reading", "shown_run", "shown_seeds"]
