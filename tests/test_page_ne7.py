"""The ne7 page's readings (``statetrack.claims.ne7.page.readings``) and figures (``claims.ne7.page.figures``): the quick recipe
against the numbers its prose states, the corpus values of a hand-made table, Table 4 read from the CSV with the
standard library, the notes of the run table, the cells' medians and the speed line of hand-made frames, the
figures' panels and lines counted on a tiny set of records."""

from __future__ import annotations

import csv
import math
import statistics
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

import pandas as pd
import pytest

from helpers import fake_record

from statetrack.claims.ne7.page import lm_summary
from statetrack.claims.ne7.page import readings as lm
from statetrack.claims.ne7 import claim as ne7
from statetrack.claims.ne7.page import lm_curves
from statetrack.claims.ne7.page.figures import lm_table, position_perplexity, records_explorer, training_loss
from statetrack.runs.store import paper_dir
from statetrack.tasks import byte_lm


def test_grid_values_are_the_quick_recipe_the_page_states():
    v = lm.grid_values(ne7.grid("quick"))
    # quick: 300 steps of batch 8 windows of 256 bytes, tests of 1,024 bytes; two pairs on code, 5 seeds
    assert v["quick_bytes_m"] == pytest.approx(300 * 8 * 256 / 1e6)
    assert (v["context"], v["test_len"], v["quick_runs"]) == (256, 1024, 2 * 2 * 5)
    assert v["quick_warmup"] == pytest.approx(ne7.grid("quick")[0].train.warmup_steps / 300)
    paper = ne7.grid("paper")
    assert v["paper_runs"] == len(paper)
    assert v["paper_tokens_m"] == pytest.approx(3000 * 16 * 2048 / 1e6)  # a code run at paper: 3,000 × 16 × 2048


def test_corpus_values_sum_the_splits_of_the_built_in_corpora_only():
    row = {"train files": 8, "val files": 1, "test files": 2, "train bytes": 800_000, "val bytes": 100_000,
           "test bytes": 150_000}
    table = pd.DataFrame([{"corpus": "code", **row}, {"corpus": "/my/texts", **row}])
    v = lm.corpus_values(table)
    assert v == {"stdlib_root": str(byte_lm.stdlib_root()), "code_files": 11, "code_mb": pytest.approx(1.05),
                 "code_train_mb": pytest.approx(0.8)}


def test_the_corpus_table_has_a_row_per_corpus(tmp_path):
    for i in range(6):
        (tmp_path / f"doc{i}.txt").write_bytes(b"y" * (5 + i))
    table = lm.corpus_table([str(tmp_path)])
    assert list(table["corpus"]) == [str(tmp_path)]
    assert sum(table[f"{s} bytes"].iloc[0] for s in byte_lm.SPLITS) == sum(5 + i for i in range(6))


def test_paper_values_are_table_4s_wiki_perplexities():
    with (paper_dir() / "ne_table4.csv").open(newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["metric"] == "wiki_ppl" and r["variant"]]
    ppl = {(r["model"], r["setting"], r["variant"]): float(r["value"]) for r in rows}
    v = lm.paper_values()
    assert v["paper_deltanet_pos"] == ppl[("DeltaNet", "340M, FW-100B", "[0,1]")]
    assert v["paper_mamba_neg"] == ppl[("Mamba", "370M, FW-100B", "[-1,1]")]
    assert v["paper_deltanet13_neg"] == ppl[("DeltaNet", "1.3B, FW-100B", "[-1,1]")]
    fw = {k for k in ppl if "FW" in k[1]}
    gaps = [ppl[(m, s, "[-1,1]")] / ppl[(m, s, "[0,1]")] for m, s, e in fw if e == "[0,1]"]
    assert v["ppl_margin"] == pytest.approx(100 * (max(gaps) - 1))
    assert v["rise_max"] == pytest.approx(0.1 * math.log(257))


def _records(stale=False, fingerprints=None):
    """ne7's smoke grid, hand-built; each run saw the corpus of fingerprint ``fingerprints[its corpus]``."""
    out = []
    for i, c in enumerate(ne7.grid("smoke")):
        seen = (fingerprints or {}).get(c.task.corpus)
        summary = {"val_ppl": 100.0 + i, "val_bpb": 6.0 + i / 10, "test_ppl_within": 90.0, "test_ppl_beyond": 95.0 + i,
                   "extrap_ratio": 1.0, "corpus": {"fingerprint": seen}}
        rec = fake_record(c, 0.3, summary=summary, stale=stale, num_params=1000,
                          history={"step": list(range(0, 16, 2)), "loss": [5.0 - 0.2 * s for s in range(8)]},
                          provenance={"train_time_s": 2.0 + i, "device_name": "cpu"})
        out.append({**rec, "by_length": {"length": [8, 16, 24, 32], "loss": [5.0, 4.5, 4.4, 4.3]}})
    return out


