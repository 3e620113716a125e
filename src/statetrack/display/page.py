"""What a claim page computes and glues: its parameters, grid and runs (``Page``), the verdict box under the claim
box, and the verdict chip the scoreboard shares.

``Page(claim_id, PRESET=..., SEEDS=..., ...)`` checks the parameters cell (``parameters.parameters``) and builds the
claim's grid; ``page.run()`` loads or trains its runs (``verdicts.registry.run_claim``) and glues what the "This page ran at
preset" paragraph names; ``page.runs`` is the run table, ``page.run_keys`` the table of run keys, ``page.verdict``
the verdict with its box, ``page.glue`` and ``page.figure`` glue values and figures for the prose.

The box holds the verdict word as a coloured chip, the statements the word rests on (the paper's where any is
judged, else ours, as ``verdicts.statements.verdict_word`` decides), each with where it comes from (paper text, official
code, secondary source or ours), the paper's number beside ours, one line of reason, a link to the page's Verdict
section (label ``<claim>-verdict``) and one to the glossary (book/glossary.md). A notebook glues it in its Verdict
section (``glue_verdict``) and shows it under the claim box with a ``{glue:md}`` directive; MyST-NB resolves glue from
anywhere in the same notebook.

The verdict's tables: ``show_statements`` (the statements, those not run in one line per reason) and ``show_cells``
(the cells, the exact checks apart), over the frames ``statement_frame``, ``cell_frame`` and ``check_frame``.

Used in: every claim notebook; ``statetrack.site.scoreboard`` (``chip``, ``deciding``, ``decisive``).
"""

from __future__ import annotations

import functools
import re
from typing import Any, Callable, NamedTuple

from statetrack.display import tables
from statetrack.display.metric_words import metric_words
from statetrack.display.parameters import parameters as check_parameters
from statetrack.runs.retired import retired_records
from statetrack.runs.store import load_records, run_key
from statetrack.verdicts.check_cache import cached_checks
from statetrack.verdicts.claim import Claim
from statetrack.verdicts.numbers import number
from statetrack.verdicts.registry import CLAIMS, get_claim, run_claim
from statetrack.verdicts.statements import NEGATIVE, Outcome, Verdict, is_experiment, matches, theory_tally

#: badge colour per verdict word (sphinx-design): filled where the paper's statements decide, pale or outlined where
#: they do not, so that the words also differ in lightness and fill for a reader who cannot tell the hues apart.
COLOURS = {"reproduced": "success", "supported": "info", "partly reproduced": "warning", "not reproduced": "danger",
           "undecided": "muted", "not run at this preset": "light"}
OURS_COLOUR = "primary-line"  # "ours only: k of n hold": an outline, none of the paper's statements decided
#: admonition class (the box's colour in the book's theme) per verdict word.
BOX_CLASS = {"reproduced": "tip", "supported": "note", "partly reproduced": "warning", "not reproduced": "danger",
             "undecided": "note", "not run at this preset": "note"}
OUTCOME_COLOURS = {"holds": "success", "fails": "danger", "not run": "light", "not fitted": "muted",
                   "inconclusive": "secondary-line"}
STATISTICS = {"best": "best of seeds", "median": "median of seeds", "every": "every seed", "value": "value"}
MAX_ITEMS = 3  # statements shown in the box; the Verdict section lists every one
#: The end of the box's last line: where its words (verdict words, outcomes, preset, ours...) are defined.
GLOSSARY_LINE = "what each word in this box means: {doc}`the glossary </book/glossary>`."


def chip(word: str, label: str | None = None) -> str:
    """A verdict word (or a statement's outcome) as a coloured sphinx-design badge in MyST ("ours only: …" outlined),
    reading ``label`` where given (the word with its coverage, ``Verdict.label``)."""
    colour = COLOURS.get(word) or OUTCOME_COLOURS.get(word) or (OURS_COLOUR if word.startswith("ours only") else "muted")
    return f"{{bdg-{colour}}}`{label or word}`"


def deciding(verdict: Verdict) -> list[Outcome]:
    """The statements the verdict word rests on (``verdict_word``): the experiments that held or failed, the
    paper's where any is, else ours. Constructions (the theory) and runs that did not fit never decide."""
    judged = [o for o in verdict.statements if is_experiment(o) and o.outcome in ("holds", "fails")]
    return [o for o in judged if not o.statement.ours] or judged


