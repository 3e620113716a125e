"""The GPU runbook's recipe per paper table: each table or figure the papers' statements cite, the claims that judge
it, its runs at the ``paper`` preset, the command that reruns exactly those runs, and a bound on its GPU time;
and the clone line with the address the build knows.

Used in: book/gpu_runbook.md (``_generated/paper_recipes.md``, ``_generated/clone.md``),
``statetrack.site.book.write_generated``.
"""

from __future__ import annotations

from statetrack.site.launch import launch_target
from statetrack.runs.store import repo_root, run_key
from statetrack.verdicts.plan import of_source, paper_sources, plan

#: NE's reported upper bound on one training run (App. E: at most 24 hours a run on one RTX 3080); BL reports none.
NE_HOURS_A_RUN = 24


def _order(source: str) -> tuple:
    """NE before BL, then tables, figures, theorems and the rest, each by its number."""
    paper, _, rest = source.partition(" ")
    kind = next((i for i, k in enumerate(("Table", "Fig", "Thm", "Prop")) if rest.startswith(k)), 4)
    digits = "".join(ch if ch.isdigit() else " " for ch in rest).split()
    return (paper != "NE", kind, int(digits[0]) if digits else 0, source)


def recipes(every: list | None = None) -> list[dict]:
    """One row per cited source with trained statements: source, claims, runs (each run key once) and the command;
    ``every``: the paper preset's runs of every claim (``plan(["all"], "paper")``, made here when None)."""
    every = plan(["all"], "paper") if every is None else every
    rows = []
    for source, claims in sorted(paper_sources().items(), key=lambda kv: _order(kv[0])):
        mine = [it for it in every if it.claim in claims]
        keys = {run_key(it.cfg) for it in of_source(mine, source)} if mine else set()
        if not keys:
            continue  # a source read by a theory check only: nothing to train
        rows.append({"source": source, "claims": claims, "runs": len(keys),
                     "command": f'statetrack sweep {" ".join(claims)} --preset paper --source "{source}"'})
    return rows


def recipes_markdown(every: list | None = None) -> str:
    """The recipes as a table; GPU time is unmeasured until ``benchmarks/gpu_check.sh`` has run on a lent GPU, so the
    column gives NE's reported bound (runs × 24 h, one GPU) where NE is the source; BL reports no time."""
    lines = ["| paper table or figure | claims | runs at `paper` | the command (add `--dry-run` to list them first) "
             "| GPU time, one GPU |", "|---|---|---|---|---|"]
    for r in recipes(every):
        claims = ", ".join(f"{{ref}}`{c} <{c}>`" for c in r["claims"])
        bound = (f"unmeasured; at most {r['runs'] * NE_HOURS_A_RUN:,} h by NE's 24 h a run"
                 if r["source"].startswith("NE") else "unmeasured; BL reports no time")
        lines.append(f"| {r['source']} | {claims} | {r['runs']:,} | `{r['command']}` | {bound} |")
    return "\n".join(lines) + "\n"


def clone_markdown() -> str:
    """The first lines of the set-up: clone the repository the build knows (``STATETRACK_REPOSITORY``), or, for a
    local build that knows none, work in the checkout the book was built from."""
    target = launch_target(repo_root())
    first = (f"git clone {target[0]} statetrack && cd statetrack && git checkout {target[1]}" if target else
             "cd statetrack   # the checkout this book was built from (a local build knows no public address)")
    return f"```bash\n{first}\n```\n"
