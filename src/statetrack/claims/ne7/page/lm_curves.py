"""A language model's curves as rows, one per point: the smoothed training loss by step and the test perplexity by
position (the figures' and the explorer's input).

Used in: notebooks/ne7_language_modelling.md, tests/test_page_readings_ne7_x2.py.
"""

from __future__ import annotations

import math
from typing import Any

from statetrack.claims.ne7 import claim as ne7

def panel_order(corpora: set[str]) -> list[str]:
    """The corpora's panels in reading order: code, docs, then any other corpus by name."""
    return [c for c in ("code", "docs") if c in corpora] + sorted(set(corpora) - {"code", "docs"})


def loss_points(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per trained run and logged step: cell, seed, step and the training loss smoothed by ``claims.ne7.smoothed``."""
    return [{**ne7.cell_of(r), "seed": r["config"]["seed"], "step": step, "loss": loss}
            for r in records if r["status"] == "ok"
            for step, loss in zip(r["history"]["step"], ne7.smoothed(r["history"]["loss"]))]


def position_points(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per trained run and position bin of its test windows: cell, seed, position (the bin's end) and the perplexity
    exp(mean loss) there."""
    return [{**ne7.cell_of(r), "seed": r["config"]["seed"], "position": end, "ppl": math.exp(loss)}
            for r in records if r["status"] == "ok"
            for end, loss in zip(r["by_length"]["length"], r["by_length"]["loss"])]


__all__ = ["loss_points", "panel_order", "position_points"]
