"""Write the cpu preset's plan (``verdicts.cpu_plan``) as JSON: every paper table with its ladder, budget, estimated
verdict CPU-hours and share of the papers' statements, what the cut runs and leaves out (with why), the seed block,
ne7's pair count with the spread it comes from, the pilots' CPU-hours, and the sweep's dry run (training only).

    .venv/bin/python benchmarks/cpu_plan.py --out benchmarks/results/cpu_plan.json
"""

from __future__ import annotations

import argparse
import json
import sys

from statetrack.claims.ne7 import claim as ne7
from statetrack.claims.ne7.pairs import FEWEST, MOST, POWER, needs
from statetrack.verdicts import cpu, cpu_plan, ladder
from statetrack.verdicts.plan import dry_run, plan


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    tables = cpu_plan.plan()
    states = ladder.ladders()
    rows = []
    for t in sorted(tables.values(), key=lambda x: (x.status != "run", x.name)):
        st = states.get(t.name)
        rows.append({**t._asdict(), "reason": cpu_plan.reason(t.name) or None,
                     "ladder": [r._asdict() for r in st.rungs] if st else None})
    run = [t for t in tables.values() if t.status == "run"]
    dry = dry_run(plan(["all"], cpu.PRESET), "cpu")
    out = {
        "rule": {"verdict_hours": cpu_plan.VERDICT_HOURS, "pilot_hours": cpu.PILOT_HOURS,
                 "cap_seconds": cpu.CAP_SECONDS, "ladder": list(cpu.LADDER), "pilot_seeds": list(cpu.PILOT_SEEDS),
                 "seed_base": cpu.SEED_BASE, "price": cpu_plan.PRICE,
                 "cut": "tables with a budget, most papers' statements decided per estimated CPU-hour first "
                        "(ties: cheapest), while the total stays within verdict_hours"},
        "tables": rows,
        "estimate_hours": {"run": sum(t.hours for t in run), "cut": sum(cpu.CUT.values())},
        "pilots_cpu_hours": ladder.spent_seconds(list(states.values())) / 3600,
        "ne7_pairs": {"count": ne7.CPU_PAIRS, "fewest": FEWEST, "most": MOST, "power": POWER,
                      "needs": [n._asdict() for n in needs()]},
        "dry_run_training_hours": {r["claim"]: {"runs": r["runs"], "missing": r["missing"], "hours": r["hours"]}
                                   for r in dry},
    }
    text = json.dumps(out, indent=1, default=float)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main(sys.argv[1:])
