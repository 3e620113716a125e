"""NE Thm 2 constructions (``statetrack.theory.rotations``) against independent computations.

Ground truth is never the module's own output: numpy float32 scalar loops and a bit-level
bfloat16 rounding (round to nearest, ties to even) for the stored orbits; a dictionary of seen
values for the eventual period; k mod m for the rotation counter; a lookup-table readout for the
best accuracy; ``modular_addition``'s own labels for the hand-set model.

Runtime: about 5 s on 2 CPU threads (the 10^5-step rotation orbits dominate).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from statetrack.config import ConfigError
from statetrack.models import make_model, model_config
from statetrack.tasks import make_task, task_config
from statetrack.theory.rotations import (best_readout_accuracy, diagonal_orbit, diagonal_periods, eventual_period,
                                         hand_set_rotation, rotation_orbit, rotation_readout)


def bf16_round(x: np.ndarray) -> np.ndarray:
    """float32 → the nearest bfloat16 value (ties to even), as float32: the top 16 bits, rounded."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def numpy_orbit(a: float, b: float, h0: float, steps: int, dtype: str) -> list[float]:
    """h_k = a·h_{k−1} + b with numpy float32 scalars, each product and sum rounded (bf16: rounded again)."""
    r = (lambda v: np.float32(v)) if dtype == "fp32" else (lambda v: bf16_round(np.float32(v)))
    a, b, h = r(a), r(b), r(h0)
    out = [float(h)]
    for _ in range(steps):
        h = r(r(a * h) + b)
        out.append(float(h))
    return out


def first_repeat(values: list[float]) -> tuple[int, int] | None:
    """(entry, period) of a deterministic orbit from a dict of first sightings; None if nothing repeats."""
    seen: dict[float, int] = {}
    for k, v in enumerate(values):
        if v in seen:
            return seen[v], k - seen[v]
        seen[v] = k
    return None


# ---------------------------------------------------------------------------------------------------------
# The real diagonal on 1^k
# ---------------------------------------------------------------------------------------------------------


def test_hand_worked_bf16_example_from_the_docstring():
    """a = −0.5, b = 1, h_0 = 0: the bf16 neighbours 170/256 and 171/256 of 2/3 swap from k = 8 on."""
    states = diagonal_orbit(torch.tensor([-0.5]), torch.tensor([1.0]), torch.tensor([0.0]), 12, torch.bfloat16)
    want = [0, 1, 0.5, 0.75, 0.625, 0.6875, 0.65625, 0.671875, 170 / 256, 171 / 256, 170 / 256, 171 / 256, 170 / 256]
    assert states[:, 0].float().tolist() == want
    entry, period = eventual_period(states)
    assert (entry.item(), period.item()) == (8, 2)


@pytest.mark.parametrize("dtype", ["fp32", "bf16"])
def test_diagonal_orbit_matches_numpy_scalar_loops(dtype):
    gen = torch.Generator().manual_seed(0)
    a, b, h0 = (2 * torch.rand(3, 40, generator=gen, dtype=torch.float64) - 1).unbind(0)  # (N,) each
    got = diagonal_orbit(a, b, h0, 300, torch.float32 if dtype == "fp32" else torch.bfloat16)  # (K+1, N)
    for n in range(40):
        want = numpy_orbit(float(a[n]), float(b[n]), float(h0[n]), 300, dtype)
        assert got[:, n].float().tolist() == want, n


