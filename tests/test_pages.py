"""The verdict box a claim page shows under its claim box, on hand-built verdicts."""

import dataclasses

from statetrack.verdicts.statements import Outcome, Statement, Verdict, at_least, at_most, verdict_word
from statetrack.display.page import chip, decisive, deciding, reason, verdict_box
from statetrack.verdicts.registry import CLAIMS

from helpers import all_held_word


def _st(id, provenance="paper text", kind="learns", paper=1.0, rule=None):
    return Statement(id, f"claim {id} | piped", "NE Table 3", provenance, kind,
                     "every" if kind == "theorem forbids" else "best", rule or at_least(0.9), "test", where={},
                     paper=paper)


def _verdict(outcomes, preset="quick"):
    return Verdict("zz1", preset, False, "line", [], word=verdict_word(outcomes), statements=outcomes)


def test_the_box_shows_the_word_the_deciding_statements_a_reason_and_a_link():
    v = _verdict([Outcome(_st("a"), "holds", 0.95, 3, 3), Outcome(_st("b"), "fails", 0.5, 1, 3),
                  Outcome(_st("c", "ours", paper=None), "holds", 0.9, 3, 3), Outcome(_st("d"), "not run", reason="r")])
    box = verdict_box(v)
    assert v.word == "partly reproduced"
    # the chip carries the coverage: two of the paper's three statements are decided ("d" is not run)
    assert box.startswith(":::{admonition} Verdict at preset `quick`: {bdg-warning}`partly reproduced, 2 of 3 decided`"
                          "\n:class: warning")
    assert box.rstrip().endswith(":::") and "{ref}`the Verdict section <zz1-verdict>`" in box
    assert "{doc}`the glossary </book/glossary>`" in box.splitlines()[-2]  # its last line inside the box
    items = [line for line in box.splitlines() if line.startswith("- ")]
    # the paper's statements decide (ours is counted in the reason line only); the failing one comes first
    assert items == ["- {bdg-danger}`fails` claim b | piped. *NE Table 3, paper text*: paper 1.000, ours 0.500 "
                     "(best of seeds). Why: the normalized accuracy at the test lengths is 0.500, below the ≥ 0.900 "
                     "the rule sets.",
                     "- {bdg-success}`holds` claim a | piped. *NE Table 3, paper text*: paper 1.000, ours 0.950 "
                     "(best of seeds)."]
    assert reason(v) == ("Experiments: 1 of 2 of the paper's trained statements judged at this preset hold; 1 fails, listed first "
                         "below; ours: 1 of 1 hold; 1 not run.")  # the box names it by its words, not its id


def test_ours_decide_when_no_statement_of_the_papers_is_judged():
    v = _verdict([Outcome(_st("a"), "not run", reason="r"), Outcome(_st("o", "ours", paper=None), "holds", 0.1, 2, 2)])
    assert [o.statement.id for o in deciding(v)] == ["o"] and v.word == "ours only: 1 of 1 hold"
    assert "{bdg-primary-line}`ours only: 1 of 1 hold, 0 of 1 decided`" in verdict_box(v)
    assert "- {bdg-success}`holds` claim o | piped. *NE Table 3, ours*: ours 0.100 (best of seeds)." in verdict_box(v)
    assert reason(v) == "No trained statement of the paper's is judged at this preset; 1 of 1 of our own hold; 1 not run."


def test_a_violated_impossibility_is_the_decisive_statement():
    imp = _st("t", kind="theorem forbids", paper=None, rule=at_most(0.2))
    v = _verdict([Outcome(_st("a"), "fails", 0.5, 0, 3), Outcome(imp, "fails", 0.9, 0, 3),
                  Outcome(_st("b"), "holds", 1.0, 3, 3)])
    assert v.word == "not reproduced" and decisive(v).statement.id == "t"
    assert "a theorem's bound is violated (one statement, listed first below)" in reason(v)
    assert decisive(_verdict([Outcome(_st("a"), "holds", 1.0, 3, 3), Outcome(_st("b"), "holds", 1.0, 3, 3)]),
                    prefer="b").statement.id == "b"


