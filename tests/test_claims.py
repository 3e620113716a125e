"""The shared claim helpers: grid expansion, learning-rate selection, rules, checks, verdict lines, paper lookup."""

import math

import pytest

from helpers import fake_record
from statetrack.verdicts.claim import paper_lookup
from statetrack.verdicts.registry import CLAIMS
from statetrack.verdicts.recipes import Cell, check_choice, check_lrs, check_seeds, expand
from statetrack.verdicts.statements import Statement, Verdict, at_least, at_most, decide, score, select_lr, summary
from statetrack.config import ConfigError, EvalConfig, TrainConfig
from statetrack.models import model_config
from statetrack.runs.store import run_key
from statetrack.tasks import task_config


def _cell(eig="[0,1]", lr=1e-3):
    return Cell(task_config("parity"), model_config("mamba", eig_range=eig, d_model=8),
                TrainConfig(lr=lr), EvalConfig())


def test_expand_is_cell_by_rate_by_seed_and_changes_only_those():
    cells = [_cell("[0,1]"), _cell("[-1,1]")]
    runs = expand(cells, [0, 1, 2], lrs=[1e-2, 1e-3])
    assert len(runs) == 2 * 2 * 3 == len({run_key(c) for c in runs})
    assert [(c.model.eig_range, c.train.lr, c.seed) for c in runs[:4]] == [
        ("[0,1]", 1e-2, 0), ("[0,1]", 1e-2, 1), ("[0,1]", 1e-2, 2), ("[0,1]", 1e-3, 0)]
    for c in runs:  # everything else is the cell's own setting
        assert c.train.num_steps == TrainConfig().num_steps and c.eval == EvalConfig()
    assert [c.train.lr for c in expand([_cell(lr=3e-3)], [0])] == [3e-3]


def test_select_lr_takes_the_best_median_and_ranks_diverged_last():
    runs = []
    table = {1e-2: [0.9, 0.1, 0.2], 1e-3: [0.5, 0.6, 0.4], 1e-4: [None, None, None]}
    for lr, values in table.items():
        runs += [fake_record(c, v) for c, v in zip(expand([_cell(lr=lr)], [0, 1, 2]), values)]
    lr, chosen = select_lr(runs)
    assert lr == 1e-3 and [score(r) for r in chosen] == [0.5, 0.6, 0.4]  # median 0.5 beats 0.2


def test_summary_and_rules_treat_nan_as_failing():
    s = summary([0.2, float("nan"), 0.8, 0.5])
    assert (s["best"], s["median"], s["min"], s["max"]) == (0.8, 0.5, 0.2, 0.8)
    assert s["mad"] == pytest.approx(0.3)
    assert all(math.isnan(v) for v in summary([float("nan")]).values())
    hi, lo = at_least(0.9), at_most(0.1)
    assert hi.passes(0.9) and not hi.passes(0.89) and not hi.passes(float("nan"))
    assert lo.passes(0.1) and not lo.passes(0.11) and not lo.passes(float("nan"))
    assert str(hi) == "≥ 0.9" and str(lo) == "≤ 0.1"


def test_paper_lookup_merges_tables_by_key():
    rows = paper_lookup({"ne_table3": "best", "ne_table5": "median"},
                        lambda r: r["variant"] if r["task"] == "parity" and r["model"] == "Mamba" else None)
    assert rows["[-1,1]"]["paper_best"] == 1.0 and rows["[-1,1]"]["paper_median"] == 1.0
    assert rows["[0,1]"]["paper_mad"] == 0.0 and rows["[0,1]"]["paper_source"] == ["NE Table 3", "NE Table 5"]


@pytest.mark.parametrize("call,needle", [
    pytest.param(lambda: check_seeds([], (0,)), "SEEDS []", id="no-seeds"),
    pytest.param(lambda: check_seeds("012", (0,)), "SEEDS '012'", id="seeds-string"),
    pytest.param(lambda: check_seeds([1.5], (0,)), "SEEDS [1.5]", id="seeds-float"),
    pytest.param(lambda: check_choice("ne1", "model", ["gru"], ("mamba",)), "unknown model 'gru' for ne1", id="choice"),
    pytest.param(lambda: check_choice("ne1", "model", "mamba", ("mamba",)), "bad models 'mamba'", id="choice-str"),
    pytest.param(lambda: check_lrs([float("inf")]), "learning rates [inf]", id="lr-inf"),
    pytest.param(lambda: check_lrs([True]), "learning rates [True]", id="lr-bool"),
])
def test_bad_arguments_are_named(call, needle):
    with pytest.raises(ConfigError) as e:
        call()
    assert needle in str(e.value)


def test_notebook_parameters_accept_what_papermill_passes():
    from statetrack.display.parameters import parameters

    p = parameters(CLAIMS["ne1"], PRESET="smoke", SEEDS="[0, 1, 2]", DEVICE="cpu", FORCE="True", MODELS="['mamba']")
    assert (p.preset, p.seeds, p.device, p.force, p.confirm_long, p.models) == (
        "smoke", [0, 1, 2], "cpu", True, False, ["mamba"])
    assert parameters(CLAIMS["ne1"], SEEDS=[3], MODELS=None).seeds == [3]


