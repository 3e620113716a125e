"""What the verdict rules changed: every claim's word and every statement's outcome at a baseline commit beside now.

The baseline is the committed claims snapshot (``benchmarks/claims_snapshot/<id>.json``, written by
``benchmarks/claims_snapshot.py`` at ``BASELINE``): its verdicts at quick and paper. Each change is put down to the
rule behind it, computed from the two statements (``cause``), never typed by hand.

Used in: ``statetrack.site.book`` (the generated page ``book/_generated/verdict_changes.md``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from statetrack.verdicts.registry import CLAIMS, all_verdicts
from statetrack.runs.provenance import repo_root

BASELINE = "b85c6f8"
PRESETS = ("quick", "paper")


def baseline(claim_id: str) -> dict[str, dict[str, Any]]:
    """The baseline's verdicts of ``claim_id`` by preset (empty where the snapshot has none)."""
    path = repo_root() / "benchmarks" / "claims_snapshot" / f"{claim_id}.json"
    return json.loads(path.read_text()).get("verdicts", {}) if path.exists() else {}


def cause(before: dict[str, Any] | None, after: dict[str, Any] | None) -> str:
    """The rule behind one statement's change of outcome, from the statement before and after."""
    if before is None:
        return "new statement: a cell run at this preset, or a paper row given its own statement"
    if after is None:
        return "withdrawn: its paper row is judged by one statement only, elsewhere, or it was renamed"
    if after["outcome"] == "not fitted":
        return "no failure without a fit"
    if after["outcome"] == "inconclusive":
        return "a pre-declared paired sign test"
    if after.get("implementation"):
        return "an implementation check: no mutation of the paper's setting fails it; counted apart"
    if before["ours"] != after["ours"]:
        return "one reading per paper row: a setting other than the paper's is ours"
    if before["statistic"] != after["statistic"]:
        return "the paper's statistic"
    if (before.get("threshold"), before.get("op")) != (after.get("threshold"), after.get("op")):
        return "a rule changed"
    if after["outcome"] == "not run" and before["outcome"] != "not run":
        return "judged only where the paper's setting runs (one reading per paper row)"
    if before["outcome"] == "not run" and after["outcome"] != "not run":
        return "its cells now run at this preset, on the fresh verdict seeds"
    return "fresh verdict seeds (1000–1002), one retrain"


def _word_cause(before: dict[str, Any] | None, after: dict[str, Any] | None, changed: list[str]) -> str:
    if before is None or after is None:
        return "run at this preset" if after is not None else "no longer run at this preset"
    if not changed:
        return "the word comes from experiments alone (theory tallied apart)"
    return "its statements' changes"


def rows(claim_id: str) -> list[dict[str, Any]]:
    """One row per (preset, statement) whose outcome differs, and one per preset whose word differs."""
    old = baseline(claim_id)
    new = {p: v.to_dict() for p, v in all_verdicts(claim_id, PRESETS).items()}
    out = []
    for preset in PRESETS:
        b, a = old.get(preset), new.get(preset)
        bs = {s["id"]: s for s in (b or {}).get("statements", [])}
        as_ = {s["id"]: s for s in (a or {}).get("statements", [])}
        changed = []
        for sid in list(dict.fromkeys([*bs, *as_])):
            x, y = bs.get(sid), as_.get(sid)
            ox, oy = (x or {}).get("outcome", "–"), (y or {}).get("outcome", "–")
            if ox == oy and x is not None and y is not None and x["ours"] == y["ours"]:
                continue
            changed.append(sid)
            out.append({"claim": claim_id, "preset": preset, "statement": sid, "before": ox, "after": oy,
                        "rule": cause(x, y)})
        wb, wa = (b or {}).get("verdict", "–"), (a or {}).get("verdict", "–")
        if wb != wa:
            out.insert(len(out) - len(changed), {"claim": claim_id, "preset": preset, "statement": "(word)",
                                                 "before": wb, "after": wa, "rule": _word_cause(b, a, changed)})
    return out


def words() -> list[dict[str, Any]]:
    """Every claim's word at quick and paper, at the baseline and now."""
    out = []
    for c in CLAIMS.values():
        old, new = baseline(c.id), all_verdicts(c.id, PRESETS)
        out.append({"claim": c.id, **{f"{p} {BASELINE}": old.get(p, {}).get("verdict", "–") for p in PRESETS},
                    **{f"{p} now": new[p].word if p in new else "–" for p in PRESETS}})
    return out


def changes_markdown() -> str:
    """The generated page's body: the words, then every changed outcome with its rule."""
    def table(items: list[dict[str, Any]]) -> list[str]:
        if not items:
            return ["(none)"]
        cols = list(items[0])
        return ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)] + \
            ["| " + " | ".join(str(r[k]) for k in cols) + " |" for r in items]

    lines = ["## Every claim's word", "", *table(words()), "", "## Every statement whose outcome changed", ""]
    for c in CLAIMS.values():
        lines += [f"### {c.id}", "", *table([{k: v for k, v in r.items() if k != "claim"} for r in rows(c.id)]), ""]
    return "\n".join(lines) + "\n"
