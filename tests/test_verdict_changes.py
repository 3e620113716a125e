"""The page of changed verdicts: each change put down to the rule behind it, from the two statements alone."""

from __future__ import annotations

import pytest

from statetrack.site.verdict_changes import baseline, cause

BASE = {"outcome": "holds", "ours": False, "statistic": "best", "threshold": 0.9, "op": ">=", "reason": None}


@pytest.mark.parametrize("before,after,rule", [
    (None, BASE, "new statement"),
    (BASE, None, "withdrawn"),
    (BASE, {**BASE, "outcome": "not fitted"}, "no failure without a fit"),
    (BASE, {**BASE, "outcome": "inconclusive"}, "sign test"),
    (BASE, {**BASE, "implementation": True}, "implementation check"),
    (BASE, {**BASE, "ours": True}, "one reading per paper row"),
    (BASE, {**BASE, "statistic": "median", "outcome": "fails"}, "the paper's statistic"),
    (BASE, {**BASE, "outcome": "not run"}, "judged only where the paper's setting runs"),
    ({**BASE, "outcome": "not run"}, BASE, "now run at this preset"),
    (BASE, {**BASE, "outcome": "fails"}, "fresh verdict seeds"),
])
def test_each_change_names_its_rule(before, after, rule):
    assert rule in cause(before, after)


def test_the_baseline_holds_every_claims_quick_verdict():
    from statetrack.verdicts.registry import CLAIMS

    for c in CLAIMS.values():
        assert baseline(c.id)["quick"]["claim"] == c.id