def test_the_run_table_notes_stale_records_and_another_corpus(capsys):
    here = {c: byte_lm.load_corpus(c).fingerprint for c in ne7.CORPORA}
    runs = lm.run_table(_records(fingerprints=here), None)
    assert len(runs) == len(ne7.grid("smoke")) and capsys.readouterr().out == ""
    lm.run_table(_records(stale=True, fingerprints={ne7.CODE: "elsewhere"}), None)
    assert capsys.readouterr().out.splitlines() == [lm.STALE, lm.ELSEWHERE]


def test_cell_values_are_the_medians_of_each_cell():
    runs = pd.DataFrame([{"corpus": "code", "model": "deltanet", "eig_range": e, "status": "ok", "val ppl": p,
                          "val bpb": p / 10, "ppl within": 1.0, "ppl beyond": p + 1, "beyond / within": 1.0,
                          "final train loss": 1.0} for e, ps in (("[-1,1]", (3.0, 5.0, 4.0)), ("[0,1]", (7.0, 6.0)))
                         for p in ps])
    v = lm.cell_values(lm_summary.cell_summary(runs))
    assert v["ppl_code_deltanet_neg"] == statistics.median([3.0, 5.0, 4.0]) == 4.0
    assert v["bpb_code_deltanet_pos"] == pytest.approx(statistics.median([0.7, 0.6]))
    assert v["beyond_code_deltanet_pos"] == pytest.approx(7.5) and len(v) == 6


def test_outcomes_speed_line_and_key_columns():
    verdict = SimpleNamespace(statements=[SimpleNamespace(statement=SimpleNamespace(id="a"), outcome="holds"),
                                          SimpleNamespace(statement=SimpleNamespace(id="b"), outcome="not run")])
    assert lm.outcome_values(verdict) == {"outcome_a": "holds", "outcome_b": "not run"}
    two = pd.DataFrame({"tokens/s, fastest run": [10.0, 30.0]}, index=["Mamba", "DeltaNet"])
    assert lm.speed_values(two)["speed_models"] == "the slowest model per token is Mamba and the fastest DeltaNet"
    assert lm.speed_values(two.iloc[:1])["speed_models"].startswith("only Mamba ran")
    c = ne7.grid("quick")[0]
    assert lm.key_columns(c) == {"layers": 2, "train tokens": 300 * 8 * 256}


def test_the_figures_draw_a_panel_per_corpus_and_a_line_per_run():
    records = _records()
    corpora = sorted({ne7.cell_of(r)["corpus"] for r in records}, key=["code", "docs"].index)
    for fig in (training_loss(records, "smoke"), position_perplexity(records, 8, "smoke")):
        assert [ax.get_title() for ax in fig.axes] == [f"corpus: {c}" for c in corpora]
        for ax, corpus in zip(fig.axes, corpora):
            runs = sum(ne7.cell_of(r)["corpus"] == corpus for r in records)
            assert sum(len(line.get_xdata()) > 2 for line in ax.get_lines()) == runs
    assert [c["name"] for c in records_explorer(records, 8).controls()] == ["view"]


def test_the_explorer_table_holds_every_run_in_both_views():
    records = _records()
    table = lm_table(pd.DataFrame(lm_curves.loss_points(records)), pd.DataFrame(lm_curves.position_points(records)))
    # every run: 4 position bins (perplexity) and 8 logged steps (loss)
    assert (table["view"] == "ppl").sum() == 4 * len(records) and (table["view"] == "loss").sum() == 8 * len(records)
    first = ne7.cell_of(records[0])
    name = {"deltanet": "DeltaNet", "mamba": "Mamba", "transformer": "Transformer"}[first["model"]]
    panel = f"{first['corpus']}: {name} {first['eig_range']}".strip()
    at16 = table[(table["view"] == "ppl") & (table["panel"] == panel) & (table["x"] == 16)]
    assert list(at16["y"].unique()) == [round(math.exp(4.5), 3)]


def test_beyond_directions_pair_each_seeds_ranges_and_read_the_retired_pairs():
    """The retired Mamba pair of seed 0, read straight from its two files: [-1,1] minus [0,1] beyond the context,
    negative, so not the direction NE reports for Mamba; docs runs have no pair on code and give no row."""
    import json

    from statetrack.claims.ne7.page import readings
    from statetrack.runs.provenance import repo_root

    folder = repo_root() / "data" / "retired" / "byte_lm"
    neg = json.loads((folder / "mamba-neg-s0-6bdfc6df.json").read_text())["summary"]["test_loss_beyond"]
    pos = json.loads((folder / "mamba-pos-s0-33bffc6e.json").read_text())["summary"]["test_loss_beyond"]
    retired = [json.loads(f.read_text()) for f in sorted(folder.glob("*.json"))]  # the committed retired store
    table = readings.beyond_directions([], retired)
    row = table[(table["model"] == "Mamba") & (table["seed"] == 0)].iloc[0]
    assert row["seeds"] == "retired" and row["ln ppl ratio beyond"] == pytest.approx(neg - pos, abs=1e-12)
    assert row["as NE says"] == ("yes" if neg - pos >= 0 else "no") == "no"
    assert set(table["seeds"]) == {"retired"}
    assert readings.direction_values(table)["directions_mamba_verdict"] == "0 of 0"