def test_eventual_period_on_hand_built_orbits():
    """Columns with known tails: constant from row 3, a 2-cycle from row 1, a 3-cycle from row 0, none."""
    K = 20
    cols = [[5.0, 4.0, 3.0] + [1.0] * (K - 2), [9.0] + [2.0, 7.0] * (K // 2), [0.0, 1.0, 2.0] * 7,
            list(range(K + 1))]
    states = torch.tensor([c[:K + 1] for c in cols]).T  # (K+1, 4)
    entry, period = eventual_period(states)
    assert entry.tolist() == [3, 1, 0, -1] and period.tolist() == [1, 2, 3, -1]
    vec = torch.stack([states[:, :2], states[:, 1:3]], dim=1)  # (K+1, 2, 2): whole vectors compared
    assert eventual_period(vec)[1].tolist() == [2, 6]  # lcm(1,2) = 2 and lcm(2,3) = 6


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_every_random_diagonal_orbit_has_period_1_or_2(dtype):
    """NE Thm 2: 300 draws of (a, b, h_0) in [−1, 1]; each orbit repeats, and its period is 1 or 2."""
    res = diagonal_periods(300, dtype, seed=1)
    assert set(res["period"].tolist()) <= {1, 2}
    assert (res["period"] == 2).any() and (res["period"] == 1).any()
    assert ((res["period"] == 2) <= (res["a"] < 0)).all()  # only a negative coefficient alternates
    name = "fp32" if dtype == torch.float32 else "bf16"
    # The entry and period of the draws whose cycle starts early, recomputed from numpy loops.
    for n in torch.nonzero(res["entry"] < 2000).flatten()[:30].tolist():
        values = numpy_orbit(float(res["a"][n]), float(res["b"][n]), float(res["h0"][n]), 2100, name)
        assert first_repeat(values) == (res["entry"][n].item(), res["period"][n].item()), n


@pytest.mark.parametrize("period, m", [(1, 3), (2, 3), (3, 3), (6, 3), (2, 5), (4, 6)])
def test_best_readout_accuracy_equals_a_lookup_table(period, m):
    """The best readout of a p-periodic state: for each state, the count of its most frequent answer."""
    ks = range(10 * math.lcm(period, m))
    best = sum(max(sum(1 for k in ks if k % period == s and k % m == c) for c in range(m)) for s in range(period))
    assert best_readout_accuracy(period, m) == pytest.approx(best / len(ks))


# ---------------------------------------------------------------------------------------------------------
# The rotation counter
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_rotation_counts_mod_3_at_every_k_to_100000(dtype):
    states = rotation_orbit(3, 100_000, dtype)  # (K+1, 2)
    assert torch.equal(rotation_readout(states, 3), torch.arange(100_001) % 3)
    assert eventual_period(states.unsqueeze(1))[1].item() == 3  # the stored orbit cycles with period 3
    exact = torch.tensor([[math.cos(2 * math.pi * k / 3), math.sin(2 * math.pi * k / 3)] for k in range(6)])
    assert torch.allclose(states[:6].double(), exact.double(), atol=1e-2 if dtype == torch.bfloat16 else 1e-6)


@pytest.mark.parametrize("m", [3, 5])
@pytest.mark.parametrize("backend", ["fast", "reference"])
def test_hand_set_rotation_model_tracks_modular_addition_labels(m, backend):
    """The package's bilinear "rotation" model, weights set by hand, against the task's labels (1,000 seqs)."""
    task = make_task(task_config("modular_addition", modulus=m))
    length = 2000 if backend == "fast" else 300
    model = make_model(model_config("bilinear", variant="rotation", d_model=4, backend=backend), task.vocab_size, m)
    hand_set_rotation(model, m)
    batch = task.sample(torch.Generator().manual_seed(m), 1000, length)
    with torch.no_grad():
        predictions = model(batch.inputs).argmax(-1)  # (B, T)
    assert torch.equal(predictions, batch.targets)


def test_bad_input_names_the_value():
    with pytest.raises(ConfigError, match="steps=0"):
        diagonal_orbit(torch.zeros(1), torch.zeros(1), torch.zeros(1), 0, torch.float32)
    with pytest.raises(ConfigError, match="m=1"):
        rotation_orbit(1, 10, torch.float32)
    with pytest.raises(ConfigError, match="max_period=0"):
        eventual_period(torch.zeros(3, 1), max_period=0)
    with pytest.raises(ConfigError, match="num_draws=0"):
        diagonal_periods(0, torch.float32)
    diag = make_model(model_config("bilinear", variant="diagonal", d_model=2), 4, 3)
    with pytest.raises(ConfigError, match="'rotation' model"):
        hand_set_rotation(diag, 3)
    rot = make_model(model_config("bilinear", variant="rotation", d_model=2), 4, 3)
    with pytest.raises(ConfigError, match="m=5"):
        hand_set_rotation(rot, 5)
