"""Language-model runs summarized: one row per run, the median and best per cell, tokens per second per model.

Used in: notebooks/ne7_language_modelling.md, tests/test_page_readings_ne7_x2.py.
"""

from __future__ import annotations

from typing import Any

from statetrack.claims.ne7 import claim as ne7

#: The per-run readings summarized per cell, each as the median and the best (lowest) over seeds.
CELL_COLUMNS = ("val ppl", "val bpb", "ppl within", "ppl beyond", "beyond / within", "final train loss")


def tokens_per_second(record: dict[str, Any]) -> float:
    """Training tokens (steps × batch × context) per second of training time."""
    t = record["config"]["train"]
    secs = record["provenance"].get("train_time_s") or float("nan")
    return t["num_steps"] * t["batch_size"] * t["max_len"] / secs if secs == secs and secs > 0 else float("nan")


def run_rows(records: list[dict[str, Any]], fingerprints: dict[str, str]) -> list[dict[str, Any]]:
    """One row per run: cell, seed, status, its summary's losses and perplexities, tokens per second, training
    seconds, parameters, and whether it saw the corpus of ``fingerprints`` (corpus name → fingerprint here)."""
    rows = []
    for r in ne7.with_metrics(records):
        s = r.get("summary", {})
        rows.append({**ne7.cell_of(r), "seed": r["config"]["seed"], "status": r["status"],
                     "final train loss": s.get("final_train_loss"), "loss rise": s.get("loss_rise"),
                     "val ppl": s.get("val_ppl"), "val bpb": s.get("val_bpb"),
                     "ppl within": s.get("test_ppl_within"), "ppl beyond": s.get("test_ppl_beyond"),
                     "beyond / within": s.get("extrap_ratio"), "tokens/s": tokens_per_second(r),
                     "train s": r["provenance"].get("train_time_s"), "params": r.get("num_params"),
                     "corpus as here": s.get("corpus", {}).get("fingerprint") == fingerprints.get(
                         ne7.cell_of(r)["corpus"]),
                     "stale": r["stale"]})
    return rows


def cell_summary(runs: Any) -> Any:
    """The trained runs of a ``run_rows`` frame per (corpus, model, eig_range): median and best of each of
    ``CELL_COLUMNS``, columns named "<reading> (median)" and "<reading> (best)"."""
    table = (runs[runs["status"] == "ok"].groupby(["corpus", "model", "eig_range"], sort=False)[list(CELL_COLUMNS)]
             .agg(["median", "min"]))
    table.columns = [f"{a} ({'median' if b == 'median' else 'best'})" for a, b in table.columns]
    return table


def cell_slug(corpus: str, model: str, eig_range: str) -> str:
    """A cell's name in glue keys: "code_deltanet_neg" ([-1,1]), "_pos" ([0,1]), "_ref" (no range)."""
    return f"{corpus}_{model}_{'neg' if eig_range == '[-1,1]' else 'pos' if eig_range else 'ref'}"


def speed(runs: Any) -> Any:
    """Tokens per second of the trained runs of a ``run_rows`` frame per model (fastest, median, slowest run), the
    runs pooled over both eigenvalue ranges, with the number of runs and the median parameter count."""
    ok = runs[runs["status"] == "ok"]
    out = ok.groupby("model", sort=False).agg(**{"tokens/s, fastest run": ("tokens/s", "max"),
                                                 "tokens/s, median": ("tokens/s", "median"),
                                                 "tokens/s, slowest run": ("tokens/s", "min"),
                                                 "runs": ("tokens/s", "size"), "params": ("params", "median")})
    out.index = [ne7.NAMES.get(m, m) for m in out.index]
    return out


__all__ = ["CELL_COLUMNS", "cell_slug", "cell_summary", "run_rows", "speed"]
