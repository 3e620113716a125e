"""What ne7's page (language modelling in miniature) computes beside its verdict: the corpora's splits, the paper
preset's cost, the run table with its notes, and the numbers its prose reads of the grids, the corpora, the cells,
Table 4 and the training speed.

- ``grid_values``: the paper and quick grids' sizes and recipe, and the page's training and test windows.
- ``corpus_table``, ``corpus_values``: files and bytes per split of each corpus (``corpus_splits.split_row``).
- ``cost_line``: the paper preset's training tokens and estimated hours (``cost.grid_estimate``) in one line.
- ``run_table``: ``lm_summary.run_rows`` as a frame, with a note when a record is stale or saw another corpus.
- ``cell_values``: each cell's median validation perplexity, bits per byte and perplexity beyond the context.
- ``paper_values``, ``outcome_values``: Table 4's perplexities and the thresholds read from it; each statement's
  outcome.
- ``speed_table``, ``speed_values``: tokens per second per model (``lm_summary.speed``) and the line naming them.
- ``key_columns``: what the table of run keys shows beyond the standard settings.
- ``beyond_directions``: each seed's beyond-context log perplexity ratio and whether it points as NE says, for the
  verdict's pairs and for the retired ones (the seeds the recipe was calibrated on, which no verdict reads).

Used in: notebooks/ne7_language_modelling.md, tests/test_page_ne7.py.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pandas as pd

from statetrack.claims.ne7 import claim as ne7
from statetrack.verdicts.claim import paper_numbers
from statetrack.verdicts.statements import PAPER_TOLERANCE
from statetrack.claims.ne7.page import corpus_splits, lm_summary
from statetrack.display.page import device_label
from statetrack.tasks import byte_lm
from statetrack.runs import store as results
from statetrack.runs.cost import grid_estimate
from statetrack.runs.retired import retired_records
from statetrack.claims.ne7.pairs import pair_setting

STALE = "Note: some records were made by older code (stale); rerun with FORCE = True to refresh them."


ELSEWHERE = "Note: some records saw a different corpus (another Python version); rerun with FORCE = True here."


def _train_tokens(c: Any) -> int:
    """A run config's training tokens: steps × batch × context."""
    return c.train.num_steps * c.train.batch_size * c.train.max_len


def grid_values(grid: list[Any]) -> dict[str, Any]:
    """The paper grid's runs and largest run's training tokens (millions), the quick grid's runs, weight decay,
    warm-up share and training bytes per run (millions), the tolerance, and the page's ``grid``'s context, test
    length and position bin width."""
    paper, quick = ne7.grid("paper"), ne7.grid("quick")
    t = quick[0].train
    return {"paper_runs": len(paper), "paper_tokens_m": max(map(_train_tokens, paper)) / 1e6,
            "quick_runs": len(quick), "quick_weight_decay": t.weight_decay,
            "quick_warmup": t.warmup_steps / t.num_steps, "quick_bytes_m": _train_tokens(quick[0]) / 1e6,
            "tolerance": PAPER_TOLERANCE, "context": grid[0].train.max_len, "test_len": grid[0].eval.max_len,
            "bin_width": grid[0].eval.stride}


def corpus_table(corpora: list[str] | None) -> pd.DataFrame:
    """One ``corpus_splits.split_row`` per corpus (None: the claim's ``CORPORA``)."""
    return pd.DataFrame([corpus_splits.split_row(c) for c in corpora or ne7.CORPORA])


def corpus_values(table: pd.DataFrame) -> dict[str, Any]:
    """Per built-in corpus of ``corpus_table`` (code, docs): ``<name>_files``, ``<name>_mb`` (all splits) and
    ``<name>_train_mb`` (megabytes); and ``stdlib_root``, the standard library's folder."""
    out: dict[str, Any] = {"stdlib_root": str(byte_lm.stdlib_root())}
    for r in table.to_dict("records"):
        if r["corpus"] in ("code", "docs"):
            name = r["corpus"]
            out[f"{name}_files"] = sum(r[f"{s} files"] for s in byte_lm.SPLITS)
            out[f"{name}_mb"] = sum(r[f"{s} bytes"] for s in byte_lm.SPLITS) / 1e6
            out[f"{name}_train_mb"] = r["train bytes"] / 1e6
    return out


def cost_line(grid: list[Any], device: str) -> str:
    """The paper preset's runs, training tokens and, where a benchmark of ``device`` covers them, estimated hours
    of training (``cost.grid_estimate``), in one line."""

    cost = grid_estimate(grid, device)
    return (f"paper preset: {cost['runs']} runs, {cost['tokens'] / 1e9:.2f}B training tokens in all; "
            + (f"estimated {cost['seconds'] / 3600:.1f} h of training for the {cost['measured']} runs with a "
               "benchmark (evaluation not included)" if cost["measured"] else "no benchmark of this device: cost "
               "unknown until the first run (statetrack bench measures it)"))


def run_table(records: list[dict[str, Any]], corpora: list[str] | None) -> pd.DataFrame:
    """``lm_summary.run_rows`` of ``records`` against this machine's corpora (None: the claim's ``CORPORA``);
    prints a note when a record is stale or saw a corpus other than this machine's."""
    here = {ne7.corpus_name(c): byte_lm.load_corpus(c).fingerprint for c in corpora or ne7.CORPORA}
    runs = pd.DataFrame(lm_summary.run_rows(records, here))
    if runs["stale"].any():
        print(STALE)
    if not runs["corpus as here"].all():
        print(ELSEWHERE)
    return runs