def test_nothing_judged_says_why_and_shows_no_table():
    v = _verdict([Outcome(_st("a"), "not run", reason="smoke runs are too short")], preset="smoke")
    box = verdict_box(v)
    assert chip(v.word) == "{bdg-light}`not run at this preset`" and ":class: note" in box
    assert "No trained statement is judged at preset smoke: smoke runs are too short; 1 not run." in box and "\n- " not in box
    assert decisive(v) is None


def test_a_long_list_is_cut_to_the_limit_with_a_count_of_the_rest():
    v = _verdict([Outcome(_st(f"s{i}"), "holds", 1.0, 3, 3) for i in range(9)])
    box = verdict_box(v, limit=4)
    assert sum(line.startswith("- ") for line in box.splitlines()) == 4
    assert "5 more statements (5 holding) and every statement, its rule and the seeds that pass: {ref}`the Verdict " \
           "section <zz1-verdict>`; what each word" in box


def test_a_construction_statement_is_theory_counted_apart_and_never_decides():
    from statetrack.display.page import ours_value

    ex = Statement("e", "The construction is exact.", "ours (theory.x)", "ours", "construction", "value", at_least(1),
                   "test", checks="c*")
    held, failed = Outcome(ex, "holds", 3.0, 3, 3), Outcome(ex, "fails", 2.0, 2, 3)
    assert ours_value(held) == "3 of 3 checks hold" and ours_value(failed) == "2 of 3 checks hold"
    v = _verdict([held])
    assert v.word == "not run at this preset" and deciding(v) == [] and "\n- " not in verdict_box(v)
    assert reason(v).endswith("Theory (exact checks, apart): 1 of 1 hold.")
    v = _verdict([Outcome(_st("a"), "holds", 1.0, 3, 3), failed])  # a failing construction leaves the word alone
    assert v.word == all_held_word(v) and [o.statement.id for o in deciding(v)] == ["a"]
    assert reason(v).endswith("Theory (exact checks, apart): 0 of 1 hold.")


def test_not_fitted_and_inconclusive_are_counted_and_decide_nothing():
    neg = _st("n", kind="does not learn", paper=None, rule=at_most(0.2))
    v = _verdict([Outcome(_st("a"), "holds", 1.0, 3, 3), Outcome(neg, "not fitted", reason="not fitted (1 of 3)"),
                  Outcome(_st("c"), "inconclusive", reason="4 of 5")])
    assert v.word == all_held_word(v) and [o.statement.id for o in deciding(v)] == ["a"]
    assert reason(v) == ("Experiments: 1 of 1 of the paper's trained statements judged at this preset hold; "
                         "1 not fitted; 1 inconclusive.")


def _record(seed, stale=False, wall=30.0, ood=0.5, status="ok"):
    return {"config": {"seed": seed}, "status": status, "stale": stale, "summary": {"ood_normalized": ood,
            "id_normalized": 1.0}, "provenance": {"wall_time_s": wall, "train_time_s": wall / 2, "device_name": "cpu"}}


def test_provenance_counts_the_runs_and_their_minutes():
    from statetrack.display.page import provenance

    recs = [_record(0, wall=30.0), _record(1, wall=90.0)]
    assert provenance(recs, "smoke") == {"num_runs": 2, "wall_minutes": 2.0, "device_name": "cpu", "preset": "smoke"}


def test_the_run_table_has_the_shared_columns_in_order_and_notes_stale_records(capsys):
    from statetrack.display.page import STALE_NOTE, Page

    page = Page.__new__(Page)
    page.records = [_record(0, ood=0.25), _record(1, stale=True, status="failed")]
    frame = page.runs(cell=lambda r: {"model": "m"}, config=lambda r: {"lr": 0.1}, after=lambda r: {"x": 1},
                      test="at 500")
    assert list(frame.columns) == ["model", "seed", "lr", "status", "at 500 (normalized)", "in-dist (normalized)",
                                   "train s", "x", "stale"]
    assert frame["at 500 (normalized)"].tolist() == [0.25, 0.5] and frame["train s"].tolist() == [15.0, 15.0]
    assert frame["status"].tolist() == ["ok", "failed"] and capsys.readouterr().out.strip() == STALE_NOTE
    page.records = page.records[:1]
    assert list(page.runs(scores=lambda r: {"s": 2}).columns) == ["seed", "status", "s", "train s", "stale"]
    assert capsys.readouterr().out == ""