def decisive(verdict: Verdict, prefer: str | None = None) -> Outcome | None:
    """The one statement that explains the word: a violated impossibility, else the first failing deciding
    statement, else the one ``prefer`` names (a claim's declared ``headline``) among the deciding ones, else the first
    deciding one; None when none is judged."""
    use = deciding(verdict)
    failing = [o for o in use if o.outcome == "fails"]
    chosen = ([o for o in failing if o.statement.kind == "theorem forbids"] or failing
              or [o for o in use if o.statement.id == prefer] or use)
    return chosen[0] if chosen else None


def ours_value(o: Outcome) -> str:
    """Our side of a statement: the value it judges with its statistic, or for a construction statement how many of its
    checks hold."""
    if o.statement.kind == "construction":
        return "–" if o.seeds is None else f"{o.seeds_pass} of {o.seeds} checks hold"
    stat = "best run" if o.statement.all_rates else STATISTICS[o.statement.statistic]
    return f"{number(o.value)} ({stat})"


def origin(o: Outcome) -> str:
    """Where a statement comes from: its source and its provenance (paper text, official code, secondary source,
    ours), the provenance left out where the source already says ours."""
    s = o.statement
    return s.source if s.ours and s.source.startswith("ours") else f"{s.source}, {s.provenance}"


def why(o: Outcome, claim_id: str | None = None, preset: str | None = None) -> str:
    """One sentence of why a statement did not hold, from its outcome's own numbers ("" where it holds): a failing
    one's seeds that fitted, its value with what it measures against the rule's threshold, and the score of a
    predictor that does not track where the statement names one, then, at quick, what the claim's recorded pilots
    say of more steps on its cells (``budget_note``); a not-fitted one's fitted seeds; an inconclusive one's sign
    test; a not-run one's reason."""
    s = o.statement
    if o.outcome == "not run":
        return o.reason.rstrip(".") + "." if o.reason else ""
    if o.outcome == "not fitted":
        fitted = f"{o.fitted or 0} of {o.seeds} seeds" if o.seeds else "no seed"
        return f"Why: {fitted} fitted their training lengths, so whether the model fails beyond them is not judged."
    if o.outcome == "inconclusive":
        test = f" (sign test p = {number(o.p_value)})" if o.p_value is not None else ""
        return f"Why: the paired seeds decide it neither way{test}."
    if o.outcome != "fails" or s.kind == "construction":
        return ""
    what = metric_words(s.rule.metric, s.kind == "comparison") or "its number"
    fit = f"{o.fitted} of {o.seeds} seeds fitted their training lengths; " if o.fitted is not None and o.seeds else ""
    side = "below the ≥" if s.rule.op == ">=" else "above the ≤"
    short = (f"; {s.shortcut_name} scores {number(s.shortcut)}" if s.shortcut is not None and s.shortcut_name
             else "")
    budget = budget_note(o, claim_id) if preset == "quick" else ""
    return (f"Why: {fit}the {what} is {number(o.value)}, {side} {number(s.rule.threshold)} the rule sets{short}."
            + (f" {budget}" if budget else ""))


def budget_note(o: Outcome, claim_id: str | None) -> str:
    """What the claim's recorded recipe pilots (seeds 100 and up) say of more training steps on the cells a failing
    statement reads ("" where they say nothing): more steps helped, so the budget is a suspect; or did not."""
    if claim_id not in CLAIMS or o.statement.where is None or o.statement.kind == "comparison":
        return ""
    from statetrack.verdicts.pilots import steps_pilot

    p = steps_pilot(get_claim(claim_id), o.statement.where)
    if p is None:
        return ""
    more, fewer = (("steps", "median"), ("other_steps", "other_median"))[::1 if p["steps"] > p["other_steps"] else -1]
    said = (f"its recorded pilots (seeds 100 and up) reached {number(p[more[1]])} with {p[more[0]]:,} steps against "
            f"{number(p[fewer[1]])} with {p[fewer[0]]:,}")
    return (f"More steps helped: {said}, so a longer budget may change this." if p["helped"] else
            f"More steps did not help: {said}.")


