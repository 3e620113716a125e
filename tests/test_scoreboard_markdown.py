"""The intro's scoreboard: one short row per claim with a verdict chip, the deciding number, the experiments' count
and the theory's count apart."""

import re


def _t(held=0, judged=0, not_run=0, not_fitted=0, total=None):
    return {"held": held, "failed": judged - held, "judged": judged, "not_fitted": not_fitted, "inconclusive": 0,
            "not_run": not_run, "total": judged + not_run + not_fitted if total is None else total}


def _row(claim, word, deciding, decisive, ours=None, paper=None, theory=None, preset="quick"):
    theory = theory or {"paper": _t(), "ours": _t(), "implementation": _t()}
    return {"claim": claim, "paper": "NE", "source": "Thm 1", "title": f"title of {claim}",
            "status": word, "preset": preset, "stale": False, "deciding": deciding, "decisive": decisive,
            "our_statements": ours or _t(), "paper_statements": paper or _t(deciding["held"], deciding["judged"]),
            "theory": theory, "statements": [], "paper_preset": {"status": "not run", "recorded": 0, "runs": 4}}


def _st(**kw):
    return {"kind": "learns", "seeds": 3, "seeds_pass": 3, "paper": 1.0, "op": ">=", "threshold": 0.9,
            "value": 0.98, **kw}


def test_each_claim_is_one_short_row_with_a_chip_a_number_and_a_count():
    from statetrack.site.scoreboard import scoreboard_markdown

    table = [
        _row("ne1", "reproduced", {"held": 8, "judged": 8, "ours": False}, _st()),
        _row("bl3", "not reproduced", {"held": 0, "judged": 2, "ours": False}, _st(value=0.634),
             ours=_t(3, 3, not_run=9), paper=_t(0, 2, not_fitted=1)),
        _row("bl4", "ours only: 2 of 3 hold", {"held": 2, "judged": 3, "ours": True},
             _st(paper=None, op="<=", threshold=0.402344), ours=_t(2, 3), paper=_t()),
        _row("ne6", "not run at this preset", {"held": 0, "judged": 0, "ours": False}, None),
        _row("bl1", "not run at this preset", {"held": 0, "judged": 0, "ours": False}, None,
             theory={"paper": _t(3, 3), "ours": _t(1, 1), "implementation": _t(2, 2)}),
        {"claim": "zz9", "paper": "BL", "source": "", "title": "t", "status": "not run"},
    ]
    totals = {"quick": {"paper": _t(3, 4, not_run=5, not_fitted=1), "ours": _t(2, 2)},
              "paper": {"paper": _t(not_run=10), "ours": _t(not_run=2)}}
    text = scoreboard_markdown(table, totals)
    sentence, board = text.split("\n\n")[0], text.split("\n\n")[1].splitlines()
    assert sentence == ("**How much of the papers is tested.** Of the 10 experiment statements the claims read from "
                        "the two papers, at `quick` 4 are decided (3 hold, 1 fails), 1 not fitted, 0 inconclusive and 5 "
                        "not run; at `paper` 0 are decided (0 hold, 0 fail), 0 not fitted, 0 inconclusive and 10 not "
                        "run (our own 2 statements apart).")
    assert board[0] == "| claim | verdict | deciding number | experiments | theory | preset | at `cpu` |"
    cells = {re.search(r"`(\w+) <", r).group(1) if "{ref}" in r else r.split(" | ")[0][2:]: r.split(" | ")[1:]
             for r in board[2:]}
    assert cells["ne1"] == ["{bdg-success}`reproduced`", "0.980\u00a0(paper\u00a01.000)", "8 of 8 hold", "–",
                            "`quick`", "– |"]  # a row without the cpu preset's state shows none
    assert cells["bl3"][:3] == ["{bdg-danger}`not reproduced`", "0.634\u00a0(paper\u00a01.000)",
                                "0 of 2 hold (1 not fitted) · ours: 3 of 3 hold (9 not run)"]  # ours apart
    assert cells["bl4"][:3] == ["{bdg-secondary}`ours only: 2 of 3 hold`", "0.980\u00a0(needs\u00a0≤\u00a00.402)",
                                "ours: 2 of 3 hold"]
    assert cells["ne6"][0] == "{bdg-secondary}`not run at this preset`"
    assert cells["ne6"][2] == "none judged"  # never "0/0"
    assert cells["bl1"][2:4] == ["none judged", "4 of 4"]  # the theory apart: implementation checks not counted
    assert cells["zz9"][0] == "not run"  # no preset has all its records
    assert "0/0" not in text
    one = {"quick": {"paper": _t(1, 1, not_run=2), "ours": _t()}}
    assert "at `quick` 1 is decided (1 holds, 0 fail)" in scoreboard_markdown(table, one)
    assert "Of the 5 claims with records: 1 reproduced, 1 not reproduced, 2 not run at this preset, 1 ours only." \
        in text
    # the sources and the paper preset are folded below
    assert "| ne1 | NE Thm 1 | title of ne1 | not run |" in text


def test_the_chip_carries_the_coverage_and_a_row_says_what_is_inconclusive():
    from statetrack.site.scoreboard import scoreboard_markdown

    row = _row("ne7", "supported", {"held": 4, "judged": 4, "ours": False}, _st(),
               paper={**_t(4, 4, not_run=2), "inconclusive": 2, "total": 8})
    row["label"] = "supported, 4 of 8 decided"
    totals = {"quick": {"paper": _t(4, 4, not_run=4), "ours": _t()}}
    board = scoreboard_markdown([row], totals).split("\n\n")[1].splitlines()
    cells = board[2].split(" | ")[1:]
    assert cells[0] == "{bdg-info}`supported, 4 of 8 decided`"
    assert cells[2] == "4 of 4 hold (2 inconclusive, 2 not run)"
    row["paper_statements"] = {**_t(not_run=3), "inconclusive": 2, "total": 5}
    cells = scoreboard_markdown([row], totals).split("\n\n")[1].splitlines()[2].split(" | ")[1:]
    assert cells[2] == "none decided (2 inconclusive, 3 not run)"


def test_the_deciding_number_says_what_it_measures_and_where_it_comes_from():
    """A metric in words with its unit; "secondary source" on any BL number read secondhand; an ours statement
    beside a paper number says what it stands in for; every metric a claim's statements use has words."""
    from statetrack.display.metric_words import METRIC_WORDS
    from statetrack.site.scoreboard import NBSP, deciding_number
    from statetrack.verdicts.registry import CLAIMS

    loss = deciding_number(_st(kind="comparison", value=0.135, paper=None, op="<=", threshold=0.555,
                               metric="val_loss"))
    assert loss == f"0.135{NBSP}(needs{NBSP}≤{NBSP}0.555), difference in validation loss, nats per byte"
    bl = deciding_number(_st(value=0.5, paper=0.99, provenance="secondary source", outcome="holds"))
    assert bl == f"0.500{NBSP}(paper{NBSP}0.990,{NBSP}secondary{NBSP}source)"
    ours = deciding_number(_st(value=0.03, ours=True, source="ours (stand-in for BL's m = 50)",
                               metric="ood_normalized"))
    assert "ours,\u00a0stand-in\u00a0for\u00a0BL's\u00a0m\u00a0=\u00a050" in ours
    assert ours.endswith(", normalized accuracy at the test lengths")
    used = {s.rule.metric for c in CLAIMS.values() for s in c.statements() if s.kind != "construction"}
    assert used <= set(METRIC_WORDS), sorted(used - set(METRIC_WORDS))
