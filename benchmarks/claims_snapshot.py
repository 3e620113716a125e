"""A snapshot of what the claims layer decides, to hold a refactor of ``statetrack.claims`` to "nothing changed".

    python benchmarks/claims_snapshot.py DIR [IDS…]     # write DIR/<claim>.json for every implemented claim (or IDS)
    diff -r BEFORE AFTER                                # after the refactor: no output means no change

Per claim: the run keys of its grid at smoke, quick and paper (in grid order) and of its recorded pilots, its
statements, and its verdict at quick and paper from the committed records (``verdict.to_dict()``: every statement's
outcome, value and seeds, the cells' rows). The verdicts are those the records allow: a preset whose grid is not
fully recorded has none. About two minutes on 2 cores (the paper preset's exact parts of bl1, bl8 and ne3 dominate).

With the quick notebooks executed (``statetrack reproduce all --preset quick``, into ``_build/executed``), each
claim's snapshot also holds every value its notebook glues (``glued``: name → its text and Markdown outputs; a glued
figure by its output types only, since a PNG's bytes are not part of what the claims decide; a time measured here, or
the machine's name, as "<measured>").
"""

import json
from fnmatch import fnmatch
import sys
from dataclasses import asdict, is_dataclass
from pathlib import Path

from statetrack.site.book import executed_dir
from statetrack.verdicts.registry import CLAIMS, all_verdicts, get_claim
from statetrack.runs.store import run_key

PRESETS = ("smoke", "quick", "paper")


def _plain(value):
    """A statement (a dataclass, maybe holding tuples and sets) as JSON-ready data, in a stable order."""
    if is_dataclass(value):
        return _plain(asdict(value))
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted(map(_plain, value), key=repr)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)


def snapshot(claim_id: str) -> dict:
    claim = get_claim(claim_id)
    out = {"grids": {p: [run_key(c) for c in claim.grid(p)] for p in PRESETS}}
    if claim.pilot_grid is not None:
        out["pilots"] = [run_key(c) for c in claim.pilot_grid()]
    out["statements"] = _plain(claim.statements())
    out["verdicts"] = {p: v.to_dict() for p, v in all_verdicts(claim_id, ("quick", "paper")).items()}
    executed = executed_dir() / f"{CLAIMS[claim_id].notebook}.ipynb"
    if executed.exists():
        out["glued"] = glued(executed)
    return out


TEXT_TYPES = ("text/plain", "text/markdown", "text/html", "text/latex")
#: Glued values that measure this machine, not what the claims decide: written as "<measured>".
MEASURED = ("*_seconds", "device_name")


def glued(notebook: Path) -> dict:
    """Name → what a notebook glues under it (MyST-NB marks a glued output with ``metadata.scrapbook.name``; its
    types read ``application/papermill.record/<type>``)."""
    out = {}
    for cell in json.loads(notebook.read_text())["cells"]:
        for o in cell.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            if name is None:
                continue
            if any(fnmatch(name, pattern) for pattern in MEASURED):
                out[name] = "<measured>"
                continue
            data = o.get("data", {})
            out[name] = {k: ("".join(v) if isinstance(v, list) else v) if k.endswith(TEXT_TYPES) else "<binary>"
                         for k, v in sorted(data.items())}
    return out


def main(folder: str, ids: list[str]) -> None:
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    for claim_id in ids or list(CLAIMS):
        (root / f"{claim_id}.json").write_text(json.dumps(snapshot(claim_id), indent=1, sort_keys=True,
                                                          default=repr) + "\n")
        print(f"{claim_id}: written", flush=True)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: python benchmarks/claims_snapshot.py DIR [IDS…]")
    main(sys.argv[1], sys.argv[2:])