def control_note(o: Outcome) -> str:
    """How a judged "does not learn" statement with a positive control was read ("" otherwise): beside the same
    family's arm under the paper's one change, which learned, so its own seeds need not fit."""
    s = o.statement
    if s.control is None or s.kind not in NEGATIVE or o.outcome not in ("holds", "fails"):
        return ""
    arm = ", ".join(f"{k} {v}" for k, v in s.control.items())
    return (f"Judged beside its positive control ({arm}), which learned on at least 2 seeds: the paper's one change, "
            f"so its own seeds need not fit their training lengths.")


def item(o: Outcome, claim_id: str | None = None, preset: str | None = None) -> str:
    """One deciding statement as a line of the box: its outcome chip, the statement, where it comes from, the
    paper's number (where the paper gives one; "secondary source" where it was read secondhand) beside ours; a
    failing one's ``why``, a controlled one's ``control_note``."""
    s = o.statement
    secondhand = " (secondary source)" if s.provenance == "secondary source" else ""
    paper = f"paper {number(s.paper)}{secondhand}, " if s.paper is not None else ""
    caveat = " It fails against a secondary-sourced number, not the paper's own text." \
        if o.outcome == "fails" and s.provenance == "secondary source" else ""
    because = f" {why(o, claim_id, preset)}" if o.outcome == "fails" else ""
    control = f" {control_note(o)}" if control_note(o) else ""
    return (f"- {chip(o.outcome)} {s.text.rstrip('.')}. *{origin(o)}*: {paper}ours {ours_value(o)}."
            f"{because}{caveat}{control}")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("s" if n != 1 else "")


def reason(verdict: Verdict) -> str:
    """Why the verdict has its word, in one line: the experiments that decide it, then the theory apart."""
    use = deciding(verdict)
    experiments = [o for o in verdict.statements if is_experiment(o)]
    theory = theory_tally(verdict.statements)
    if not use:
        why = next((o.reason for o in experiments if o.reason), None)
        line = f"No trained statement is judged at preset {verdict.preset}" + (f": {why}" if why else "")
    else:
        held = sum(o.outcome == "holds" for o in use)
        failing = [o.statement.id for o in use if o.outcome == "fails"]
        violated = [o.statement.id for o in use if o.outcome == "fails" and o.statement.kind == "theorem forbids"]
        line = f"Experiments: {held} of {len(use)} of the paper's trained statements judged at this preset hold" \
            if not use[0].statement.ours else \
            f"No trained statement of the paper's is judged at this preset; {held} of {len(use)} of our own hold"
        if violated:  # the box lists failing statements first, by their words: no ids here
            line += f"; a theorem's bound is violated ({'one statement' if len(violated) == 1 else len(violated)}, " \
                    f"listed first below)"
        elif failing:
            line += f"; {len(failing)} {'fails' if len(failing) == 1 else 'fail'}, listed first below"
        ours = [o for o in experiments if o.statement.ours and o.outcome in ("holds", "fails")]
        if ours and not use[0].statement.ours:
            line += f"; ours: {sum(o.outcome == 'holds' for o in ours)} of {len(ours)} hold"
    for word in ("not fitted", "inconclusive", "not run"):
        n = sum(o.outcome == word for o in experiments)
        line += f"; {n} {word}" if n else ""
    exact = [theory[k] for k in ("paper", "ours")]
    if sum(t["total"] for t in exact):
        line += f". Theory (exact checks, apart): {sum(t['held'] for t in exact)} of {sum(t['judged'] for t in exact)} hold"
    return line + "."


def theory_headline(verdict: Verdict) -> Outcome | None:
    """The claim's headline statement where it is theory (an exact construction) judged at this preset: the
    statement the claim is about, though only experiments give the word (bl8's frozen network)."""
    headline = CLAIMS[verdict.claim].headline if verdict.claim in CLAIMS else None
    o = next((o for o in verdict.statements if o.statement.id == headline), None)
    return o if o is not None and not is_experiment(o) and o.outcome in ("holds", "fails") else None


