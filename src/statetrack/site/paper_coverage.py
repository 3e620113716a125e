"""Which statement judges each row of ``data/paper/``, where it is decided, and the rows no statement judges, with why.

Every row has an ``id``; a statement names the rows it judges in ``Statement.reads`` and a row is judged by one
statement at most (tests/test_paper_rows.py). A row judged by none gets the reason of its table's first matching
``UNJUDGED`` prefix.

Used in: ``statetrack.site.book`` (the generated table on the page *What the papers report*),
tests/test_paper_rows.py.
"""

from __future__ import annotations

import csv
from typing import Any

from statetrack.verdicts.registry import CLAIMS, all_verdicts, get_claim
from statetrack.runs.store import paper_dir

#: id prefix → why rows under it are judged by no statement (the first matching prefix wins)
UNJUDGED = {
    "ne-t4-": "NE's language-model scores at their scale (perplexities and zero-shot accuracies of models trained on "
              "billions of tokens) are out of this project's reach; the language-modelling claim judges NE's "
              "directions instead, on byte-level models",
    "ne-t5-": "NE Table 5 reports the median of the seeds that Table 3 reports the best of; each cell is judged once, "
              "on the statistic its statement names",
    "ne3-thm1-": "Theorem 1 speaks of arbitrarily long words and bounds no finite length; ne3's sign statement at the "
                 "paper preset's longest test length stands in for it, as ours",
    "bl-": "BL's number for a model, task or size no claim trains at any preset",
    "ne-": "NE's number for a model or setting no claim trains at any preset",
}


def rows() -> list[dict[str, str]]:
    """Every row of every file in ``data/paper/``, with its ``file`` (the file's stem)."""
    out = []
    for path in sorted(paper_dir().glob("*.csv")):
        with path.open(newline="") as f:
            out += [{**r, "file": path.stem} for r in csv.DictReader(f)]
    return out


def readers() -> dict[str, list[str]]:
    """Row id → the statements ("claim.statement") that judge it."""
    out: dict[str, list[str]] = {}
    for c in CLAIMS.values():
        for s in get_claim(c.id).statements():
            for rid in s.reads:
                out.setdefault(rid, []).append(f"{c.id}.{s.id}")
    return out


def unjudged() -> list[dict[str, Any]]:
    """The rows no statement judges: file, id, model, task, setting, and why."""
    read = readers()
    out = []
    for r in rows():
        if r["id"] in read:
            continue
        why = next((w for p, w in UNJUDGED.items() if r["id"].startswith(p)), "judged by no statement")
        out.append({"file": r["file"], "id": r["id"], "what": " ".join(
            x for x in (r.get("model", ""), r.get("variant", ""), r.get("task", ""), r.get("setting", ""),
                        r.get("text", "")) if x), "why": why})
    return out


def decided(preset: str) -> set[str]:
    """The row ids a statement reads and decides (holds or fails) at ``preset``, on the records stored for it (a
    claim whose grid there lacks records decides none)."""
    out: set[str] = set()
    for c in CLAIMS.values():
        v = all_verdicts(c.id, [preset]).get(preset)
        for o in (v.statements if v is not None else []):
            if o.outcome in ("holds", "fails"):
                out |= set(o.statement.reads)
    return out


def coverage_markdown(presets: tuple[str, ...] = ("quick", "paper")) -> str:
    """A short count per table (rows, read by a statement, decided at each preset with records) and the unjudged
    rows, as MyST."""
    read, all_rows = readers(), rows()
    done = {p: decided(p) for p in presets}
    lines = ["| file | rows | read by a statement | " + " | ".join(f"decided at `{p}`" for p in presets) + " |",
             "|---|---|---|" + "---|" * len(presets)]
    for name in dict.fromkeys(r["file"] for r in all_rows):
        mine = [r for r in all_rows if r["file"] == name]
        lines.append(f"| `data/paper/{name}.csv` | {len(mine)} | {sum(r['id'] in read for r in mine)} | "
                     + " | ".join(str(sum(r["id"] in done[p] for r in mine)) for p in presets) + " |")
    lines += ["", "A row is *read* when a statement names it, and *decided* at a preset when that statement holds or "
              "fails there on the records stored for this build (not fitted, inconclusive and not run decide nothing)."]
    lines += ["", "```{dropdown} The rows no statement judges, and why", "",
              "| file | row | what | why |", "|---|---|---|---|"]
    lines += [f"| {u['file']} | `{u['id']}` | {u['what']} | {u['why']} |" for u in unjudged()]
    return "\n".join(lines + ["```", ""])
