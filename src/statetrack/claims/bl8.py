"""Claim bl8 (BL Prop. 3): a frozen random real-diagonal network with a trained linear readout learns parity from two examples.

The claim is about a network that is *not* trained, so its main part is exact: seeded draws of
w_0, w_1 ~ N(0, 1)^H, h_T in log space, a logistic readout fitted on two words, success = test
accuracy ≥ 0.99 on random words of length 500 (``theory.frozen_diagonal``). Each draw's success is
compared with the proof's prediction, draw by draw and as a rate. A small recorded part trains the
same architecture end to end through ``fit()`` (the package's diagonal ``bilinear`` model, every
weight trained on thousands of words), the contrast the two-example result is measured against.

Settings of the exact part (sign features unless said; the predicted rate is derived in
``theory.frozen_diagonal``):

| setting                          | train words  | test length | predicted success            | judged                        |
|----------------------------------|--------------|-------------|------------------------------|-------------------------------|
| main                             | '00', '01'   | 500 (even)  | 1 − 2^{−H}                   | within the 99.9% binomial interval per H; ≥ 0.99 for H ≥ 8 |
| trap: length parity, odd test    | '0', '1'     | 501 (odd)   | 1 − 2^{−H}                   | within the interval, every H  |
| trap: length parity, even test   | '0', '1'     | 500 (even)  | P(#A > #B) < 1/2             | within the interval, every H  |
| trap: normalized features        | '00', '01'   | 500         | ≤ P(dominant unit informative) ≈ 1/2 | below the interval's top for p = 1/2, every H |

Presets:

| preset | H                     | draws per H | test words | test length | trained contrast (diagonal bilinear, every weight trained)   | seeds |
|--------|-----------------------|-------------|------------|-------------|--------------------------------------------------------------|-------|
| smoke  | 1, 2, 8               | 20          | 64         | 100 / 101   | H = 4, 10 steps × 8, lengths 2–10, test 20                    | 1     |
| quick  | 1, 2, 4, 8, 16, 32    | 100         | 256        | 500 / 501   | H = 8, lr 1e-2, 300 steps × 128, lengths 2–10, test 500       | 3     |
| paper  | 1, 2, …, 64           | 1,000       | 1,024      | 500 / 501   | H = 16, lr 1e-3, 100k steps × 64, lengths 2–10, test 500      | 3     |

Verdict rule: every exact check holds, and every trained contrast run reaches normalized accuracy
≥ 0.9 at length 500. The exact part takes about 2 s at quick and runs again in ``statetrack verify``.

Used in: notebooks/bl8_frozen_random_diagonal_parity.md, ``statetrack verify``.
"""

from __future__ import annotations

from typing import Any

from statetrack.claims import Verdict, check_preset
from statetrack.claims.common import Cell, Check, at_least, check_lrs, check_seeds, expand, judge
from statetrack.config import EvalConfig, RunConfig, TrainConfig
from statetrack.models import model_config
from statetrack.tasks import task_config

ID = "bl8"
PASS = 0.9  # trained contrast: normalized accuracy at the test length
SUCCESS = 0.99  # a draw succeeds when its test accuracy is at least this
RELIABLE_H = 8  # from this H on, the main setting must succeed in >= 99% of draws

HS = {"smoke": (1, 2, 8), "quick": (1, 2, 4, 8, 16, 32), "paper": (1, 2, 4, 8, 16, 32, 64)}
DRAWS = {"smoke": 20, "quick": 100, "paper": 1000}
TEST_WORDS = {"smoke": 64, "quick": 256, "paper": 1024}
TEST_LEN = {"smoke": 100, "quick": 500, "paper": 500}  # even; the odd-length trap tests at TEST_LEN + 1
#: setting → (train words, test length offset, features)
SETTINGS = {
    "main": (("00", "01"), 0, "sign"),
    "odd test": (("0", "1"), 1, "sign"),
    "even test": (("0", "1"), 0, "sign"),
    "normalized": (("00", "01"), 0, "normalized"),
}