def verdict_box(verdict: Verdict, limit: int = MAX_ITEMS, deeper: Verdict | None = None) -> str:
    """The verdict box as MyST: a coloured admonition with the word, one line of reason, the claim's own statement
    first where it is theory (``theory_headline``), the deciding statements (failing ones first, at most ``limit``,
    one ``item`` each), the verdict at a deeper preset beside it (``deeper``: ``cpu_part``), a link to the Verdict
    section and one to the glossary (``GLOSSARY_LINE``)."""
    use = sorted(deciding(verdict), key=lambda o: o.outcome != "fails")
    fence = "::::" if deeper is not None else ":::"  # the deeper preset's statements fold inside the box
    lines = [f"{fence}{{admonition}} Verdict at preset `{verdict.preset}`: {chip(verdict.word, verdict.label)}",
             f":class: {BOX_CLASS.get(verdict.word, 'note')}", "", reason(verdict), ""]
    if (theory := theory_headline(verdict)) is not None:
        lines += [item(theory).rstrip(".") + ". The claim's own statement: an exact construction, theory, tallied "
                  "apart from the word, which the trained statements below give.", ""]
    if use:
        lines += [item(o, verdict.claim, verdict.preset) for o in use[:limit]]
        lines.append("")
    lead = "Every statement"
    if len(use) > limit:
        rest = use[limit:]
        counts = ", ".join(f"{sum(o.outcome == w for o in rest)} {ing}" for w, ing in
                           (("fails", "failing"), ("holds", "holding")) if any(o.outcome == w for o in rest))
        lead = f"{_plural(len(rest), 'more statement')} ({counts}) and every statement"
    if deeper is not None:
        lines += cpu_part(deeper)
    lines += [f"{lead}, its rule and the seeds that pass: {{ref}}`the Verdict section <{verdict.claim}-verdict>`; "
              f"{GLOSSARY_LINE}", fence]
    return "\n".join(lines) + "\n"


#: What the cpu preset is, in one clause, where a page shows its verdict beside the teaching preset's.
CPU_CLAUSE = "the papers' own grids at training budgets a CPU affords, set on recorded pilots before any verdict run"


def cpu_part(deeper: Verdict) -> list[str]:
    """The verdict at a deeper preset (``cpu``) inside the box: its word, its reason line and, folded, each of its
    trained statements with its outcome (a not-run one with its reason)."""
    experiments = [o for o in deeper.statements if is_experiment(o)]
    lines = [f"**At preset `{deeper.preset}`**, {CPU_CLAUSE}: {chip(deeper.word, deeper.label)}. {reason(deeper)}",
             "", f":::{{dropdown}} The {_plural(len(experiments), 'trained statement')} at `{deeper.preset}`", ""]
    for o in sorted(experiments, key=lambda o: ("fails", "holds", "inconclusive", "not fitted", "not run")
                    .index(o.outcome) if o.outcome in ("fails", "holds", "inconclusive", "not fitted", "not run")
                    else 5):
        because = f" {why(o)}" if o.outcome not in ("holds", "fails") and why(o) else ""
        lines.append(item(o) + because)
    return lines + ["", ":::", ""]


def glue_verdict(verdict: Verdict, deeper: Verdict | None = None) -> None:
    """Glue the verdict box as ``verdict_box`` (Markdown) for the page's ``{glue:md}`` directive; shows nothing."""
    from IPython.display import Markdown
    from myst_nb import glue

    glue("verdict_box", Markdown(verdict_box(verdict, deeper=deeper)), display=False)


STALE_NOTE = "Note: some records were made by older code (stale); rerun with FORCE = True to refresh them."
STANDARD = ("preset", "seeds", "device", "force", "confirm_long")  # ``parameters.parameters``' names every claim takes


def glue_values(**values: Any) -> None:
    """Glue each value under its name for the page's prose; shows nothing."""
    from myst_nb import glue

    for name, value in values.items():
        glue(name, value, display=False)


def device_label(name: str) -> str:
    """A record's device name as a reader reads it: "(1 thread)", not the recorded "(1 threads)"."""
    return re.sub(r"\b1 threads\b", "1 thread", name)


def provenance(records: list[dict], preset: str) -> dict[str, Any]:
    """What a page says of its runs: how many, their recorded minutes of training and evaluation, the device of the
    first, the preset."""
    return {"num_runs": len(records),
            "wall_minutes": sum(r["provenance"].get("wall_time_s", 0) for r in records) / 60,
            "device_name": device_label(records[0]["provenance"]["device_name"]), "preset": preset}


def run_row(r: dict, cell: dict, config: dict, scores: dict, after: dict) -> dict[str, Any]:
    """One run as a row of a page's run table: its cell, seed, settings, status, scores, training seconds, what
    else the page shows, and whether older code made it (stale)."""
    return {**cell, "seed": r["config"]["seed"], **config, "status": r["status"], **scores,
            "train s": r["provenance"].get("train_time_s"), **after, "stale": r["stale"]}


