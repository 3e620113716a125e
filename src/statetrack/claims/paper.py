"""The papers' numbers for a claim's cells, read from ``data/paper``.

Used in: the claim modules' ``paper_rows`` (and through them ``paper_of``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from statetrack.runs.store import paper_numbers


def paper_lookup(tables: dict[str, str], key_of: Callable[[dict[str, Any]], Any]) -> dict[Any, dict[str, Any]]:
    """The papers' numbers for a claim, keyed by cell: ``{key: {"paper_<field>": value, ..., "paper_source": [...],
    "paper_ids": [row ids]}}``.

    ``tables``: ``data/paper`` table → the field its value fills, e.g. ``{"ne_table3": "best"}`` (a table whose rows
    carry a spread also fills ``paper_mad``); ``key_of``: a paper row → its cell key, or None to skip the row."""

    out: dict[Any, dict[str, Any]] = {}
    for table, column in tables.items():
        for row in paper_numbers(table):
            key = key_of(row)
            if key is None:
                continue
            entry = out.setdefault(key, {"paper_source": [], "paper_provenance": row["provenance"]})
            entry[f"paper_{column}"] = row["value"]
            if row.get("spread") is not None:
                entry["paper_mad"] = row["spread"]
            entry["paper_source"].append(row["source"])
            entry.setdefault("paper_ids", []).append(row["id"])
    return out


def bl_numbers(tables: Sequence[str], models: dict[str, Any], task: str | None = None) -> dict[tuple, dict[str, Any]]:
    """BL's numbers (``paper_best``) in ``tables`` by (our model, m of the setting "m=<m>"): ``models`` maps
    data/paper model names to ours; a row of another model, or of a task other than ``task`` (when given), is
    skipped."""
    def key(row):
        ok = row["model"] in models and task in (None, row["task"])
        return (models[row["model"]], int(row["setting"].removeprefix("m="))) if ok else None

    return paper_lookup(dict.fromkeys(tables, "best"), key)
