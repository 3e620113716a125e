"""The book's generated tables: the claim scoreboard (intro page) and the measured budget (teaching guide).

Both are computed at build time from the stored run records through ``verify_claim``, never typed:
``book.stage`` writes them as MyST files into ``book/_generated/`` of the staged copy, and the pages
include them. A claim's status is one of

| status | meaning |
|---|---|
| reproduced / partly reproduced / not reproduced | the claim's statements judged at the shown preset (``claims.common.verdict_word``) |
| not run at this preset | records exist, but no statement is judged at that preset |
| not run | the claim is built, but no preset has all its records |
| not built yet | the claim has no notebook yet |

Used in: book/intro.md (scoreboard), book/teaching.md (budget), book/gpu_runbook.md (paper cost),
``statetrack.book.stage``.
"""

from __future__ import annotations

from typing import Any

from statetrack.claims import CLAIMS, Verdict, all_verdicts, get_claim, recorded, verify_claim


def _fmt(x: Any) -> str:
    return "–" if x is None or x != x else f"{x:.3f}"


def headline(v: Verdict, prefer: str | None = None) -> dict[str, Any]:
    """The statement a reader looks at first: the one ``prefer`` names (a claim module's ``HEADLINE``), else the
    first judged statement of the paper's, else the first judged one; None when none is judged."""
    judged = [o for o in v.statements if o.outcome != "not run"]
    chosen = ([o for o in judged if o.statement.id == prefer] or [o for o in judged if not o.statement.ours]
              or judged)
    if not chosen:
        return {"what": "–", "paper_number": "–", "ours": "–"}
    o = chosen[0]
    seeds = f" ({o.seeds_pass} of {o.seeds} seeds pass)" if o.seeds else ""
    return {"what": f"{o.statement.text} ({o.statement.describe()})", "paper_number": _fmt(o.statement.paper),
            "ours": f"{_fmt(o.value)}{seeds}: {o.outcome}"}


def _tally(t: dict[str, int]) -> str:
    return f"{t['held']}/{t['judged']}" + (f" (+{t['not_run']} not run)" if t["not_run"] else "")


def rows() -> list[dict[str, Any]]:
    """One row per claim id (ne1–ne7, bl1–bl8, x1, x2): verdict word, preset, statement tallies, headline."""
    from statetrack.claims.common import tally

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
        out.append({**row, "status": v.word, "preset": v.preset, **headline(v, getattr(get_claim(c.id), "HEADLINE", None)),
                    "paper_statements": tally(v.statements, False), "our_statements": tally(v.statements, True),
                    "statements": [o.to_dict() for o in v.statements], "line": v.line.split(": ", 1)[1],
                    "stale": v.stale, "paper_preset": paper_preset(c.id, v.preset)})
    return out


def paper_preset(claim_id: str, shown: str) -> dict[str, Any]:
    """The paper preset beside the shown one: its verdict word and tallies where its grid has every record, else
    how many of its runs are recorded."""
    from statetrack.claims.common import tally

    if shown == "paper":
        return {"status": "shown"}
    done, total = recorded(claim_id, "paper")
    if done < total:
        return {"status": "not run", "recorded": done, "runs": total}
    v = all_verdicts(claim_id, ["paper"])["paper"]
    return {"status": v.word, "paper_statements": tally(v.statements, False), "stale": v.stale,
            "statements": [o.to_dict() for o in v.statements]}


def _paper_cell(p: dict[str, Any]) -> str:
    if p["status"] == "shown":
        return "(shown)"
    if p["status"] == "not run":
        return f"not run ({p['recorded']} of {p['runs']} runs)" if p["recorded"] else "not run"
    return f"**{p['status']}** ({_tally(p['paper_statements'])})" + (" (stale)" if p["stale"] else "")


