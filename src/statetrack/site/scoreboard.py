"""The book's generated tables: the claim scoreboard (intro page) and the measured budget (teaching guide).

Both are computed at build time from the stored run records through ``verify_claim``, never typed:
``book.stage`` writes them as MyST files into ``book/_generated/`` of the staged copy, and the pages
include them. A claim's status is one of

| status | meaning |
|---|---|
| reproduced / supported / partly reproduced / not reproduced / undecided | the claim's statements judged at the shown preset (``verdicts.statements.verdict_word``), with its coverage ("k of n decided") where not every paper statement is decided |
| not run at this preset | records exist, but no statement is judged at that preset |
| not run | the claim is built, but no preset has all its records |

Used in: book/intro.md (scoreboard), book/teaching.md (budget), book/gpu_runbook.md (paper cost),
``statetrack.site.book.stage``.
"""

from __future__ import annotations

from typing import Any

from statetrack.verdicts.numbers import number
from statetrack.verdicts.registry import CLAIMS, all_verdicts, get_claim, recorded, verify_claim
from statetrack.verdicts.statements import Outcome, tally, theory_tally
from statetrack.runs import store
from statetrack.verdicts.plan import dry_run, plan
from statetrack.display.metric_words import metric_words
from statetrack.display.page import chip, deciding, decisive, device_label


def rows() -> list[dict[str, Any]]:
    """One row per claim id (ne1–ne7, bl1–bl8, x1, x2): verdict word, preset, statement tallies, the deciding
    statements' tally and the one statement that explains the word (``display.page.decisive``)."""
    out = []
    for c in CLAIMS.values():
        row = {"claim": c.id, "paper": c.paper, "source": c.source, "title": c.title, "short": c.short or c.title}
        v = verify_claim(c.id)
        if v is None:
            out.append({**row, "status": "not run"})
            continue
        use, key = deciding(v), decisive(v, get_claim(c.id).headline)
        out.append({**row, "status": v.word, "label": v.label, "preset": v.preset,
                    "paper_statements": tally(v.statements, False), "our_statements": tally(v.statements, True),
                    "theory": theory_tally(v.statements),
                    "deciding": {"held": sum(o.outcome == "holds" for o in use), "judged": len(use),
                                 "ours": bool(use) and use[0].statement.ours},
                    "decisive": key.to_dict() if key else None,
                    "statements": [o.to_dict() for o in v.statements], "line": v.line.split(": ", 1)[1],
                    "stale": v.stale, "paper_preset": paper_preset(c.id, v.preset),
                    "cpu_preset": paper_preset(c.id, v.preset, "cpu")})
    return out


def paper_preset(claim_id: str, shown: str, preset: str = "paper") -> dict[str, Any]:
    """A deeper preset (``paper``, ``cpu``) beside the shown one: its verdict word and tallies where its grid has
    every record, else how many of its runs are recorded."""

    if shown == preset:
        return {"status": "shown"}
    done, total = recorded(claim_id, preset)
    if done < total:
        return {"status": "not run", "recorded": done, "runs": total}
    v = all_verdicts(claim_id, [preset])[preset]
    return {"status": v.word, "label": v.label, "paper_statements": tally(v.statements, False),
            "our_statements": tally(v.statements, True), "stale": v.stale,
            "statements": [o.to_dict() for o in v.statements]}


def _paper_cell(p: dict[str, Any]) -> str:
    if p["status"] == "shown":
        return "(shown)"
    if p["status"] == "not run":
        return f"not run ({p['recorded']} of {p['runs']} runs recorded)" if p["recorded"] else "not run"
    return f"{chip(p['status'], p.get('label'))} ({_side_cell(p['paper_statements'], '')})" + \
        (" (stale)" if p["stale"] else "")


NBSP = "\u00a0"