def cell_values(table: pd.DataFrame) -> dict[str, float]:
    """``ppl_<cell>``, ``bpb_<cell>`` and ``beyond_<cell>`` (``lm_summary.cell_slug``) of each row of a
    ``lm_summary.cell_summary``: the medians of validation perplexity, bits per byte and perplexity beyond the
    training context."""
    out = {}
    for (corpus, model, eig), row in table.iterrows():
        slug = lm_summary.cell_slug(corpus, model, eig)
        out.update({f"ppl_{slug}": float(row["val ppl (median)"]), f"bpb_{slug}": float(row["val bpb (median)"]),
                    f"beyond_{slug}": float(row["ppl beyond (median)"])})
    return out


def paper_values() -> dict[str, float]:
    """Table 4's Wiki perplexities (``paper_<model>_<pos|neg>`` at 340M/370M, ``paper_deltanet13_<pos|neg>`` at
    1.3B), the loss rise a stable run stays under (``rise_max``) and the largest gap Table 4 calls comparable, in
    percent (``ppl_margin``)."""

    paper = ne7.paper_rows()
    out = {f"paper_{model}_{slug}": paper[(model, eig)]["paper_wiki_ppl"]
           for model in ne7.FAMILIES for eig, slug in (("[0,1]", "pos"), ("[-1,1]", "neg"))}
    for row in paper_numbers("ne_table4"):
        if (row["model"], row["setting"], row["metric"]) == ("DeltaNet", "1.3B, FW-100B", "wiki_ppl"):
            out[f"paper_deltanet13_{'neg' if row['variant'] == '[-1,1]' else 'pos'}"] = row["value"]
    return {**out, "rise_max": ne7.LOSS_RISE_MAX, "ppl_margin": 100 * (math.exp(max(ne7.wiki_gaps().values())) - 1)}


def outcome_values(verdict: Any) -> dict[str, str]:
    """``outcome_<statement id>``: each statement's outcome ("holds", "fails", "not run")."""
    return {f"outcome_{o.statement.id}": o.outcome for o in verdict.statements}


def speed_table(runs: pd.DataFrame, device: str, preset: str) -> pd.DataFrame:
    """``lm_summary.speed`` of a ``run_table`` with the device it ran on (as ``device_label`` words it) and the
    preset."""
    return lm_summary.speed(runs).assign(device=device_label(device), preset=preset)


def speed_values(speed: pd.DataFrame) -> dict[str, str]:
    """``speed_models``: the slowest and the fastest model per token of a ``speed_table``, or that only one ran."""
    fastest = speed["tokens/s, fastest run"]
    return {"speed_models": f"the slowest model per token is {fastest.idxmin()} and the fastest {fastest.idxmax()}"
            if len(speed) > 1 else f"only {speed.index[0]} ran, so the table compares no models"}


def key_columns(c: Any) -> dict[str, Any]:
    """What a run key's row shows beyond the standard settings: the layers and the training tokens."""
    return {"layers": c.model.num_layers, "train tokens": _train_tokens(c)}




def beyond_directions(records: list[dict[str, Any]], retired: list[dict[str, Any]] | None = None) -> pd.DataFrame:
    """One row per model and seed on code where both ranges ran: ln(ppl [-1,1] / ppl [0,1]) beyond the training
    context (the pair's ``test_loss_beyond``, [-1,1] minus [0,1]) and whether it points as NE says (the rule of the
    model's ``<model>-code-beyond`` statement); ``records`` are the verdict's runs, ``retired`` the retired store's
    (default: every retired record whose config is a quick grid's but for its seed and range)."""
    rules = {s.where["model"]: s.rule for s in ne7.statements() if s.id.endswith("-code-beyond")}
    if retired is None:
        quick = {pair_setting(c.to_dict()) for c in ne7.grid("quick")}
        retired = [r for r, _ in retired_records() if r.get("status") == "ok" and pair_setting(r["config"]) in quick]
    rows = []
    for source, recs in (("verdict", records), ("retired", retired)):
        beyond = {(ne7.cell_of(r)["model"], r["config"]["seed"], ne7.cell_of(r)["eig_range"]):
                  r["summary"]["test_loss_beyond"] for r in recs
                  if r["status"] == "ok" and ne7.cell_of(r)["corpus"] == "code" and ne7.cell_of(r)["model"] in rules}
        for model, seed in sorted({(m, sd) for m, sd, _ in beyond}):
            if (model, seed, "[-1,1]") in beyond and (model, seed, "[0,1]") in beyond:
                ratio = beyond[(model, seed, "[-1,1]")] - beyond[(model, seed, "[0,1]")]
                rows.append({"model": ne7.NAMES[model], "seeds": source, "seed": seed, "ln ppl ratio beyond": ratio,
                             "as NE says": "yes" if rules[model].passes(ratio) else "no"})
    return pd.DataFrame(rows, columns=["model", "seeds", "seed", "ln ppl ratio beyond", "as NE says"])


def direction_values(table: pd.DataFrame) -> dict[str, str]:
    """``directions_<model>_<verdict|retired>``: "k of n" seeds of ``beyond_directions`` pointing as NE says."""
    out = {}
    for model in ne7.FAMILIES:
        for source in ("verdict", "retired"):
            sub = table[(table["model"] == ne7.NAMES[model]) & (table["seeds"] == source)]
            out[f"directions_{model}_{source}"] = f"{int((sub['as NE says'] == 'yes').sum())} of {len(sub)}"
    return out

__all__ = ["beyond_directions", "cell_values", "corpus_table", "corpus_values", "cost_line", "direction_values",
           "grid_values", "key_columns", "outcome_values", "paper_values", "run_table", "speed_table", "speed_values"]