@pytest.mark.parametrize("kwargs,needle", [
    pytest.param(dict(PRESET="huge"), "bad PRESET 'huge'", id="preset"),
    pytest.param(dict(SEEDS="abc"), "bad SEEDS 'abc'", id="seeds-word"),
    pytest.param(dict(SEEDS="[0, 1"), "bad SEEDS '[0, 1'", id="seeds-unclosed"),
    pytest.param(dict(SEEDS="[-1]"), "SEEDS [-1]", id="seeds-negative"),
    pytest.param(dict(DEVICE="tpu9"), "'tpu9'", id="device"),
    pytest.param(dict(FORCE="maybe"), "bad FORCE 'maybe'", id="force"),
    pytest.param(dict(MODELS="[mamba"), "bad MODELS '[mamba'", id="extra-list"),
])
def test_bad_notebook_parameters_are_named_before_anything_runs(kwargs, needle):
    from statetrack.display.parameters import parameters

    with pytest.raises(ConfigError) as e:
        parameters(CLAIMS["ne1"], **kwargs)
    assert needle in str(e.value)


def test_cells_not_run_at_a_preset_are_neither_pass_nor_fail():
    recs = [fake_record(c, 1.0) for c in expand([_cell("[-1,1]")], [0, 1, 2])]
    st = Statement("s", "x", "T", "paper text", "learns", "best", at_least(0.9), "test", where={"task": "parity"})
    v = decide("xx", "quick", recs, [st], cell_of=lambda r: {"task": "parity"}, not_run=[{"task": "mod_arith"}])
    assert v.reproduced and v.line.startswith("xx verdict (quick): REPRODUCED: experiments: 1/1 of the paper's hold")
    assert v.rows[-1]["rule"] == "not run at this preset" and v.rows[-1]["pass"] is None
    from statetrack.display.page import cell_frame

    assert list(cell_frame(v)["note"]) == ["", "not run at this preset"]


def test_all_or_nothing_selects_every_implemented_claim_in_registry_order():
    from statetrack.verdicts.registry import CLAIMS, select

    built = [c.id for c in CLAIMS.values() if c.notebook]  # independent of ``implemented``
    assert select([]) == built and select(["all"]) == built
    assert select(["bl2", "ne1"]) == ["bl2", "ne1"]  # named ids keep the order asked for


def test_a_page_shows_every_row_of_a_long_table():
    import pandas as pd

    from statetrack.display.parameters import parameters

    frame = pd.DataFrame({"outcome": ["holds"] * 50 + ["fails"] + ["holds"] * 50})  # a failing row in the middle
    try:
        pd.reset_option("display.max_rows")
        assert "fails" not in repr(frame)  # pandas' default cuts it to its first and last rows
        parameters(CLAIMS["bl2"], PRESET="quick")
        assert "fails" in repr(frame) and repr(frame).count("holds") == 100
    finally:
        pd.reset_option("display.max_rows")
        pd.reset_option("display.max_columns")


def test_a_verdict_shows_its_trained_cells_apart_from_its_checks_and_its_cells_not_run_in_one_line():
    from statetrack.display import tables
    from statetrack.site import audit
    from statetrack.check import Check
    from statetrack.display.page import show_cells, show_statements, statement_frame

    recs = [fake_record(c, 1.0) for c in expand([_cell("[-1,1]")], [0, 1, 2])]
    st = Statement("s", "x", "T", "paper text", "learns", "best", at_least(0.9), "test", where={"task": "parity"})
    other = Statement("t", "y", "T", "paper text", "learns", "best", at_least(0.9), "test", where={"task": "z"})
    v = decide("xx", "quick", recs, [st, other], cell_of=lambda r: {"task": "parity"},
               not_run=[{"task": "mod_arith"}, {"task": "z"}], checks=[Check("c", 1.0, "= 1", True)])
    shown = show_cells(v)._repr_html_()
    trained, listed = audit.tables_in(shown)
    assert [r[0][1] for r in trained.body] == ["parity"] and not trained.folded  # the trained cell, alone
    assert "2 cells not run at this preset.</summary>" in shown and "<li>mod_arith</li>" in shown
    assert "The one check holds." in shown and listed.folded and [r[0][1] for r in listed.body] == ["c"]
    statements = show_statements(v)._repr_html_()
    judged, full = audit.tables_in(statements)
    assert [r[0][1] for r in judged.body] == ["s"] and "1 of 2 statements not run at this preset" in statements
    assert not judged.folded and full.folded and [r[0][1] for r in full.body] == ["s"]  # the statistics, folded
    assert list(statement_frame(v)["statement"]) == ["s", "t"]  # the frame keeps every statement
    assert [text for _, text in judged.head[0]] == ["statement", "what the paper claims", "ours", "outcome"]  # no number
    numbered = Statement("s", "x", "T", "paper text", "learns", "best", at_least(0.9), "test", where={"task": "parity"},
                         paper=0.95)
    judged, _ = audit.tables_in(show_statements(decide("xx", "quick", recs, [numbered],
                                                       cell_of=lambda r: {"task": "parity"}))._repr_html_())
    assert [text for _, text in judged.head[0]] == ["statement", "what the paper claims", "paper", "ours", "outcome"]
    assert judged.body[0][2][1] == "0.950"


def test_the_table_of_contents_is_the_claims_declarations_in_order():
    """``_toc.yml`` lists each claim's notebook once, in the registry's order, under the part of its paper."""
    import yaml

    from statetrack.runs.store import repo_root

    toc = yaml.safe_load((repo_root() / "_toc.yml").read_text())
    listed = [(part["caption"], ch["file"]) for part in toc["parts"] for ch in part["chapters"]
              if ch["file"].startswith("notebooks/")]
    assert [f for _, f in listed] == [f"notebooks/{c.notebook}" for c in CLAIMS.values()]
    part_of = {"NE": "NE ·", "BL": "BL ·", "both": "Across both"}
    for (caption, _), claim in zip(listed, CLAIMS.values()):
        assert caption.startswith(part_of[claim.paper]), (claim.id, caption)
        assert (repo_root() / f"notebooks/{claim.notebook}.md").read_text().count(f"({claim.id})=") == 1