def deciding_number(st: dict[str, Any] | None) -> str:
    """The number behind a claim's word, from its decisive statement (``Outcome.to_dict``), with what it measures
    (``metric_words``): ours beside the paper's number ("secondary source" for a number read secondhand; what ours
    stands in for where the statement is ours), or beside the rule's threshold where the paper gives none; a
    construction statement's checks that hold."""
    if st is None:
        return "–"
    if st["kind"] == "construction":
        return "–" if st["seeds"] is None else f"{st['seeds_pass']} of {st['seeds']} checks"
    other = f"paper {number(st['paper'])}" if st["paper"] is not None else \
        f"needs {'≥' if st['op'] == '>=' else '≤'} {st['threshold']:.3g}"
    if st.get("provenance") == "secondary source":
        other += ", secondary source"
    if st.get("ours") and st["paper"] is not None:  # ours beside a paper number: say what it stands in for
        other += f"; ours, {st['source'].removeprefix('ours (').removesuffix(')')}"
    what = metric_words(st.get("metric"), st["kind"] == "comparison")
    head = f"{number(st['value'])} ({other})".replace(" ", NBSP)  # the number and its yardstick stay on one line
    return f"{head}, {what}" if what else head


def _side_cell(t: dict[str, int], name: str) -> str:
    """One side's experiment statements (``statements.tally``): how many of the decided hold, then those not fitted,
    inconclusive or not run."""
    cell = f"{name}{t['held']} of {t['judged']} hold" if t["judged"] else f"{name}none decided"
    rest = [f"{t[k]} {w}" for k, w in (("not_fitted", "not fitted"), ("inconclusive", "inconclusive"),
                                       ("not_run", "not run")) if t[k]]
    return cell + (f" ({', '.join(rest)})" if rest else "")


def statements_cell(r: dict[str, Any]) -> str:
    """The experiments: the paper's statements decided and holding, then those not fitted, inconclusive or not run;
    ours apart, counted the same way."""
    ours, paper = r["our_statements"], r["paper_statements"]
    parts = ([_side_cell(paper, "")] if paper["total"] else []) + ([_side_cell(ours, "ours: ")] if ours["total"] else [])
    return " · ".join(parts) or "none judged"


def theory_cell(r: dict[str, Any]) -> str:
    """The theory: the exact checks (constructions) that hold, the paper's and ours; implementation checks apart."""
    t = r["theory"]
    judged = t["paper"]["judged"] + t["ours"]["judged"]
    if not judged:
        return "–"
    return f"{t['paper']['held'] + t['ours']['held']} of {judged}"


COVERAGE_PRESETS = ("quick", "cpu", "paper")


def coverage_totals(presets: tuple[str, ...] = COVERAGE_PRESETS) -> dict[str, dict[str, dict[str, int]]]:
    """Preset → ``{"paper": count, "ours": count}`` over every claim: its experiment statements held, failed,
    judged (decided), not fitted, inconclusive, not run and in all (``statements.tally``); a claim whose grid at the
    preset lacks records counts every statement as not run there."""
    out = {}
    for preset in presets:
        sums = {"paper": {}, "ours": {}}
        for c in CLAIMS.values():
            v = all_verdicts(c.id, [preset]).get(preset)
            outcomes = v.statements if v is not None else [Outcome(st, "not run") for st in get_claim(c.id).statements()]
            for side, ours in (("paper", False), ("ours", True)):
                for k, x in tally(outcomes, ours).items():
                    sums[side][k] = sums[side].get(k, 0) + x
        out[preset] = sums
    return out


def coverage_sentence(totals: dict[str, dict[str, dict[str, int]]]) -> str:
    """The coverage totals in one sentence: the papers' experiment statements decided at each preset, of all."""
    parts = []
    for preset, sums in totals.items():
        t = sums["paper"]
        parts.append(f"at `{preset}` {t['judged']} {'is' if t['judged'] == 1 else 'are'} decided ({t['held']} "
                     f"{'holds' if t['held'] == 1 else 'hold'}, {t['failed']} {'fails' if t['failed'] == 1 else 'fail'}"
                     f"), {t['not_fitted']} not fitted, {t['inconclusive']} inconclusive and {t['not_run']} not run")
    total = next(iter(totals.values()))["paper"]["total"] if totals else 0
    ours = next(iter(totals.values()))["ours"]["total"] if totals else 0
    return (f"**How much of the papers is tested.** Of the {total} experiment statements the claims read from the two "
            f"papers, " + "; ".join(parts) + f" (our own {ours} statements apart).")


