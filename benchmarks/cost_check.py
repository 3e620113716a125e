"""How far the training-cost estimate is from the recorded runs: each setting estimated without its own records.

    python benchmarks/cost_check.py [cpu|cuda]     # one line per setting, then the median error of each method

A *setting* is what ``cost.run_throughput`` keys a rate by (model, parameter count, batch size, training lengths).
For each setting with at least one other recorded size of the same model, batch and lengths, the estimate
``cost.estimate_seconds`` gives its first record's config when that setting's own records are left out is set against
the fastest recorded run of the setting; so is the benchmark scaled by parameter count alone (the estimate with no
records). The error of an estimate is max(estimate / measured, measured / estimate).
"""

import math
import statistics
import sys

from statetrack.runs import cost
from statetrack.config import RunConfig
from statetrack.runs.store import RecordError, read_record, results_dir


def first_configs(device_type: str) -> dict[tuple, RunConfig]:
    """Setting → the config of its first "ok" record on ``device_type`` (records in path order)."""
    out: dict[tuple, RunConfig] = {}
    for path in sorted(results_dir().glob("*/*.json")):
        try:
            rec = read_record(path)
        except RecordError:
            continue
        if rec["status"] != "ok" or str(rec["provenance"].get("device", "")).split(":")[0] != device_type:
            continue
        t = rec["config"]["train"]
        key = (rec["config"]["model"]["name"], int(rec["num_params"]), int(t["batch_size"]), int(t["min_len"]),
               int(t["max_len"]))
        out.setdefault(key, RunConfig.from_dict(rec["config"]))
    return out


def main(device_type: str = "cpu") -> None:
    tp = cost.throughput(device_type)
    configs = first_configs(device_type)
    errors: dict[str, list[float]] = {"records, own setting left out": [], "benchmark scaled by size": []}
    for key, rate in sorted(tp.runs.items()):
        others = {k: v for k, v in tp.runs.items() if k != key}
        if key not in configs or not any(k[0] == key[0] and k[2:] == key[2:] for k in others):
            continue
        cfg, measured = configs[key], cost.train_tokens(configs[key].train) / rate
        row = []
        for method, runs in zip(errors, (others, {})):
            est = cost.estimate_seconds(cfg, cost.Throughput(tp.bench, runs))
            if est is not None:
                errors[method].append(max(est / measured, measured / est))
                row.append(f"{method} {est:,.0f} s")
        print(f"{key}: measured {measured:,.0f} s; " + "; ".join(row))
    for method, errs in errors.items():
        if errs:
            within = sum(e <= 1.5 for e in errs)
            print(f"{method}: median error {statistics.median(errs):.2f}x, {within} of {len(errs)} within 1.5x, "
                  f"geometric mean {math.exp(statistics.fmean(map(math.log, errs))):.2f}x")


if __name__ == "__main__":
    main(*sys.argv[1:2])