def scoreboard_markdown() -> str:
    """The scoreboard as MyST: one compact row per claim (verdict word, the paper's statements held / judged,
    ours apart), then, folded, every statement with the seeds that pass."""
    lines = ["| claim | source | verdict | paper's statements held | ours held | preset | paper preset |",
             "|---|---|---|---|---|---|---|"]
    table = rows()
    for r in table:
        name = f"{{ref}}`{r['claim']} <{r['claim']}>`" if r["built"] else r["claim"]
        if "preset" not in r:
            lines.append(f"| {name} | {r['paper']} {r['source']} | {r['status']} | – | – | – | – |")
            continue
        word = f"**{r['status']}**" + (" (stale: made by older code)" if r["stale"] else "")
        ours = _tally(r["our_statements"]) if r["our_statements"]["total"] else "–"
        lines.append(f"| {name} | {r['paper']} {r['source']} | {word} | {_tally(r['paper_statements'])} | {ours} | "
                     f"`{r['preset']}` | {_paper_cell(r['paper_preset'])} |")
    built = [r for r in table if r["built"] and "preset" in r]
    count = {w: sum(r["status"] == w for r in built) for w in ("reproduced", "partly reproduced", "not reproduced",
                                                                "not run at this preset")}
    lines += ["", "Of the " + str(len(built)) + " claims with records: " + ", ".join(
        f"{n} {w}" for w, n in count.items() if n) + ". A claim is *reproduced* when every statement of the paper's "
        "judged at its preset holds, *partly reproduced* when some do, *not reproduced* when none does or a "
        "theorem's impossibility is violated; statements that are our own demonstrations are counted apart (ours). "
        "The last column judges the same statements on the paper preset's runs where all of them are recorded. "
        "Generated from the run records when this book was built (`statetrack verify --json`).", ""]
    lines += [":::{dropdown} Every statement, with the seeds that pass", "",
              "| claim | statement | source | kind | rule | paper | ours | seeds passing | outcome |",
              "|---|---|---|---|---|---|---|---|---|"]
    for r in built:
        extra = r["paper_preset"].get("statements", [])
        for st in r["statements"] + [dict(st, id=f"{st['id']} (paper)") for st in extra if st["outcome"] != "not run"]:
            seeds = "–" if st["seeds"] is None or st["seeds_pass"] is None else f"{st['seeds_pass']} of {st['seeds']}"
            outcome = st["outcome"] + (f": {st['reason']}" if st["reason"] else "")
            src = st["source"] + (" (ours)" if st["ours"] else "")
            lines.append(f"| {r['claim']} | {st['id']} | {src} | {st['kind']} | {st['rule']} | {_fmt(st['paper'])} | "
                         f"{_fmt(st['value'])} | {seeds} | {outcome} |".replace("\n", " "))
    lines += ["", ":::"]
    return "\n".join(lines) + "\n"


def _complete(claim_id: str, preset: str) -> bool:
    done, total = recorded(claim_id, preset)
    return done == total


def budget_markdown() -> str:
    """Per built claim: runs at the shown preset and their recorded training + evaluation minutes; a run that a claim
    above already holds (a run is stored and trained once) is counted there, not again."""
    import re

    from statetrack.results import load_records

    lines = ["| claim | preset | runs | of them shared with a claim above | recorded minutes (train + eval) | device |",
             "|---|---|---|---|---|---|"]
    total, seen = 0.0, set()
    for c in CLAIMS.values():
        if not c.notebook:
            continue
        # the preset verify_claim shows, found without judging: the first whose grid has every record
        preset = next((p for p in ("quick", "paper", "smoke") if _complete(c.id, p)), None)
        if preset is None:
            lines.append(f"| {{ref}}`{c.id} <{c.id}>` | – | – | – | not run | – |")
            continue
        recs = load_records(list(dict.fromkeys(get_claim(c.id).grid(preset))))
        own = [r for r in recs if r["key"] not in seen]
        seen |= {r["key"] for r in recs}
        minutes = sum(r["provenance"].get("wall_time_s", 0) for r in own) / 60
        total += minutes
        device = recs[0]["provenance"].get("device_name", "?") if recs else "exact parts only"
        device = re.sub(r"\(1 threads\)", "(1 thread)", device)  # as stored records name it (provenance.cpu_name)
        lines.append(f"| {{ref}}`{c.id} <{c.id}>` | `{preset}` | {len(recs)} | {len(recs) - len(own)} | "
                     f"{minutes:.1f} | {device} |")
    lines += ["", f"Total: {total:.1f} minutes of recorded runs, each run counted once ({len(seen)} runs). Training "
                  "them again takes about half as long on two cores (two runs at a time); a notebook run from scratch "
                  "adds its exact parts and its start-up (about half a minute each)."]
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