def _chip(p: dict[str, Any]) -> str:
    """A word as a chip with its coverage and, where the paper's experiments have any, how many are inconclusive
    (inside the chip: the row stays two lines)."""
    n = p["paper_statements"].get("inconclusive", 0) if "paper_statements" in p else 0
    label = (p.get("label") or p["status"]) + (f", {n} inconclusive" if n else "")
    return chip(p["status"], label) + (" (stale)" if p["stale"] else "")


def board_cell(r: dict[str, Any], shown: str) -> str:
    """A claim's word at its shown preset as a chip with its coverage and inconclusive statements, the preset named
    where it is not ``shown`` (the board's column)."""
    return _chip(r) + (f" at `{r['preset']}`" if r["preset"] != shown else "")


def cpu_cell(p: dict[str, Any]) -> str:
    """The cpu preset's word where its grid is complete (``paper_preset``), else how many of its runs are recorded."""
    if p["status"] == "shown":
        return "(shown)"
    if p["status"] == "not run":
        return f"not run ({p['recorded']} of {p['runs']} runs recorded)" if p["recorded"] else "not run"
    return _chip(p)


#: The first table's class: the book's style sheet sets it compact, one short row per claim (book/_ext/static).
BOARD_CLASS = "scoreboard"


def scoreboard_markdown(table: list[dict[str, Any]] | None = None,
                        totals: dict[str, dict[str, dict[str, int]]] | None = None) -> str:
    """The scoreboard as MyST, one screen: per claim its id and short title, its word as a coloured chip with its
    coverage, the number behind the word with what it measures, and the cpu preset's word. Directly below, the
    coverage sentence (``coverage_totals``), the counts per claim and preset, what the words mean, then folded the
    claims' sources with the paper preset and every statement with the seeds that pass. ``table``: ``rows()``,
    ``totals``: ``coverage_totals()`` (each computed when not given)."""
    table = rows() if table is None else table
    totals = coverage_totals() if totals is None else totals
    built = [r for r in table if "preset" in r]
    presets = [r["preset"] for r in built]
    shown = max(set(presets), key=presets.count) if presets else "quick"
    lines = [f":::{{table}}", f":class: {BOARD_CLASS}", "",
             f"| claim | verdict at `{shown}` | the number behind it | at `cpu` |", "|---|---|---|---|"]
    for r in table:
        name = f"{{ref}}`{r['claim']} · {r.get('short') or r['title']} <{r['claim']}>`"
        if "preset" not in r:
            lines.append(f"| {name} | {r['status']} | – | – |")
            continue
        cpu = cpu_cell(r["cpu_preset"]) if "cpu_preset" in r else "–"
        lines.append(f"| {name} | {board_cell(r, shown)} | {deciding_number(r['decisive'])} | {cpu} |")
    lines += [":::", ""]
    lines += [coverage_sentence(totals), "",
              "| claim | preset | experiments (the papers'; ours apart) | theory | experiments at `cpu` |",
              "|---|---|---|---|---|"]
    for r in built:
        p = r.get("cpu_preset", {})
        at_cpu = statements_cell(p) if "paper_statements" in p else "(shown)" if p.get("status") == "shown" \
            else "not run"
        lines.append(f"| {r['claim']} | `{r['preset']}` | {statements_cell(r)} | {theory_cell(r)} | {at_cpu} |")
    count = {w: sum(r["status"] == w for r in built) for w in ("reproduced", "supported", "partly reproduced",
                                                                "not reproduced", "undecided", "not run at this preset")}
    count["ours only"] = sum(r["status"].startswith("ours only") for r in built)
    lines += ["", "Of the " + str(len(built)) + " claims with records: " + ", ".join(
        f"{n} {w}" for w, n in count.items() if n) + ". A claim's word comes from its experiments (trained "
        "statements) alone and counts every one of the paper's, at every preset: *reproduced* when all are decided "
        "(hold or fail) at its preset and all hold, *supported, k of n decided* when every decided one holds but not "
        "all are decided, *partly reproduced* when some hold and some fail, *not reproduced* when none holds or a "
        "theorem's bound is violated, *undecided* when some were tested but none decided; where none of the paper's "
        "is decided, *ours only: k of n hold*. The chip adds *k of n decided* whenever not all are. A statement "
        "that a model does not learn something "
        "is judged only on runs that fitted their training lengths (else *not fitted*), or beside the same model's "
        "positive control under the paper's one change. The theory column counts the exact checks, apart. The "
        "deciding number is that of a failing statement where one fails, else of the claim's headline statement. "
        "Generated from the run records when this book was built (`statetrack verify --json`).", ""]
    lines += [":::{dropdown} The claims, their sources and the paper preset", "",
              "| claim | source | claim in short | paper preset |", "|---|---|---|---|"]
    for r in table:
        paper = _paper_cell(r["paper_preset"]) if "paper_preset" in r else "–"
        lines.append(f"| {r['claim']} | {r['paper']} {r['source']} | {r['title']} | {paper} |")
    lines += ["", ":::", "", ":::{dropdown} Every statement, with the seeds that pass", "",
              "| claim | statement | source | kind | rule | paper | ours | seeds passing | outcome |",
              "|---|---|---|---|---|---|---|---|---|"]
    for r in built:
        extra = r["paper_preset"].get("statements", [])
        for st in r["statements"] + [dict(st, id=f"{st['id']} (paper)") for st in extra if st["outcome"] != "not run"]:
            seeds = "–" if st["seeds"] is None or st["seeds_pass"] is None else f"{st['seeds_pass']} of {st['seeds']}"
            outcome = st["outcome"] + (f": {st['reason']}" if st["reason"] else "")
            src = st["source"] + (" (ours)" if st["ours"] else "")
            lines.append(f"| {r['claim']} | {st['id']} | {src} | {st['kind']} | {st['rule']} | {number(st['paper'])} | "
                         f"{number(st['value'])} | {seeds} | {outcome} |".replace("\n", " "))
    lines += ["", ":::"]
    return "\n".join(lines) + "\n"


