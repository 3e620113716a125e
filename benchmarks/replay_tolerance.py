"""How far a replayed training loss lands from the record when the rounding changes: the basis of replay.TOLERANCE.

    python benchmarks/replay_tolerance.py [--out FILE]

For one committed quick record of each model family (the first by path that logs every 10 steps), the training
losses of steps 0 to 90 are recomputed (``replay.training_losses``, as a replay trains) four ways, each in a fresh
process: one and two threads, each with MKL's own code path and with ``MKL_CBWR=AVX2`` (the rounding another x86
CPU gives). The records were made on other CPU kinds, so the one-thread runs also set another CPU against the
record.

Printed per family, at the logged steps up to ``replay.HORIZON``: the largest relative difference of any way from
the record, of two threads from one, and of the AVX2 path from the native one; then over all logged steps to 90, the
largest difference of two threads from one and the first step where it exceeds ``replay.TOLERANCE``; last, the
seconds a replay of 2 logged steps takes on one thread. ``--out FILE`` writes the same as JSON, with this machine's
CPU kind and the commit.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

LAST = 90  # the last step recomputed: 10 logged steps at log_every 10
WAYS = {"1 thread": ("1", None), "2 threads": ("2", None), "1 thread, AVX2": ("1", "AVX2"),
        "2 threads, AVX2": ("2", "AVX2")}


def records() -> dict[str, Path]:
    """Model family → the first committed quick record of it that logs every 10 steps."""
    from statetrack.runs.store import results_dir

    out: dict[str, Path] = {}
    for path in sorted(results_dir().glob("*/*.json")):
        rec = json.loads(path.read_text())
        if rec["status"] == "ok" and rec.get("preset") == "quick" and rec["config"]["train"]["log_every"] == 10:
            out.setdefault(rec["config"]["model"]["name"], path)
    return out


def measure(threads: int) -> None:
    """In this process: print {path: {step: loss}, path + " s": seconds of a 2-step replay on one thread} as JSON."""
    import torch

    from statetrack.config import RunConfig
    from statetrack.runs.replay import replay, training_losses

    torch.set_num_threads(threads)
    out = {}
    for path in records().values():
        rec = json.loads(path.read_text())
        cfg = RunConfig.from_dict(rec["config"])
        out[str(path)] = training_losses(cfg, torch.device("cpu"), LAST)
        t0 = time.perf_counter()
        replay(rec, cfg, 2, threads=1)
        out[str(path) + " s"] = time.perf_counter() - t0
    print(json.dumps(out))


def rel(a: float, b: float) -> float:
    return abs(a - b) / max(abs(b), 1e-30)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--measure"]:
        measure(int(argv[1]))
        return 0
    from statetrack.runs.replay import HORIZON, TOLERANCE

    got = {}
    for way, (threads, cbwr) in WAYS.items():
        env = {k: v for k, v in os.environ.items() if k != "MKL_CBWR"} | ({"MKL_CBWR": cbwr} if cbwr else {})
        run = subprocess.run([sys.executable, __file__, "--measure", threads], env=env, check=True,
                             capture_output=True, text=True)
        got[way] = json.loads(run.stdout.strip().splitlines()[-1])
    rows = []
    print(f"{'family':<17} {'vs record':>10} {'2 vs 1 thr':>11} {'AVX2':>9} {'2 vs 1 to 90':>13} "
          f"{'over tol at':>12} {'replay 2 s':>11}   (relative differences; first three up to step {HORIZON})")
    for name, path in records().items():
        rec = json.loads(path.read_text())["history"]
        p = str(path)
        steps = [t for t in rec["step"] if t <= LAST]
        near = [i for i, t in enumerate(steps) if t <= HORIZON]
        loss = {w: [got[w][p][str(t)] for t in steps] for w in WAYS}
        vs_record = max(rel(loss[w][i], rec["loss"][i]) for w in WAYS for i in near)
        pairs = (("2 threads", "1 thread"), ("2 threads, AVX2", "1 thread, AVX2"))
        threads = max(rel(loss[a][i], loss[b][i]) for a, b in pairs for i in near)
        avx2 = max(rel(loss[f"{n}, AVX2"][i], loss[n][i]) for n in ("1 thread", "2 threads") for i in near)
        drift = [max(rel(loss[a][i], loss[b][i]) for a, b in pairs) for i in range(len(steps))]
        over = next((t for t, d in zip(steps, drift) if d > TOLERANCE), None)
        seconds = got["1 thread"][p + " s"]
        rows.append({"family": name, "record": path.relative_to(path.parents[2]).as_posix(), "vs_record": vs_record,
                     "threads": threads, "avx2": avx2, "threads_to_90": max(drift), "over_tolerance_at": over,
                     "replay_2_s": round(seconds, 3)})
        print(f"{name:<17} {vs_record:>10.2g} {threads:>11.2g} {avx2:>9.2g} {max(drift):>13.2g} "
              f"{str(over):>12} {seconds:>11.2f}")
    largest = max(max(r["vs_record"], r["threads"], r["avx2"]) for r in rows)
    print(f"largest difference up to step {HORIZON}: {largest:.2g}; TOLERANCE {TOLERANCE:g}")
    if "--out" in argv:
        from statetrack.runs.provenance import cpu_kind, git

        Path(argv[argv.index("--out") + 1]).write_text(json.dumps(
            {"horizon": HORIZON, "tolerance": TOLERANCE, "largest_to_horizon": largest, "rows": rows,
             "cpu_kind": cpu_kind(), "commit": git("rev-parse", "HEAD")}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
