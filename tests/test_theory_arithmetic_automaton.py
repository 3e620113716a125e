"""theory.arithmetic_automaton against independent answers: Python's own evaluation of the expression, and the task's labels."""

import pytest
import torch

from statetrack.tasks import make_task, task_config
from statetrack.tasks.base import IGNORE
from statetrack.theory import arithmetic_automaton as aa

OPS = {0: "+", 1: "-", 2: "*"}


def _python_answers(tokens, m):
    """The value mod m of every prefix ending in a digit, by Python's eval of the expression string."""
    text, out = "", []
    for i, tok in enumerate(tokens):
        text += str(tok) if i % 2 == 0 else OPS[tok - m]
        out.append(eval(text) % m if i % 2 == 0 else None)  # noqa: S307 (digits and + - * only)
    return out


def test_docstring_example():
    assert aa.run_automaton(5, torch.tensor([[2, 6, 3, 6, 3, 7, 2]]))[0, 0::2].tolist() == [2, 4, 1, 3]


@pytest.mark.parametrize("m", [2, 3, 5, 7])
def test_automaton_equals_python_eval(m):
    task = make_task(task_config("modular_arithmetic", modulus=m, format="per_step"))
    batch = task.sample(torch.Generator().manual_seed(m), 60, 21)
    got = aa.run_automaton(m, batch.inputs)
    for row, ans in zip(batch.inputs.tolist(), got.tolist()):
        want = _python_answers(row, m)
        assert [a for a, w in zip(ans, want) if w is not None] == [w for w in want if w is not None]


@pytest.mark.parametrize("m", [2, 3, 5])
def test_bilinear_construction_tracks_1000_sequences(m):
    r = aa.track(m, 1000, 200, seed=1)
    assert r.num_seqs >= 1000 and r.automaton_acc == 1.0
    assert r.acc == {"every_step": 1.0, "none": 1.0} and r.one_hot


def test_bilinear_construction_against_python_eval():
    m = 5
    model = aa.arithmetic_bilinear(m, backend="reference")
    task = make_task(task_config("modular_arithmetic", modulus=m, format="per_step"))
    tokens = task.sample(torch.Generator().manual_seed(3), 20, 15).inputs  # (B, T)
    with torch.no_grad():
        pred = model(tokens).argmax(-1)  # (B, T)
    for row, p in zip(tokens.tolist(), pred.tolist()):
        want = _python_answers(row, m)
        assert all(w is None or w == q for w, q in zip(want, p))


@pytest.mark.parametrize("m", [2, 3, 4, 6])
def test_m_squared_pairs_are_told_apart(m):
    """Python eval of "t + p * 0" and "t + p + 0": m² distinct answer pairs, the lower bound's witness."""
    brute = {(eval(f"{t}+{p}*0") % m, eval(f"{t}+{p}+0") % m) for t in range(m) for p in range(m)}  # noqa: S307
    assert len(brute) == m * m
    got = aa.distinguishing_answers(m)
    assert {tuple(r) for r in got.tolist()} == brute


def test_labels_of_equals_task_sample():
    task = make_task(task_config("modular_arithmetic", modulus=5, format="per_step"))
    batch = task.sample(torch.Generator().manual_seed(0), 8, 11)
    assert torch.equal(aa.labels_of(task, batch.inputs), batch.targets)
    assert (batch.targets[:, 1::2] == IGNORE).all()


def test_table_shape_and_range():
    t = aa.arithmetic_table(4)
    assert t.shape == (16, 10) and int(t.max()) < 16 and int(t.min()) >= 0


@pytest.mark.parametrize("call,match", [
    (lambda: aa.arithmetic_table(1), "m=1"),
    (lambda: aa.track(5, 0, 10, seed=0), "num_seqs=0"),
    (lambda: aa.run_automaton(3, torch.tensor([[0, 99]])), "token ids must lie"),
    (lambda: aa.run_automaton(3, torch.tensor([0, 1])), "LongTensor"),
])
def test_bad_input_is_named(call, match):
    with pytest.raises(ValueError, match=match):
        call()
