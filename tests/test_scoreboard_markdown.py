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


def _boards(text):
    """The scoreboard's first table (claim → cells) and the counts table below it (claim → cells)."""
    blocks = text.split("\n\n")
    board = blocks[1].splitlines()  # ":::{table}", ":class: scoreboard", then the blank line before the rows
    counts = blocks[3].splitlines()
    first = {re.search(r"`(\w+) ·", r).group(1) if "{ref}" in r else r.split(" | ")[0][2:]: r.split(" | ")[1:]
             for r in board[2:-1]}
    second = {r.split(" | ")[0][2:]: r.split(" | ")[1:] for r in counts[2:]}
    return blocks, board, first, second


def test_each_claim_is_one_short_row_with_a_chip_a_number_and_the_cpu_word():
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
    table[1]["cpu_preset"] = {"status": "partly reproduced", "label": "partly reproduced, 3 of 4 decided",
                              "paper_statements": {**_t(1, 3, not_run=1), "inconclusive": 0},
                              "our_statements": _t(), "stale": False}
    table[2]["cpu_preset"] = {"status": "not run", "recorded": 5, "runs": 12}
    table[2]["short"] = "short of bl4"
    totals = {"quick": {"paper": _t(3, 4, not_run=5, not_fitted=1), "ours": _t(2, 2)},
              "paper": {"paper": _t(not_run=10), "ours": _t(not_run=2)}}
    text = scoreboard_markdown(table, totals)
    blocks, board, first, second = _boards(text)
    assert blocks[0] == ":::{table}\n:class: scoreboard"  # the class the style sheet makes compact
    assert board[0] == "| claim | verdict at `quick` | the number behind it | at `cpu` |" and board[-1] == ":::"
    assert "{ref}`ne1 · title of ne1 <ne1>`" in board[2] and "{ref}`bl4 · short of bl4 <bl4>`" in text
    assert first["ne1"] == ["{bdg-success}`reproduced`", "0.980\u00a0(paper\u00a01.000)", "– |"]  # no cpu state: –
    assert first["bl3"] == ["{bdg-danger}`not reproduced`", "0.634\u00a0(paper\u00a01.000)",
                            "{bdg-warning}`partly reproduced, 3 of 4 decided` |"]
    assert first["bl4"] == ["{bdg-primary-line}`ours only: 2 of 3 hold`", "0.980\u00a0(needs\u00a0≤\u00a00.402)",
                            "not run (5 of 12 runs recorded) |"]
    assert first["ne6"][:2] == ["{bdg-light}`not run at this preset`", "–"]
    assert first["zz9"] == ["not run", "–", "– |"]  # no preset has all its records
    assert blocks[2] == ("**How much of the papers is tested.** Of the 10 experiment statements the claims read from "
                         "the two papers, at `quick` 4 are decided (3 hold, 1 fails), 1 not fitted, 0 inconclusive and "
                         "5 not run; at `paper` 0 are decided (0 hold, 0 fail), 0 not fitted, 0 inconclusive and 10 "
                         "not run (our own 2 statements apart).")
    assert second["ne1"] == ["`quick`", "8 of 8 hold", "–", "not run |"]
    assert second["bl3"][1:] == ["0 of 2 hold (1 not fitted) · ours: 3 of 3 hold (9 not run)", "–",
                                 "1 of 3 hold (1 not run) |"]  # ours apart; the cpu preset's counts beside
    assert second["bl4"][1] == "ours: 2 of 3 hold"
    assert second["ne6"][1] == "none judged"  # never "0/0"
    assert second["bl1"][1:3] == ["none judged", "4 of 4"]  # the theory apart: implementation checks not counted
    assert "0/0" not in text
    one = {"quick": {"paper": _t(1, 1, not_run=2), "ours": _t()}}
    assert "at `quick` 1 is decided (1 holds, 0 fail)" in scoreboard_markdown(table, one)
    assert "Of the 5 claims with records: 1 reproduced, 1 not reproduced, 2 not run at this preset, 1 ours only." \
        in text
    assert "positive control" in text  # the rule for "does not learn" names both ways to judge it
    # the sources and the paper preset are folded below
    assert "| ne1 | NE Thm 1 | title of ne1 | not run |" in text


def test_every_claim_has_a_title_short_enough_for_the_board():
    from statetrack.verdicts.claim import SHORT_TITLE
    from statetrack.verdicts.registry import CLAIMS

    long = {c.id: c.short or c.title for c in CLAIMS.values() if len(c.short or c.title) > SHORT_TITLE}
    assert long == {}


def test_the_chip_carries_the_coverage_and_a_row_says_what_is_inconclusive():
    from statetrack.site.scoreboard import scoreboard_markdown

    row = _row("ne7", "supported", {"held": 4, "judged": 4, "ours": False}, _st(),
               paper={**_t(4, 4, not_run=2), "inconclusive": 2, "total": 8})
    row["label"] = "supported, 4 of 8 decided"
    totals = {"quick": {"paper": _t(4, 4, not_run=4), "ours": _t()}}
    _, _, first, second = _boards(scoreboard_markdown([row], totals))
    assert first["ne7"][0] == "{bdg-info}`supported, 4 of 8 decided, 2 inconclusive`"
    assert second["ne7"][1] == "4 of 4 hold (2 inconclusive, 2 not run)"
    row["paper_statements"] = {**_t(not_run=3), "inconclusive": 2, "total": 5}
    _, _, _, second = _boards(scoreboard_markdown([row], totals))
    assert second["ne7"][1] == "none decided (2 inconclusive, 3 not run)"


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
