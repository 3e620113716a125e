"""bl2's page readings (``statetrack.claims.bl2.page``) against BL's numbers read straight from data/paper/ and
hand-built verdicts and records; its table figure (``modulus_table``) from a tiny verdict; the statement readings
it shares with bl3 and bl6 (``display.statement_readings``)."""

import csv
import math

import matplotlib

matplotlib.use("Agg")

from helpers import fake_record  # noqa: E402

from statetrack.claims.bl2 import page as analysis
from statetrack.claims.bl2 import claim as bl2
from statetrack.verdicts.statements import Verdict
from statetrack.verdicts.statements import Outcome, from_paper  # noqa: E402
from statetrack.claims.bl2.page import modulus_table  # noqa: E402
from statetrack.display.statement_readings import failing, rule_values  # noqa: E402
from statetrack.runs.provenance import repo_root  # noqa: E402


def _csv(model_prefix: str) -> dict[int, float]:
    """BL's mod-addition table rows whose model name starts with ``model_prefix``: m → number (the largest where
    several rows match)."""
    out: dict[int, float] = {}
    with open(repo_root() / "data" / "paper" / "bl_modular_addition.csv") as f:
        for row in csv.DictReader(f):
            if row["model"].startswith(model_prefix) and row["task"] == "modular_addition":
                m = int(row["setting"].removeprefix("m="))
                out[m] = max(out.get(m, -1.0), float(row["value"]))
    return out


def test_paper_values_are_the_csv_numbers():
    v = analysis.paper_values()
    assert v["paper_full_50"] == _csv("Bilinear (full)")[50]
    assert v["paper_lstm_25"] == _csv("LSTM")[25]
    assert (v["bl_rotation_m10"], v["bl_rotation_m25"]) == (_csv("R2")[10], _csv("R2")[25])
    assert (v["paper_diagonal_2"], v["paper_diagonal_3"]) == (_csv("Block-diag b=1")[2], _csv("Block-diag b=1")[3])
    baselines = [x for prefix in ("Mamba", "Transformer") for x in _csv(prefix).values()]
    assert v["paper_baseline_max"] == max(baselines)


def _statement(id, value, kind="learns"):
    """A BL statement on a number: "learns" judges ours ≥ value − 0.1, "does not learn" ours ≤ value + 0.1."""
    return from_paper(id, f"statement {id}", "BL", kind, "best", value, {"model": "full", "m": 2}, tolerance=0.1)


def test_failing_lists_the_failing_ids_in_order_and_says_none_when_none_fails():
    a, b, c = _statement("a", 1.0), _statement("b", 0.0, "does not learn"), _statement("c", 1.0)
    v = Verdict("bl2", "quick", False, "", statements=[Outcome(c, "fails"), Outcome(a, "holds"), Outcome(b, "fails")])
    assert failing(v) == "c, b"
    assert failing(Verdict("bl2", "quick", True, "", statements=[Outcome(a, "holds")])) == "none"


def test_rule_values_name_each_statements_number_and_rule():
    s = [_statement("x-1", 0.75), _statement("y-2", 0.05, "does not learn")]
    assert rule_values(s, {"x": "x-1", "y": "y-2"}) == {"bl_x": 0.75, "rule_x": "≥ 0.65",
                                                                "bl_y": 0.05, "rule_y": "≤ 0.15"}


def test_ours_block2_id_is_the_best_finished_block2_run():
    cfgs = {bl2.cell_of({"config": c.to_dict()})["model"]: c for c in bl2.grid("quick", seeds=[0])}
    records = [fake_record(cfgs["block2"], 0.1, summary={"id_normalized": 0.4}),
               fake_record(cfgs["block2"], 0.2, summary={"id_normalized": 0.7}),
               fake_record(cfgs["block2"], None),  # diverged: no summary
               fake_record(cfgs["full"], 1.0, summary={"id_normalized": 0.99})]
    v = Verdict("bl2", "quick", True, "")
    assert analysis.ours_values(v, records)["ours_block2_id"] == 0.7
    assert math.isnan(analysis.ours_values(v, records[3:])["ours_block2_id"])


def test_values_hold_every_name_the_prose_reads():
    text = (repo_root() / "notebooks" / "bl2_modular_addition.md").read_text()
    v = analysis.values(Verdict("bl2", "quick", True, ""), [])
    for name in v:
        assert f"`{name}" in text, name
    for name in ("rule_block2", "bl_block2_all", "tolerance", "failing", "rule_baseline_m25"):
        assert name in v


def test_modulus_table_draws_every_model_and_modulus():
    rows = [{"part": "trained", "model": "full", "m": 25, "ours_best": 0.8, "paper_best": 1.0}]
    fig = modulus_table(Verdict("bl2", "quick", True, "", rows=rows), "quick")
    ax = fig.axes[0]
    assert len(ax.get_yticklabels()) == len(bl2.MODELS)
    assert [t.get_text() for t in ax.get_xticklabels()] == [f"m = {m}" for m in bl2.PAPER_MODULI]
    assert any("ours 0.80" in t.get_text() for t in ax.texts)


def test_block_tracker_explorer_reads_the_running_sum_and_a_rotation_done_by_hand():
    """On Z_5 the true answers are the running sums mod 5 (a loop), the model agrees with them, its first block is
    the point (cos, sin) of 2π·sum/5 on the circle rotated from its start, and b = 1 has no tracker; the controls
    are the task, b and the word."""
    from statetrack.display.block_tracker import EXAMPLES, block_table, block_tracker_explorer

    states, answers, notes = block_table(["Z_5"])
    for name in EXAMPLES:
        word = [int(x) for x in notes[(notes["word"] == name)]["note"].iloc[0].split(":")[0].split()[1:]]
        sums, total = [], 0
        for x in word:
            total = (total + x) % 5
            sums.append(total)
        rows = answers[answers["word"] == name]
        assert list(rows[rows["answer"] == "true answer"]["value"]) == sums
        assert list(rows[rows["answer"] == "model"]["value"]) == sums
        block = states[states["word"] == name].pivot(index="t", columns="coordinate", values="value").to_numpy()
        start = math.atan2(block[0, 1], block[0, 0]) - 2 * math.pi * sums[0] / 5
        for (x, y), s in zip(block, sums):
            angle = start + 2 * math.pi * s / 5
            assert abs(x - math.cos(angle) * math.hypot(x, y)) < 2e-3 and abs(y - math.sin(angle) * math.hypot(x, y)) < 2e-3
    assert "1 1 1 1 1 1 1 1 1 1 1 1" in notes["note"].iloc[0]
    assert all("no exact tracker" in n for n in notes[notes["b"] == 1]["note"])
    assert not any("no exact tracker" in n for n in notes[notes["b"] >= 2]["note"])
    explorer = block_tracker_explorer("Z_5", 2, (states, answers, notes))
    assert [c["name"] for c in explorer.controls()] == ["task", "b", "word"]
