"""What a page reads off a grid (``display.grids``), against settings counted by hand."""

from __future__ import annotations

from types import SimpleNamespace

from statetrack.display.grids import recipe_values, train_lengths
from statetrack.claims.ne6 import claim as ne6


def test_recipe_values_join_the_distinct_settings():
    train = [SimpleNamespace(weight_decay=w, warmup_steps=s, num_steps=n) for w, s, n in
             ((0.01, 25, 500), (0.1, 100, 1000), (0.01, 50, 1000))]
    grid = [SimpleNamespace(train=t) for t in train]
    assert recipe_values(grid, "paper") == {"paper_weight_decay": "0.01 or 0.1", "paper_warmup": "5% or 10%"}


def test_train_lengths_take_the_longest_per_value_of_the_field():
    grid = [SimpleNamespace(to_dict=lambda v=v: {"v": v}, train=SimpleNamespace(max_len=n))
            for v, n in (("a", 32), ("a", 40), ("b", 64))]
    assert train_lengths(grid, lambda r: {"variant": r["config"]["v"]}, "variant") == {"a": 40, "b": 64}


def test_train_lengths_of_ne6_are_32_and_64_and_64_for_two_tokens():
    """NE Fig. 8's settings: trained to length 32 or 64, and the two-token encoding to 64 (32 at quick)."""
    assert train_lengths(ne6.grid("paper"), ne6.cell_of, "setting") == {"L32": 32, "L64": 64, "2tokens": 64}
    assert train_lengths(ne6.grid("quick"), ne6.cell_of, "setting") == {"L32": 32, "2tokens": 32}