def normalized_scores(r: dict, test: str = "test") -> dict[str, Any]:
    """A run's normalized accuracy at its test lengths (the column named ``test``) and in distribution."""
    summary = r.get("summary", {})
    return {f"{test} (normalized)": summary.get("ood_normalized"), "in-dist (normalized)": summary.get("id_normalized")}


def statement_values(verdict: Verdict) -> dict[str, Any]:
    """What the prose reads of each statement: ``ours_<id>`` (its statistic on our runs, NaN where none) and
    ``seeds_<id>`` ("k of n" seeds that pass, "–" where none were judged)."""
    out: dict[str, Any] = {}
    for o in verdict.statements:
        out[f"ours_{o.statement.id}"] = float("nan") if o.value is None else float(o.value)
        out[f"seeds_{o.statement.id}"] = "–" if not o.seeds else f"{o.seeds_pass} of {o.seeds}"
    return out


def run_settings(c: Any) -> dict[str, Any]:
    """A run config's settings as a run-key table shows them: model, seed, width, rate, steps, batch, lengths."""
    return {"model": c.model.label, "seed": c.seed, "D": c.model.d_model, "lr": c.train.lr,
            "steps": c.train.num_steps, "batch": c.train.batch_size,
            "train lengths": f"{c.train.min_len}–{c.train.max_len}", "test lengths": f"{c.eval.min_len}–{c.eval.max_len}"}


# ----------------------------------------------------------------------------- the verdict's tables


def _figure(x: float | None, kind: str) -> str | None:
    """A statement's number as the page prints it: a score or a difference of scores (an experiment's number below
    10) to 3 decimals, anything else (a construction's error, a loss, a perplexity) to 3 significant figures."""
    if x is None:
        return None
    return number(x, style="general" if kind == "construction" or abs(x) >= 10 else "fixed")


def statement_frame(v: Verdict) -> Any:
    """The statements as a pandas frame: one row per statement, its outcome and, for one not run, why."""
    import pandas as pd

    out = []
    for o in v.statements:
        d = o.to_dict()
        seeds = None if d["seeds"] is None or d["seeds_pass"] is None else f"{d['seeds_pass']} of {d['seeds']}"
        if seeds and d["interval"] is not None and d["part"] == "experiment":
            lo, hi = d["interval"]
            seeds += f" [{lo:.2f}, {hi:.2f}]" + ("*" if d["optimistic"] else "")
        out.append({"statement": d["id"], "paper's claim": d["text"], "source": d["source"] + (
            " (ours)" if d["ours"] else ""), "kind": d["kind"], "rule": d["rule"],
            "paper": _figure(d["paper"], d["kind"]), "ours": _figure(d["value"], d["kind"]),
            "best": None if d["best"] is None else f"{d['best']:.3f}",
            "median": None if d["median"] is None else f"{d['median']:.3f}",
            "seeds passing [95 % interval]": seeds, "fitted": d["fitted"],
            "outcome": d["outcome"], "note": d["reason"] if d["outcome"] in ("not fitted", "inconclusive") else
            control_note(o) or None,
            "why not run": d["reason"] if d["outcome"] == "not run" else None})
    return pd.DataFrame(out)


#: the columns a statement table leads with; the rest (source, kind, rule, statistics) is folded below it
SHORT = {"statement": "statement", "paper's claim": "what the paper claims", "paper": "paper", "ours": "ours",
         "outcome": "outcome"}


def show_statements(v: Verdict) -> Any:
    """The statements as a page shows them (``tables.Shown``): the judged ones as a short table (statement, what the
    paper claims, paper (where one of them has a number), ours, outcome) with every column folded below it (source,
    kind, rule, best, median, seeds passing with the interval, fitted seeds, note), and those not run at this preset
    in one line per reason."""
    t = statement_frame(v)
    if t.empty:
        return tables.show(t)
    judged, skipped = t[t["outcome"] != "not run"], t[t["outcome"] == "not run"]
    lines = [(f"{len(g)} of {len(t)} statements not run at this preset" + (f": {why}." if why != "–" else "."),
              [f"{s}: {text}" for s, text in zip(g["statement"], g["paper's claim"])])
             for why, g in skipped.fillna({"why not run": "–"}).groupby("why not run", sort=False)]
    old = retired_matching(v)
    if old:
        lines.append((f"{len(old)} retired records (data/retired/, never judged) are of cells these statements read",
                      old))
    if not len(judged):
        return tables.Shown(None, after=lines)
    full = judged.drop(columns="why not run")
    short = [c for c in SHORT if c != "paper" or full["paper"].notna().any()]  # proofs alone: no paper column
    return tables.Shown(full[short].rename(columns=SHORT), after=lines, below=full,
                        below_summary="how each statement is judged: source, kind, rule, best, median, seeds "
                                      "passing [95 % interval], fitted seeds")


