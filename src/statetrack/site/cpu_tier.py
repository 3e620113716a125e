"""The cpu tier for the book: each paper table with its claims, its budget or why it is not run at cpu, its
estimated cost and its recorded runs, generated at build time from ``verdicts.cpu_plan`` and the store.

Used in: book/gpu_runbook.md (``_generated/cpu_plan.md``), ``statetrack.site.book.write_generated``.
"""

from __future__ import annotations

from statetrack.runs import store
from statetrack.verdicts import cpu, cpu_plan
from statetrack.verdicts.registry import CLAIMS, get_claim


def recorded_runs() -> dict[str, tuple[int, int]]:
    """Each table the plan runs (``cpu.BUDGETS``) → (its cpu runs with a record, its cpu runs), over every claim that
    derives its cpu grid from its paper cells (x1 holds its owners' runs; ne7's byte tables are its own grid's
    corpora), each run once; every claim's grids are built once."""
    runs: dict[str, dict] = {t: {} for t in cpu.BUDGETS}
    for c in CLAIMS:
        claim = get_claim(c)
        if c != "ne7" and claim.cpu_grid is not None:
            continue
        paper = claim.grid(cpu.SOURCE)
        quick = claim.grid("quick") if c != "ne7" else []
        for table in cpu.tables(paper):
            if table not in cpu.BUDGETS:
                continue
            if c == "ne7":
                corpora = sorted({p.task.corpus for p in paper if cpu.table_of(p) == table})
                cfgs = claim.grid(cpu.PRESET, corpora=corpora)
            else:
                cfgs = cpu.derive(paper, quick, budgets={table: cpu.BUDGETS[table]})
            runs[table].update((store.run_key(cfg), cfg) for cfg in cfgs)
    return {t: (len(store.load_records(list(r.values()))), len(r)) for t, r in runs.items()}


def cpu_plan_markdown() -> str:
    """The plan as a table: paper table (task, group or corpus, training lengths, the paper's steps), the claims
    whose paper cells it holds (with their sources), the cpu budget or why it is not run, the estimated verdict
    CPU-hours, and the runs recorded."""
    tables, recorded = cpu_plan.plan(), recorded_runs()
    lines = ["| paper table (task, training lengths, paper's steps) | claims | at `cpu` | est. CPU-hours | recorded |",
             "|---|---|---|---|---|"]
    order = sorted(tables.values(), key=lambda t: (t.status != "run", t.name))
    for t in order:
        claims = ", ".join(f"{{ref}}`{c} <{c}>` ({get_claim(c).paper} {get_claim(c).source})" for c in t.claims)
        if t.status == "run":
            at = f"{cpu.BUDGETS[t.name]:,} steps"
            done, total = recorded[t.name]
            rec = f"{done} of {total}"
        else:
            at, rec = "not run: " + cpu_plan.reason(t.name).split(": ", 1)[-1], "–"
        hours = f"{t.hours:.1f}" if t.hours is not None else "–"
        lines.append(f"| {t.name} | {claims} | {at} | {hours} | {rec} |")
    run = sum(t.hours for t in tables.values() if t.status == "run")
    lines += ["", f"The plan runs {sum(t.status == 'run' for t in tables.values())} tables, about {run:.1f} CPU-hours "
              f"of verdict runs estimated (training and the paper's test, timed per cell on one thread); the tier's "
              f"budget is {cpu_plan.VERDICT_HOURS:g} CPU-hours, the pilots' {cpu.PILOT_HOURS:g}."]
    return "\n".join(lines) + "\n"
