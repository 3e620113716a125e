"""theory.modular_arithmetic: the automaton of expressions mod m against brute force, the task's labels and
explicit matrices."""

import cmath
import random

import pytest
import torch

from statetrack.tasks import make_task, task_config
from statetrack.theory import modular_arithmetic as ma
from statetrack.theory.rotations import eventual_period


def _brute(expr: str, m: int) -> int:
    """Python's own integer arithmetic (× before ±), reduced mod m: independent of the task and the machine."""
    return eval(expr.replace("×", "*").replace("−", "-")) % m  # noqa: S307 (digits and + - * only)


def _random_expression(rng: random.Random, m: int, n: int) -> str:
    out = [str(rng.randrange(m))]
    for _ in range(n - 1):
        out += [rng.choice("+-*"), str(rng.randrange(m))]
    return "".join(out)


def test_docstring_example_walks_the_listed_states():
    mach = ma.machine(5)
    states = ma.run(mach, ma.parse("2 − 3 − 3 × 2 =", 5))
    assert [mach.names[q] for q in states] == ["D(0,2)", "O(0,2,−)", "D(2,2)", "O(2,2,−)", "D(4,2)", "O(4,2,×)",
                                               "D(4,4)", "A(3)"]
    assert mach.num_states == 4 * 25 + 5 + 2 == 107


@pytest.mark.parametrize("m", [2, 3, 5, 7])
def test_machine_answers_equal_python_arithmetic_on_1000_expressions(m):
    rng = random.Random(m)
    mach = ma.machine(m)
    for _ in range(1000):
        expr = _random_expression(rng, m, rng.randint(1, 30))
        final = ma.run(mach, ma.parse(expr, m))[-1]
        assert int(mach.answer[final]) == _brute(expr, m), expr


def test_model_states_are_the_one_hot_table_walk():
    mach = ma.machine(5)
    model = ma.arithmetic_bilinear(mach)
    rng = random.Random(0)
    exprs = [ma.parse(_random_expression(rng, 5, 12), 5) for _ in range(8)]  # 23 tokens each
    tokens = torch.tensor(exprs)  # (B, T)
    with torch.no_grad():
        h = model.states(tokens)  # (B, T, S)
    walks = torch.tensor([ma.run(mach, e) for e in exprs])  # (B, T)
    assert torch.equal(h, torch.nn.functional.one_hot(walks, mach.num_states).float())


def test_construction_through_the_model_matches_the_task_labels():
    tr = ma.track(5, 1000, 39, 255, seed=3)
    assert tr.acc == 1.0 and tr.one_hot and tr.num_seqs == 1000
    # the same expressions, labels straight from the task's sampler, answered by the table walk
    task = make_task(task_config("modular_arithmetic", modulus=5, brackets=False, format="ne"))
    batch = task.sample_range(torch.Generator().manual_seed(3), 50, 39, 255)
    mach = ma.machine(5)
    for x, y, n in zip(batch.inputs, batch.targets, batch.lengths):
        assert int(mach.answer[ma.run(mach, x[:n].tolist())[-1]]) == int(y[n - 1])


def test_word_answers_equal_python_arithmetic():
    assert ma.word_answers(5, 3, "×", 4, 4) == [3, 2, 3, 2, 3]
    assert ma.word_answers(5, 1, "+", 1, 5) == [1, 2, 3, 4, 0, 1]
    for k, v in enumerate(ma.word_answers(7, 2, "−", 3, 9)):
        assert v == _brute("2" + "-3" * k, 7)
    for answers, want in (([3, 2, 3, 2, 3], 2), ([1, 2, 3, 4, 0, 1, 2], 5), ([4, 4], 1)):
        assert int(eventual_period(torch.tensor(answers), max_period=len(answers) - 1, tail=None)[1]) == want


def test_times_minus_one_is_the_explicit_sign_swap_with_eigenvalue_minus_one():
    m = 5
    mach = ma.machine(m)
    M = ma.word_matrix(mach, "×", m - 1)  # (25, 25)
    P = torch.zeros(m * m, m * m, dtype=torch.float64)
    for t in range(m):
        for s in range(m):
            P[t * m + (-s) % m, t * m + s] = 1.0  # D(t, s) → D(t, −s)
    assert torch.equal(M, P)
    ev = ma.spectrum(M)
    # s ↦ −s fixes s = 0 and swaps (1 4), (2 3): per total, 3 eigenvalues +1 and 2 eigenvalues −1
    assert int(((ev - 1).abs() < 1e-12).sum()) == 15 and int(((ev + 1).abs() < 1e-12).sum()) == 10


def test_plus_one_has_the_fifth_roots_of_unity():
    mach = ma.machine(5)
    ev = ma.spectrum(ma.word_matrix(mach, "+", 1))
    nonzero = sorted((complex(e) for e in ev if abs(complex(e)) > 1e-9), key=cmath.phase)
    roots = sorted((cmath.exp(2j * cmath.pi * k / 5) for k in range(5)), key=cmath.phase)
    assert len(nonzero) == 5 and all(abs(a - b) < 1e-9 for a, b in zip(nonzero, roots))


@pytest.mark.parametrize("call,match", [
    pytest.param(lambda: ma.machine(1), "m=1", id="modulus"),
    pytest.param(lambda: ma.parse("2/3", 5), "'/'", id="character"),
    pytest.param(lambda: ma.parse("2+7", 5), "'7'", id="digit-above-modulus"),
    pytest.param(lambda: ma.word_answers(5, 3, "/", 4, 3), "'/'", id="operator"),
    pytest.param(lambda: ma.word_answers(5, 9, "+", 4, 3), "first=9", id="digit"),
    pytest.param(lambda: ma.track(5, 0, 39, 255, seed=0), "num_seqs=0", id="num-seqs"),
    pytest.param(lambda: ma.run(ma.machine(5), [99]), "99", id="token"),
])
def test_bad_input_names_the_value(call, match):
    with pytest.raises(ValueError, match=match):
        call()