def retired_matching(v: Verdict) -> list[str]:
    """The retired records of ``v``'s claim whose cell one of its statements reads (``where``, ``against`` or
    ``control``): one line each, the record's file, its main score, the commit it left at and why."""

    if v.claim not in CLAIMS:
        return []
    claim = get_claim(v.claim)
    wheres = [w for o in v.statements for w in (o.statement.where, o.statement.against, o.statement.control)
              if w is not None and o.statement.checks is None]
    out = []
    for record, entry in retired_records():
        if entry.get("claim") != v.claim:
            continue
        try:
            cell = claim.cell_of(record)
        except (KeyError, TypeError, ValueError):  # a record of a cell this claim no longer names
            continue
        if any(matches(cell, w) for w in wheres):
            score = number(record.get("summary", {}).get("ood_normalized")) if record.get("status") == "ok" else \
                record.get("status", "?")
            out.append(f"{entry['path']} (ood normalized {score}; left at {entry.get('commit') or 'retire'}): "
                       f"{entry.get('why', '')}")
    return out


def cell_frame(v: Verdict, paper: dict[str, str] | None = None, part: str | None = None,
               more: dict[str, str] | None = None) -> Any:
    """The cell table as a pandas frame: one row per cell, per cell not run here, and per exact check; ``part``
    keeps one kind of row ("trained", "not run", "exact" or "comparison"); ``more``: further row keys of a
    trained cell → heading, e.g. ``{"ours_min": "ours lowest"}``.

    ``paper``: row key → heading, e.g. ``{"paper_best": "paper best (T3)"}`` (default: the paper's best and median
    where any row has them)."""
    import pandas as pd

    if paper is None:
        paper = {k: k.replace("_", " ") for k in ("paper_best", "paper_median")
                 if any(r.get(k) is not None for r in v.rows)}
    out = []
    for r in v.rows:
        if part is not None and r.get("part") != part:
            continue
        row = {"what": r["label"], **{h: r.get(k) for k, h in paper.items()}}
        if r.get("part") == "trained":
            row.update({"ours best": r["ours_best"], "ours median": r["ours_median"], "MAD": r["ours_mad"],
                        **{h: r.get(k) for k, h in (more or {}).items()},
                        "seeds": r["seeds"], "note": f"{r['diverged']} diverged" if r["diverged"] else ""})
        elif r.get("part") == "not run":
            row.update({"note": r["rule"]})
        else:
            row.update({"ours best": r["ours"], "note": f"{r['part']}: {r['rule']}: "
                                                        f"{'holds' if r['pass'] else 'fails'}"})
        out.append(row)
    return pd.DataFrame(out)


def check_frame(v: Verdict) -> Any:
    """The exact checks and comparisons of the verdict as a pandas frame: one row per check."""
    import pandas as pd

    return pd.DataFrame([{"check": r["label"], "kind": r["part"], "ours": r["ours"], "rule": r["rule"],
                          "holds": bool(r["pass"]), "detail": r.get("detail", "")}
                         for r in v.rows if r.get("part") in ("exact", "comparison")])