#: The presets the budget looks at, in order: a claim is shown at the first whose grid has every record.
BUDGET_PRESETS = ("quick", "paper", "smoke")


def _duration(seconds: float) -> str:
    """A run time as a reader plans with it: seconds under a minute, else minutes to one decimal."""
    return f"{seconds:.0f} s" if seconds < 59.5 else f"{seconds / 60:.1f} min"


def _devices(recs: list[dict[str, Any]]) -> str:
    """The distinct devices the records were made on, as their provenance names them (``page.device_label``)."""
    names = dict.fromkeys(device_label(r["provenance"].get("device_name", "?")) for r in recs)
    return ", ".join(names) or "–"


def budget_rows() -> list[dict[str, Any]]:
    """Per built claim, the recorded cost of its runs at the first preset of ``BUDGET_PRESETS`` whose grid has
    every record: its runs, how many a claim above already holds, and the seconds (training + evaluation) of the
    rest, so that a run several claims share is counted once, at the first that holds it. A claim with no complete
    grid gives how many of its quick runs are recorded."""

    out, seen = [], set()
    for c in CLAIMS.values():
        claim = get_claim(c.id)
        for preset in BUDGET_PRESETS:
            grid = list(dict.fromkeys(claim.grid(preset)))
            recs = store.load_records(grid)
            if len(recs) == len(grid):
                break
        else:
            grid = list(dict.fromkeys(claim.grid(BUDGET_PRESETS[0])))
            out.append({"claim": c.id, "preset": None, "recorded": len(store.load_records(grid)), "runs": len(grid)})
            continue
        own = [r for r in recs if r["key"] not in seen]
        seen |= {r["key"] for r in recs}
        out.append({"claim": c.id, "preset": preset, "runs": len(recs), "shared": len(recs) - len(own),
                    "seconds": sum(r["provenance"].get("wall_time_s", 0) for r in own), "device": _devices(recs)})
    return out