_WIDTH = {"smoke": 4, "quick": 8, "paper": 16}
_TRAIN = {
    "smoke": TrainConfig(num_steps=10, batch_size=8, lr=1e-2, warmup_steps=2, min_len=2, max_len=10, log_every=1),
    "quick": TrainConfig(num_steps=300, batch_size=128, lr=1e-2, warmup_steps=15, min_len=2, max_len=10),
    "paper": TrainConfig(num_steps=100_000, batch_size=64, lr=1e-3, warmup_steps=1000, weight_decay=0.0,
                         min_len=2, max_len=10, eval_every=5000, log_every=100),
}
_EVAL = {
    "smoke": EvalConfig(min_len=20, max_len=20, num_seqs=16),
    "quick": EvalConfig(min_len=500, max_len=500, num_seqs=256),
    "paper": EvalConfig(min_len=500, max_len=500, num_seqs=1024),
}
_SEEDS = {"smoke": (0,), "quick": (0, 1, 2), "paper": (0, 1, 2)}


def grid(preset: str, seeds: list[int] | None = None, lrs: list[float] | None = None) -> list[RunConfig]:
    """The recorded part of bl8 at ``preset``: the diagonal bilinear model trained end to end on parity, × seed.

    Args:
        preset: smoke, quick or paper.
        seeds: training seeds (default: the preset's).
        lrs: learning rates (default: the preset's).
    """
    check_preset(preset)
    seeds = check_seeds(seeds, _SEEDS[preset])
    cell = Cell(task_config("parity"), model_config("bilinear", variant="diagonal", d_model=_WIDTH[preset]),
                _TRAIN[preset], _EVAL[preset])
    return expand([cell], seeds, check_lrs(lrs))


def exact_part(preset: str) -> dict[str, list]:
    """The frozen-network sweep at ``preset``: setting → one ``theory.frozen_diagonal.SweepRow`` per H."""
    from statetrack.theory.frozen_diagonal import sweep

    check_preset(preset)
    return {name: sweep(HS[preset], DRAWS[preset], words, TEST_LEN[preset] + offset, feature,
                        num_test=TEST_WORDS[preset], seed=0, threshold=SUCCESS)
            for name, (words, offset, feature) in SETTINGS.items()}


def checks(preset: str, part: dict[str, list] | None = None) -> list[Check]:
    """The exact checks of bl8 at ``preset`` (see the module docstring); ``part`` reuses ``exact_part``'s output."""
    from statetrack.theory.frozen_diagonal import binomial_interval

    part = part or exact_part(preset)
    n = DRAWS[preset]
    out = []
    for r in part["main"]:
        lo, hi = r.interval
        out.append(Check(f"frozen H={r.H}: success", r.rate, f"in [{lo / n:.2f}, {hi / n:.2f}]", bool(r.within),
                         f"predicted 1 - 2^-H = {r.predicted:.4f}; {n} draws"))
    reliable = [r.rate for r in part["main"] if r.H >= RELIABLE_H]
    if reliable:
        out.append(Check(f"frozen H>={RELIABLE_H}: lowest success", min(reliable), f">= {SUCCESS}",
                         min(reliable) >= SUCCESS))
    sign_rows = [r for name in ("main", "odd test", "even test") for r in part[name]]
    agree = min(r.agreement for r in sign_rows)
    out.append(Check("per draw: success = proof's test", agree, "= 1", agree == 1.0,
                     "main and both length-parity traps, every H and draw"))
    for name, what in (("odd test", "trap '0','1' -> odd T"), ("even test", "trap '0','1' -> even T")):
        inside = sum(bool(r.within) for r in part[name]) / len(part[name])
        out.append(Check(f"{what}: H within interval", inside, "= 1", inside == 1.0,
                         "predicted " + ", ".join(f"{r.predicted:.3f}" for r in part[name])))
    top = binomial_interval(n, 0.5)[1] / n
    worst = max(r.rate for r in part["normalized"])
    out.append(Check("trap h/|h| features: highest success", worst, f"<= {top:.2f}", worst <= top,
                     "bound: the top of the 99.9% interval for p = 1/2"))
    return out


_exact_checks = checks  # ``verdict``'s argument is also called ``checks``


def verdict(records: list[dict[str, Any]], preset: str, checks: list[Check] | None = None) -> Verdict:
    """Apply the bl8 rule to the trained contrast's records and the exact checks (see the module docstring)."""
    exact = _exact_checks(preset) if checks is None else checks

    def cell_of(r):
        return {"model": "diagonal bilinear, trained end to end", "H": r["config"]["model"]["d_model"]}

    return judge(ID, preset, records, cell_of=cell_of, rule_of=lambda c: at_least(PASS),
                 label_of=lambda c: f"trained diagonal H={c['H']}", checks=exact,
                 legend=f"(frozen: predicted success rates; trained contrast >= {PASS:.2f})")