def show_cells(v: Verdict, paper: dict[str, str] | None = None, digits: int = 3,
               more: dict[str, str] | None = None) -> Any:
    """The cell table as a page shows it (``tables.Shown``): the trained cells (``cell_frame``'s ``paper`` and
    ``more`` columns), numbers to ``digits``; the cells not run at this preset in one line, the list folded
    under it; the exact checks apart, in one line where all hold."""
    trained = cell_frame(v, paper, part="trained", more=more).round(digits)
    if len(trained):
        trained = trained.drop(columns=[c for c in ("note",) if c in trained and not trained[c].any()])
    skipped = [r for r in v.rows if r.get("part") == "not run"]
    lines = []
    shown_paper = dict(paper) if paper is not None else {k: k.replace("_", " ")
                                                           for k in ("paper_best", "paper_median")}
    for rule in dict.fromkeys(r["rule"] for r in skipped):
        items = [r["label"] + "".join(f"; {h} {r[k]:.{digits}g}" for k, h in shown_paper.items()
                                      if isinstance(r.get(k), (int, float)) and r[k] == r[k])
                 for r in skipped if r["rule"] == rule]
        lines.append((f"{len(items)} cell{'s' * (len(items) != 1)} {rule}.", items))
    checks = check_frame(v)
    below = tables.checks(checks, digits=digits) if len(checks) else None
    return tables.Shown(trained if len(trained) else None, after=lines, then=below)


#: the columns that tell one run from another in a frame without run keys (``source_line``)
RUN_COLUMNS = ("claim", "panel", "task", "model", "label", "eig_range", "setting", "seed", "lr")


def source_line(reads: Any = None, preset: str | None = None) -> str:
    """The line under a figure naming its source: "From N trained runs (run records in data/results/)." for the
    records (or a frame with a ``key`` column) it ``reads``, with "at preset P" where ``preset`` names it; with none,
    the computation made when the page is built."""
    if reads is None:
        return "Computed from the theory when the page is built; it reads no trained run."
    if hasattr(reads, "columns"):  # a frame: a run is a key, else a (panel or model, ..., seed) combination
        ident = ["key"] if "key" in reads.columns else [c for c in RUN_COLUMNS if c in reads.columns]
        keys = set(map(tuple, reads[ident].drop_duplicates().to_numpy()))
    else:
        keys = {r["key"] for r in reads}
    at = f" at preset {preset}" if preset else ""
    return f"From {len(keys)} trained run{'s' if len(keys) != 1 else ''}{at} (run records in data/results/)."


def place_source(fig: Any, line: str) -> Any:
    """Write ``line`` under everything ``fig`` draws (axes, labels and legends, the figure's own included, each
    figure legend pinned where it is drawn), so the saved image's tight bounding box grows to hold it; returns the
    text. Raises ``ValueError`` if it still overlaps a legend, which would hide the legend's entries."""
    renderer = fig.canvas.get_renderer()
    for legend in fig.legends:  # pinned where drawn: a tight save moves a legend anchored to the figure's edge
        drawn = legend.get_window_extent(renderer).transformed(fig.transFigure.inverted())
        legend.set_bbox_to_anchor(drawn, transform=fig.transFigure)
        legend.set_loc("center")
    below = fig.get_tightbbox(renderer).y0 / fig.get_size_inches()[1]  # the lowest drawn point, in figure fractions
    text = fig.text(0.01, below - 0.01, line, ha="left", va="top", fontsize=9, color="0.3")
    box = text.get_window_extent(renderer)
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes)]
    if any(leg is not None and box.overlaps(leg.get_window_extent(renderer)) for leg in legends):
        raise ValueError(f"the figure's source line {line!r} overlaps its legend")
    return text


class Deepest(NamedTuple):
    """What a page's figures of trained runs read (``Page.deepest``): a preset, its default grid, its records and, at
    a preset deeper than the page's, its verdict (None at the page's own: the page judges that one itself)."""
    preset: str
    grid: list
    records: list[dict]
    verdict: Verdict | None


