"""NE Thm 1 on one number: [0,1] states freeze in finite precision, a = -1 alternates exactly."""

import pytest
import torch

from statetrack.theory.finite_precision import freeze_step, scalar_recurrence


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32], ids=str)
@pytest.mark.parametrize("a", [0.0, 0.5, 0.9, 0.99])
def test_state_in_unit_interval_freezes(dtype, a):
    states = scalar_recurrence([a], 20_000, dtype)
    k = freeze_step(states)[0]
    assert k is not None
    # Independent check: from k on, every stored value equals the last one.
    assert torch.all(states[k - 1:] == states[-1])
    # And the frozen value is the rounded fixed point 1/(1-a) (within the dtype's resolution).
    assert float(states[-1, 0]) == pytest.approx(1 / (1 - a), rel=torch.finfo(dtype).eps * 200)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32], ids=str)
def test_minus_one_alternates_forever(dtype):
    states = scalar_recurrence([-1.0], 10_000, dtype)[:, 0]
    expected = torch.tensor([1.0, 0.0], dtype=dtype).repeat(5_000)
    assert torch.equal(states, expected)
    assert freeze_step(states[:, None]) == [None]


def test_counting_stops_where_bf16_cannot_add_one():
    # a = 1 counts k exactly until k + 1 is not representable: 256 in bfloat16 (8 significant bits).
    states = scalar_recurrence([1.0], 400, torch.bfloat16)[:, 0]
    assert freeze_step(states[:, None]) == [256]
    assert float(states[-1]) == 256.0


def test_bad_step_count():
    with pytest.raises(ValueError, match="steps=0"):
        scalar_recurrence([0.5], 0, torch.float32)