def test_a_page_builds_the_claims_grid_and_its_run_keys():
    from statetrack.claims.bl1 import claim as bl1
    from statetrack.display.page import Page
    from statetrack.runs.store import run_key

    page = Page(CLAIMS["bl1"], PRESET="smoke", SEEDS="[0]")
    assert page.preset == "smoke" and page.options == {}
    assert [run_key(c) for c in page.grid] == [run_key(c) for c in bl1.grid("smoke", seeds=[0])]
    keys = page.run_keys(lambda c: {"table seed": c.task.table_seed}).to_dict("records")
    grid = bl1.grid("smoke", seeds=[0])
    assert [k["key"] for k in keys] == [run_key(c) for c in grid]
    c = grid[0]  # the claim's cell first, then the settings the cell does not name, then the extra column
    assert keys[0]["states"] == c.task.num_states and keys[0]["model"] == "full bilinear" and keys[0]["seed"] == 0
    assert keys[0]["lr"] == c.train.lr and keys[0]["test lengths"] == f"{c.eval.min_len}–{c.eval.max_len}"
    assert list(keys[0])[:2] == ["key", "model"] and list(keys[0])[-1] == "table seed"


def test_statement_values_name_every_statement_with_its_value_and_seeds():
    from types import SimpleNamespace

    from statetrack.claims.bl1 import claim as bl1
    from statetrack.verdicts.statements import Outcome
    from statetrack.display.page import statement_values

    a, b = bl1.statements()[:2]
    v = SimpleNamespace(statements=[Outcome(a, "holds", 0.25, 2, 3), Outcome(b, "not run")])
    out = statement_values(v)
    assert out[f"ours_{a.id}"] == 0.25 and out[f"seeds_{a.id}"] == "2 of 3" and out[f"seeds_{b.id}"] == "–"
    assert out[f"ours_{b.id}"] != out[f"ours_{b.id}"]  # NaN where no run was judged


def test_a_theory_headline_opens_the_box_and_leaves_the_word_to_the_experiments():
    from statetrack.display.page import theory_headline

    bl8 = CLAIMS["bl8"]
    ex = Statement(bl8.headline, "The frozen network tracks parity.", "ours (theory.x)", "ours", "construction",
                   "value", at_least(1), "test", checks="c*")
    trained = Outcome(_st("a"), "fails", 0.5, 0, 3)
    v = Verdict("bl8", "quick", False, "line", [], word=verdict_word([Outcome(ex, "holds", 3.0, 3, 3), trained]),
                statements=[trained, Outcome(ex, "holds", 3.0, 3, 3)])
    assert theory_headline(v).statement.id == bl8.headline and v.word == "not reproduced"
    lines = [line for line in verdict_box(v).splitlines() if line.startswith("- ")]
    assert lines[0].startswith("- {bdg-success}`holds` The frozen network tracks parity.")
    assert "tallied apart from the word" in lines[0] and lines[1].startswith("- {bdg-danger}`fails` claim a")
    # a headline that is not run, or an experiment, is not lifted out
    assert theory_headline(_verdict([Outcome(ex, "not run", reason="r"), trained])) is None
    assert theory_headline(_verdict([trained])) is None


def test_the_cpu_verdict_sits_in_the_box_beside_the_teaching_presets_with_every_statement_folded():
    quick = _verdict([Outcome(_st("a"), "holds", 0.95, 3, 3)])
    cpu = _verdict([Outcome(_st("a"), "fails", 0.5, 1, 3),
                    Outcome(_st("b"), "not run", reason="not run at cpu: t is cut from the tier's budget")], "cpu")
    box = verdict_box(quick, deeper=cpu)
    lines = box.splitlines()
    # the outer fence is longer than the dropdown's, which it holds, and the box still ends on it
    assert lines[0].startswith("::::{admonition} Verdict at preset `quick`") and lines[-1] == "::::"
    assert any(line.startswith("**At preset `cpu`**") and "{bdg-danger}`not reproduced, 1 of 2 decided`" in line
               for line in lines)
    start = lines.index(next(line for line in lines if line.startswith(":::{dropdown}")))
    folded = lines[start:lines.index(":::", start)]
    assert "The 2 trained statements at `cpu`" in folded[0]
    # failing first; a statement not run says why
    assert folded[2].startswith("- {bdg-danger}`fails` claim a") and "t is cut from the tier's budget" in folded[3]
    assert verdict_box(quick).splitlines()[-1] == ":::"  # without a deeper preset, as before