def budget_markdown() -> str:
    """The teaching guide's budget table (``budget_rows``) as MyST, with the total of every distinct run once."""
    lines = ["| claim | preset | runs | of them shared with a claim above | recorded time of the rest (train + eval) "
             "| device |", "|---|---|---|---|---|---|"]
    rows = budget_rows()
    for r in rows:
        name = f"{{ref}}`{r['claim']} <{r['claim']}>`"
        if r["preset"] is None:
            state = "not run" if not r["recorded"] else "not every run recorded"
            lines.append(f"| {name} | – | {r['recorded']} of {r['runs']} recorded at `{BUDGET_PRESETS[0]}` | – | "
                         f"{state} | – |")
            continue
        if not r["runs"]:
            cost = "no trained runs"
        elif r["shared"] == r["runs"]:
            cost = "reuses other claims' runs"
        else:
            cost = _duration(r["seconds"])
        lines.append(f"| {name} | `{r['preset']}` | {r['runs']} | {r['shared']} | {cost} | {r['device']} |")
    shown = [r for r in rows if r["preset"] is not None]
    total, runs = sum(r["seconds"] for r in shown), sum(r["runs"] - r["shared"] for r in shown)
    lines += ["", f"Total: {_duration(total)} of recorded run time over {runs} distinct runs, each counted once, at "
                  "the first claim that holds it. Each time is the one its record holds: one run on one thread, on "
                  "the device named, under whatever else that machine ran then. `--workers 2` trains two runs at a "
                  f"time, which at these speeds makes about {_duration(total / 2)}; a notebook run from scratch adds "
                  "its exact parts and its start-up."]
    return "\n".join(lines) + "\n"


def _hours(h: float) -> str:
    return f"{h:.1f}" if h < 10 else f"{h:,.0f}"


def recorded_hours(claim_id: str, preset: str = "paper") -> float:
    """Training hours of the finished ("ok") runs of ``claim_id``'s grid at ``preset`` that are recorded, each run
    once (their ``train_time_s``, on whatever device made them)."""

    recs = store.load_records(list(dict.fromkeys(get_claim(claim_id).grid(preset))))
    return sum(r["provenance"]["train_time_s"] for r in recs if r["status"] == "ok") / 3600


def paper_cost_markdown(items: list | None = None) -> str:
    """Per built claim: runs of the paper grid (``items``: ``plan(list(CLAIMS), "paper")``, made here when None), how
    many are recorded and their measured training hours, the estimated training hours for the rest
    (``sweep.dry_run``)."""

    rows = dry_run(plan(list(CLAIMS), "paper") if items is None else items, "cuda")
    source = rows[0]["throughput_from"] if rows else "–"
    lines = ["| claim | runs at paper | recorded (with those another claim holds) | measured hours of the recorded "
             "| estimated hours for the rest |",
             "|---|---|---|---|---|"]
    for r in rows:
        note = f" ({r['unmeasured']} runs of unbenchmarked models not estimated)" if r["unmeasured"] else ""
        note += f" ({r['shared']} runs shared with a claim above, trained once)" if r.get("shared") else ""
        done = recorded(r["claim"], "paper")[0]  # as the scoreboard counts them: a run another claim holds too
        measured = _hours(recorded_hours(r["claim"])) if done else "–"
        lines.append(f"| {{ref}}`{r['claim']} <{r['claim']}>` | {r['runs']} | {done} | {measured} | "
                     f"{_hours(r['hours'])}{note} |")
    lines += ["", f"Total: {sum(r['runs'] - r.get('shared', 0) for r in rows)} distinct runs, "
                  f"{sum(r['hours'] for r in rows):,.0f} estimated "
                  f"device-hours of training for those not recorded (throughput measured on: {source}). The measured "
                  "hours are each recorded run's training time, on the device that made it; a run trained beside "
                  "other work took longer than the machine needs."]
    return "\n".join(lines) + "\n"
