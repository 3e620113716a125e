"""What a page reads off a claim's grid of run configs (not its records): the training recipe and lengths as its
prose and figures name them.

- ``recipe_values``: the distinct weight decays and warm-up fractions of a grid's training, as text.
- ``train_lengths``: a cell field's value → the longest training length of the grid's runs with it (the shading of
  a length figure).

Used in: ``claims.ne1.page``, ``claims.ne3.page``, ``claims.ne4.page``, ``claims.ne5.page``, notebooks ne1 and ne6,
tests/test_grids.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

def recipe_values(grid: Sequence[Any], prefix: str = "quick") -> dict[str, str]:
    """``<prefix>_weight_decay`` and ``<prefix>_warmup``: the distinct weight decays and warm-up fractions (of the
    steps) of the runs' training, each joined by "or" ("0.01", "5% or 10%")."""
    trains = [c.train for c in grid]
    decay = " or ".join(f"{w:g}" for w in sorted({t.weight_decay for t in trains}))
    warmup = " or ".join(f"{f:.0%}" for f in sorted({t.warmup_steps / t.num_steps for t in trains}))
    return {f"{prefix}_weight_decay": decay, f"{prefix}_warmup": warmup}


def train_lengths(grid: Sequence[Any], cell_of: Callable[[dict[str, Any]], dict[str, Any]], field: str
                  ) -> dict[str, int]:
    """The cell field ``field`` (e.g. a variant, a setting) → the longest training length of the ``grid``'s runs
    with that value; ``cell_of`` is the claim's (record → cell), read on each run config as a record holds it."""
    out: dict[str, int] = {}
    for c in grid:
        key = cell_of({"config": c.to_dict()})[field]
        out[key] = max(out.get(key, 0), c.train.max_len)
    return out


__all__ = ["recipe_values", "train_lengths"]
