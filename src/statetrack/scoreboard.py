"""The book's generated tables: the claim scoreboard (intro page) and the measured budget (teaching guide).

Both are computed at build time from the stored run records through ``verify_claim``, never typed:
``book.stage`` writes them as MyST files into ``book/_generated/`` of the staged copy, and the pages
include them. A claim's status is one of

| status | meaning |
|---|---|
| reproduced / not reproduced | the verdict rule applied to every run (and exact check) of the shown preset |
| not run | the claim is built, but no preset has all its records |
| not built yet | the claim has no notebook yet |

Used in: book/intro.md (scoreboard), book/teaching.md (budget), book/gpu_runbook.md (paper cost),
``statetrack.book.stage``.
"""

from __future__ import annotations

from typing import Any

from statetrack.claims import CLAIMS, Verdict, get_claim, verify_claim

STATUS = {True: "**reproduced**", False: "**not reproduced**"}


def _fmt(x: Any) -> str:
    return "–" if x is None or x != x else f"{x:.3f}"


def headline(v: Verdict, prefer: str | None = None) -> tuple[str, str, str]:
    """The row a reader looks at first: (what, paper's number, ours) of the row labelled ``prefer`` (a claim
    module's ``HEADLINE``: a trained cell or a check), else the first judged row with a paper number, else the
    first judged trained row, else the exact checks' count."""
    judged = [r for r in v.rows if r.get("pass") is not None]
    chosen = [r for r in judged if r["label"] == prefer]
    if chosen and chosen[0].get("part") != "trained":  # a check: its value and whether it held
        r = chosen[0]
        return r["label"], "–", f"{_fmt(r['ours'])} ({'holds' if r['pass'] else 'fails'})"
    trained = [r for r in judged if r.get("part") == "trained"]
    with_paper = [r for r in trained if r.get("paper_best") is not None or r.get("paper_median") is not None]
    if chosen or with_paper or trained:
        r = (chosen or with_paper or trained)[0]
        paper = r.get("paper_best") if r.get("paper_best") is not None else r.get("paper_median")
        return r["label"], _fmt(paper), f"{_fmt(r['ours_best'])} (best of {r['seeds']})"
    exact = [r for r in judged if r.get("part") in ("exact", "comparison")]
    return "exact checks", "–", f"{sum(r['pass'] for r in exact)}/{len(exact)} hold"


def rows() -> list[dict[str, Any]]:
    """One row per claim id (ne1–ne7, bl1–bl8, x1, x2): status, preset, headline, rule line."""
    out = []
    for c in CLAIMS.values():
        row = {"claim": c.id, "paper": c.paper, "source": c.source, "title": c.title, "built": bool(c.notebook)}
        if not c.notebook:
            out.append({**row, "status": "not built yet"})
            continue
        v = verify_claim(c.id)
        if v is None:
            out.append({**row, "status": "not run"})
            continue
        what, paper, ours = headline(v, getattr(get_claim(c.id), "HEADLINE", None))
        out.append({**row, "status": STATUS[v.reproduced].strip("*"), "preset": v.preset, "what": what,
                    "paper_number": paper, "ours": ours, "line": v.line.split(": ", 1)[1], "stale": v.stale})
    return out


def scoreboard_markdown() -> str:
    """The scoreboard as a MyST table: claim (linked), source, headline numbers, preset, verdict."""
    lines = ["| claim | paper, source | what | paper | ours | preset | verdict |",
             "|---|---|---|---|---|---|---|"]
    table = rows()
    for r in table:
        name = f"{{ref}}`{r['claim']} <{r['claim']}>`" if r["built"] else r["claim"]
        if "preset" not in r:
            lines.append(f"| {name} | {r['paper']} {r['source']} | {r['title']} | – | – | – | {r['status']} |")
            continue
        verdict = r["line"] + (" (stale: made by older code)" if r["stale"] else "")
        lines.append(f"| {name} | {r['paper']} {r['source']} | {r['title']}: {r['what']} | {r['paper_number']} | "
                     f"{r['ours']} | `{r['preset']}` | {verdict} |")
    built = [r for r in table if r["built"]]
    ok = sum(r["status"] == "reproduced" for r in built)
    lines += ["", f"{ok} of {len(built)} built claims reproduce at the preset shown; {len(CLAIMS) - len(built)} "
                  "of the 17 are not built yet. Generated from the run records when this book was built "
                  "(`statetrack verify --json`)."]
    return "\n".join(lines) + "\n"


def budget_markdown() -> str:
    """Per built claim: runs at the shown preset and their recorded training + evaluation minutes."""
    from statetrack.results import load_records

    lines = ["| claim | preset | runs | recorded minutes (train + eval) | device |", "|---|---|---|---|---|"]
    total = 0.0
    for c in CLAIMS.values():
        if not c.notebook:
            continue
        v = verify_claim(c.id)
        if v is None:
            lines.append(f"| {{ref}}`{c.id} <{c.id}>` | – | – | not run | – |")
            continue
        recs = load_records(list(dict.fromkeys(get_claim(c.id).grid(v.preset))))
        minutes = sum(r["provenance"].get("wall_time_s", 0) for r in recs) / 60
        total += minutes
        device = recs[0]["provenance"].get("device_name", "?") if recs else "exact parts only"
        lines.append(f"| {{ref}}`{c.id} <{c.id}>` | `{v.preset}` | {len(recs)} | {minutes:.1f} | {device} |")
    lines += ["", f"Total: {total:.1f} minutes of recorded runs. A notebook run from scratch adds its exact parts "
                  "and its start-up (about half a minute each)."]
    return "\n".join(lines) + "\n"


def paper_cost_markdown() -> str:
    """Per built claim: runs of the paper grid, how many are recorded, estimated training hours (``sweep.dry_run``)."""
    from statetrack.claims import implemented
    from statetrack.sweep import dry_run, plan

    rows = dry_run(plan(implemented(), "paper"), "cuda")
    source = rows[0]["throughput_from"] if rows else "–"
    lines = ["| claim | runs at paper | recorded | estimated hours for the rest |", "|---|---|---|---|"]
    for r in rows:
        note = f" ({r['unmeasured']} runs of unbenchmarked models not estimated)" if r["unmeasured"] else ""
        note += f" ({r['shared']} runs shared with a claim above, trained once)" if r.get("shared") else ""
        recorded = r["runs"] - r["missing"] - r.get("shared", 0)
        lines.append(f"| {{ref}}`{r['claim']} <{r['claim']}>` | {r['runs']} | {recorded} | "
                     f"{r['hours']:.0f}{note} |")
    lines += ["", f"Total: {sum(r['runs'] - r.get('shared', 0) for r in rows)} distinct runs, "
                  f"{sum(r['hours'] for r in rows):.0f} estimated "
                  f"device-hours of training (throughput measured on: {source})."]
    return "\n".join(lines) + "\n"
