"""The null-model contract: no trained statement holds on the best constant predictor's records.

For every claim, at quick and at paper, each run of its grid gets the record of the best constant predictor
(``runs.null``: the majority class, the unigram model for bytes), evaluated by the task's own evaluation at the
run's lengths. On those records a "learns" statement and a comparison read fails (the side the paper says learns
did not fit), a "does not learn" or "theorem forbids" statement reads not fitted (its runs, or its positive control,
fitted nothing); nothing reads holds. A statement a preset does not judge, or whose budget the recipe's recorded
pilots show cannot fit, reads not run. The contract runs at every preset. The outcomes print as a table
(``pytest -s``).

Where a task allows a shortcut (a predictor that does not track but scores: bl3's window of the last letters on a
uniform table), a statement carries its score (``Statement.shortcut``); records that score it, fitted at the training
lengths as that predictor is, must not make any statement hold either.
"""

from __future__ import annotations

import functools

import pytest

from statetrack.verdicts.registry import CLAIMS, get_claim
from statetrack.runs.null import null_record
from statetrack.runs.store import run_key
from statetrack.verdicts.recipes import PRESETS
from statetrack.verdicts.statements import matches

EXPECTED = {"learns": {"fails"}, "does not learn": {"not fitted"}, "theorem forbids": {"not fitted"},
            "comparison": {"fails"}}


@functools.lru_cache(maxsize=None)
def _null_verdict(claim_id: str, preset: str):
    claim = get_claim(claim_id)
    records = [{**null_record(cfg), "key": run_key(cfg), "claim": claim_id, "preset": preset}
               for cfg in dict.fromkeys(claim.grid(preset))]
    return claim.verdict(records, preset, checks=[])


def _cases():
    return [pytest.param(c, p, id=f"{c}@{p}") for c in list(CLAIMS) for p in PRESETS]


@pytest.mark.parametrize("claim_id,preset", _cases())
def test_no_statement_holds_on_the_constant_predictor(claim_id, preset):
    v = _null_verdict(claim_id, preset)
    wrong = []
    for o in v.statements:
        s = o.statement
        if s.checks is not None or o.outcome == "not run":
            continue
        print(f"{claim_id}@{preset} {s.id:<32} {s.kind:<16} null: {o.outcome}")
        if o.outcome not in EXPECTED[s.kind]:
            wrong.append(f"{s.id} ({s.kind}): {o.outcome} — {o.reason or o.value}")
    assert not wrong, f"{claim_id}@{preset} on the constant predictor's records: " + "; ".join(wrong)
    assert not v.word.startswith(("reproduced", "partly")), v.word


def _shortcut_cases():
    return [pytest.param(c, p, id=f"{c}@{p}") for c in list(CLAIMS) for p in PRESETS
            if any(s.shortcut is not None for s in get_claim(c).statements())]


@pytest.mark.parametrize("claim_id,preset", _shortcut_cases())
def test_no_statement_holds_on_a_shortcut(claim_id, preset):
    claim = get_claim(claim_id)
    statements = [s for s in claim.statements() if s.shortcut is not None and preset in s.judged_at()]
    records = []
    for cfg in dict.fromkeys(claim.grid(preset)):
        rec = {**null_record(cfg), "key": run_key(cfg), "claim": claim_id, "preset": preset}
        s = next((s for s in statements if matches(claim.cell_of(rec), s.where)), None)
        if s is not None:  # the shortcut's score where it applies, and a perfect fit of the training lengths
            curve = rec["by_length"]
            rec["summary"] = {**rec["summary"], s.rule.metric: s.shortcut}
            rec["by_length"] = {**curve, "acc": [1.0 if n == cfg.train.max_len else a
                                                  for n, a in zip(curve["length"], curve["acc"])]}
        records.append(rec)
    v = claim.verdict(records, preset, checks=[])
    held = [o.statement.id for o in v.statements if o.outcome == "holds" and o.statement.shortcut is not None]
    assert not held, f"{claim_id}@{preset}: on the shortcut's records these hold: {held}"