class Page:
    """One claim page at the parameters its notebook was given: the parameters checked, the grid, the records."""

    def __init__(self, claim: Claim, **parameters: Any):
        self.declaration = claim
        self.claim = claim.id
        self.params = check_parameters(claim, **parameters)
        self.preset = self.params.preset
        #: the claim's own parameters (``MODELS`` → ``models``...), as its ``grid`` and ``run_claim`` take them
        self.options = {k: v for k, v in vars(self.params).items() if k not in STANDARD}
        self.grid = claim.grid(self.preset, seeds=self.params.seeds, **self.options)
        self.records: list[dict] = []
        self._glued_shown = False

    def run(self) -> list[dict]:
        """Load or train every run of the grid (``verdicts.registry.run_claim``) and glue ``provenance``; the
        records."""
        p = self.params
        self.records = run_claim(self.claim, self.preset, seeds=p.seeds, force=p.force, device=p.device,
                                 confirm_long=p.confirm_long, **self.options)
        glue_values(**provenance(self.records, self.preset))
        return self.records

    def runs(self, cell: Callable[[dict], dict] | None = None, scores: Callable[[dict], dict] | None = None,
             after: Callable[[dict], dict] | None = None, config: Callable[[dict], dict] | None = None,
             test: str = "test"):
        """The run table: one ``run_row`` per record, ``scores`` by default ``normalized_scores`` (``test`` names
        its first column); prints a note when older code made some records."""
        import pandas as pd

        rows = [run_row(r, cell(r) if cell else {}, config(r) if config else {},
                        scores(r) if scores else normalized_scores(r, test), after(r) if after else {})
                for r in self.records]
        if any(r["stale"] for r in self.records):
            print(STALE_NOTE)
        return pd.DataFrame(rows)

    def run_keys(self, extra: Callable[[Any], dict] | None = None):
        """The table of run keys: each run of the grid with its key, its cell (the claim's ``cell_of``), the
        ``run_settings`` the cell does not name and what ``extra`` adds."""
        import pandas as pd


        rows = []
        for c in self.grid:
            cell = self.declaration.cell_of({"config": c.to_dict()})
            named = set(cell) | ({"D"} if {"H", "width"} & set(cell) else set())  # a cell naming the width
            rows.append({"key": run_key(c), **cell, **{k: v for k, v in run_settings(c).items() if k not in named},
                         **(extra(c) if extra else {})})
        return pd.DataFrame(rows)

    def checks(self) -> list:
        """The claim's exact checks at the page's preset (its declaration's ``checks(preset)``), kept on disk by the
        code they execute (``verdicts.check_cache``): computed once per version of that code, then read by the page,
        ``statetrack verify`` and the scoreboard alike."""

        return cached_checks(self.declaration, self.preset)

    def verdict(self, **kwargs: Any) -> Verdict:
        """The claim's verdict on the records (``kwargs`` as the claim's ``verdict`` takes them, e.g. ``checks``);
        glues its box (``glue_verdict``) and its word (``verdict_word``)."""
        v = self.declaration.verdict(self.records, self.preset, **kwargs)
        glue_verdict(v, self.deeper_verdict())
        glue_values(verdict_word=v.label, **statement_values(v))
        return v

    @functools.cached_property
    def _cpu(self) -> Deepest | None:
        """The cpu preset's grid, records and verdict, where the page shows ``quick`` with its default seeds and
        options and the claim's cpu grid has every record (as ``verdicts.registry.all_verdicts`` reads it); else
        None. Looked up once per page."""
        if self.preset != "quick" or self.params.seeds is not None or any(v is not None for v in self.options.values()):
            return None
        grid = self.declaration.grid("cpu")
        records = load_records(grid)
        if len(records) != len(grid):
            return None
        return Deepest("cpu", grid, records, self.declaration.verdict(records, "cpu"))

    def deeper_verdict(self) -> Verdict | None:
        """The cpu preset's verdict beside the teaching preset's (``_cpu``); else None."""
        return self._cpu.verdict if self._cpu else None

    def deepest(self) -> Deepest:
        """What the page's figures of trained runs read: the cpu preset's records where its grid is complete, not
        empty, and the page shows ``quick`` with its defaults (``_cpu``), else the page's own preset, grid and
        records (call it after ``run``); glues its preset once as ``shown_preset`` for the captions."""
        cpu = self._cpu
        shown = cpu if cpu and cpu.records else Deepest(self.preset, self.grid, self.records, None)
        if not self._glued_shown:
            glue_values(shown_preset=shown.preset)
            self._glued_shown = True
        return shown

    def glue(self, **values: Any) -> None:
        """Glue each value under its name for the page's prose (``glue_values``)."""
        glue_values(**values)

    def figure(self, name: str, fig: Any, reads: Any = None, preset: str | None = None) -> None:
        """Glue a figure under ``name`` for the page's ``{glue:figure}`` directive, and close it. A line under the
        figure names its source (``source_line``): the trained runs it ``reads`` (records, or a frame with a
        ``key`` column) or, with none, the computation the page makes."""
        import matplotlib.pyplot as plt
        from myst_nb import glue

        place_source(fig, source_line(reads, preset))
        glue(name, fig, display=False)
        plt.close(fig)