def test_the_figures_read_the_cpu_runs_where_that_grid_is_complete(monkeypatch):
    """``Page.deepest``: the cpu grid's records and verdict once every cpu run has a record and the page shows quick
    with its defaults; the page's own preset and records otherwise (a missing cpu run, or chosen seeds)."""
    from helpers import fake_record
    from statetrack.display import page as page_module
    from statetrack.display.page import Page
    from statetrack.runs.store import run_key

    bl8 = CLAIMS["bl8"]
    cpu_grid = bl8.grid("cpu")
    assert cpu_grid and {c.seed for c in cpu_grid}.isdisjoint({c.seed for c in bl8.grid("quick")})
    stored = {run_key(c): fake_record(c, 1.0, claim="bl8") for c in cpu_grid[1:]}  # the store holds these
    monkeypatch.setattr(page_module, "load_records",
                        lambda grid: [stored[run_key(c)] for c in grid if run_key(c) in stored])
    page = Page(bl8, PRESET="quick")
    assert page.deepest().preset == "quick" and page.deeper_verdict() is None  # one cpu run has no record
    stored[run_key(cpu_grid[0])] = fake_record(cpu_grid[0], 1.0, claim="bl8")
    page = Page(bl8, PRESET="quick")
    shown = page.deepest()
    assert shown.preset == "cpu" and [r["key"] for r in shown.records] == [run_key(c) for c in cpu_grid]
    assert shown.verdict is page.deeper_verdict() and shown.verdict.preset == "cpu"
    seeded = Page(bl8, PRESET="quick", SEEDS="[0]")
    assert seeded.deepest().preset == "quick" and seeded.deeper_verdict() is None


def test_a_statement_that_does_not_hold_says_why_from_its_own_numbers():
    """``why``: a failing statement's fitted seeds, value against the threshold and a shortcut's score; a not-fitted
    one's fitted seeds; an inconclusive one's sign test; a not-run one's reason; nothing for one that holds."""
    from dataclasses import replace

    from statetrack.display.page import why

    s = replace(_st("w"), shortcut=0.9, shortcut_name="the best predictor that sees only the last 40 letters")
    fails = Outcome(s, "fails", 0.56, 0, 3, fitted=3)
    assert why(fails) == ("Why: 3 of 3 seeds fitted their training lengths; the normalized accuracy at the test "
                          "lengths is 0.560, below the ≥ 0.900 the rule sets; the best predictor that sees only the "
                          "last 40 letters scores 0.900.")
    negative = Outcome(_st("n", kind="does not learn", rule=at_most(0.1)), "fails", 0.4, 1, 3, fitted=3)
    assert "is 0.400, above the ≤ 0.100 the rule sets" in why(negative)
    assert why(Outcome(_st("f"), "not fitted", seeds=3, fitted=1)).startswith("Why: 1 of 3 seeds fitted")
    assert "p = 0.250" in why(Outcome(_st("i"), "inconclusive", p_value=0.25))
    assert why(Outcome(_st("r"), "not run", reason="not run at cpu: t is cut")) == "not run at cpu: t is cut."
    assert why(Outcome(_st("h"), "holds", 0.95, 3, 3)) == ""


def test_a_does_not_learn_statement_read_beside_its_control_says_so_in_the_box_and_the_table():
    """ne1's [0,1] rows: judged beside the [-1,1] arm (the paper's one change), so "fitted 0" beside "holds" is
    explained where the statement is shown."""
    from statetrack.display.page import control_note, statement_frame

    neg = _st("n", kind="does not learn", paper=0.0, rule=at_most(0.1))
    neg = dataclasses.replace(neg, control={"model": "mamba", "eig_range": "[-1,1]"})
    o = Outcome(neg, "holds", 0.0, 3, 3, fitted=0)
    note = control_note(o)
    assert "positive control (model mamba, eig_range [-1,1])" in note and note in verdict_box(_verdict([o]))
    assert statement_frame(_verdict([o]))["note"].tolist() == [note]
    assert control_note(Outcome(dataclasses.replace(neg, control=None), "holds", 0.0, 3, 3)) == ""
