"""Tasks: worked examples, labels against independent brute-force computations, determinism, bounds.

Every label check recomputes the answers from the input tokens with plain Python (counting, a
table walk, tuple composition, ``eval`` of the decoded expression), never with the task's code.
"""

from __future__ import annotations

import dataclasses
import itertools

import pytest
import torch

from statetrack.config import ConfigError
from statetrack.tasks import IGNORE, TASKS, make_task, task_config


def gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def find_rows(inputs: torch.Tensor, row: list[int]) -> torch.Tensor:
    """Indices of the rows of ``inputs`` (B, T) equal to ``row``."""
    return (inputs == torch.tensor(row)).all(dim=1).nonzero().squeeze(1)


def lookup_example(task, seed: int, batch: int, inputs: list[int]) -> list[int]:
    """Sample a large batch of the example's length, find the example's inputs, return its targets.

    This checks a hand-worked example through the public ``sample`` only; ``batch`` is chosen so
    that the example appears many times in expectation.
    """
    b = task.sample(gen(seed), batch, len(inputs))
    rows = find_rows(b.inputs, inputs)
    assert len(rows) > 0, "the example did not occur; raise the batch size"
    targets = b.targets[rows]
    assert (targets == targets[0]).all()  # the answers are a function of the inputs
    return targets[0].tolist()


# ----------------------------------------------------------------------------- parity


def test_parity_docstring_example():
    # parity.py: inputs 1 0 1 1 0 1 -> answers 1 1 0 1 1 0
    assert lookup_example(make_task(task_config("parity")), 0, 2048, [1, 0, 1, 1, 0, 1]) == [1, 1, 0, 1, 1, 0]


def test_parity_labels_count_ones():
    b = make_task(task_config("parity")).sample(gen(1), 32, 25)
    for x, y in zip(b.inputs.tolist(), b.targets.tolist()):
        assert y == [sum(x[: t + 1]) % 2 for t in range(len(x))]


# ----------------------------------------------------------------------------- modular addition


def test_modular_addition_docstring_example():
    task = make_task(task_config("modular_addition", modulus=5))
    assert lookup_example(task, 0, 100_000, [3, 4, 1, 0, 2]) == [3, 2, 3, 3, 0]


@pytest.mark.parametrize("m", [pytest.param(m, id=f"m={m}") for m in (2, 5, 25)])
def test_modular_addition_labels_are_running_sums(m):
    task = make_task(task_config("modular_addition", modulus=m))
    assert (task.vocab_size, task.num_classes) == (m + 1, m)
    b = task.sample(gen(2), 32, 30)
    for x, y in zip(b.inputs.tolist(), b.targets.tolist()):
        total, expected = 0, []
        for v in x:
            total += v
            expected.append(total % m)
        assert y == expected


@pytest.mark.parametrize("m", [pytest.param(1, id="m=1"), pytest.param(0, id="m=0"), pytest.param(-3, id="m=-3")])
@pytest.mark.parametrize("name", ["modular_addition", "modular_arithmetic"])
def test_modulus_below_two_is_rejected(name, m):
    with pytest.raises(ConfigError, match=rf"modulus={m}\b"):
        task_config(name, modulus=m)


# ----------------------------------------------------------------------------- modular arithmetic


def symbols(m: int) -> dict[int, str]:
    """Token id -> text, from the id table in modular.py's docstring."""
    table = {d: str(d) for d in range(m)}
    table.update({m: "+", m + 1: "-", m + 2: "*", m + 3: "(", m + 4: ")", m + 5: "="})
    return table


def decode(ids: list[int], m: int) -> str:
    return "".join(symbols(m)[i] for i in ids)


def evaluate(expr: str, m: int) -> int:
    """Independent evaluator: Python's own precedence, brackets and unary minus; % m is >= 0."""
    assert set(expr) <= set("0123456789+-*()"), expr
    return eval(expr, {"__builtins__": {}}) % m


# The docstring examples of modular.py, m = 5: (text, ids, answers), None for IGNORE.
NE_EXAMPLE = ("2-3-3*2=", [2, 6, 3, 6, 3, 7, 2, 10], [None] * 7 + [3])
BRACKET_EXAMPLE = ("(3-(-1))=", [8, 3, 6, 8, 6, 1, 9, 9, 10], [None] * 8 + [4])
PER_STEP_EXAMPLE = ("2-3-3*2", [2, 6, 3, 6, 3, 7, 2], [2, None, 4, None, 1, None, 3])


@pytest.mark.parametrize(
    "example",
    [
        pytest.param(NE_EXAMPLE, id="ne"),
        pytest.param(BRACKET_EXAMPLE, id="ne-brackets"),
        pytest.param(PER_STEP_EXAMPLE, id="per_step"),
    ],
)
def test_modular_arithmetic_docstring_examples_are_right(example):
    text, ids, answers = example
    assert decode(ids, 5) == text
    for t, answer in enumerate(answers):
        if answer is not None:
            assert evaluate(text[: t + 1].rstrip("="), 5) == answer


@pytest.mark.parametrize(
    "fmt, example",
    [pytest.param("ne", NE_EXAMPLE, id="ne"), pytest.param("per_step", PER_STEP_EXAMPLE, id="per_step")],
)
def test_modular_arithmetic_docstring_examples_are_sampled(fmt, example):
    task = make_task(task_config("modular_arithmetic", modulus=5, format=fmt))
    _, ids, answers = example
    # 5^4 * 3^3 = 16875 equally likely sequences of this length; 200k draws hold ~12 copies.
    got = lookup_example(task, 0, 200_000, ids)
    assert got == [IGNORE if a is None else a for a in answers]


@pytest.mark.parametrize(
    "m, brackets, length",
    [
        pytest.param(5, False, 24, id="m=5-no-brackets"),
        pytest.param(7, False, 41, id="m=7-no-brackets-odd-length"),
        pytest.param(5, True, 31, id="m=5-brackets"),
        pytest.param(3, True, 2, id="m=3-brackets-shortest"),
    ],
)
def test_modular_arithmetic_ne_answers_match_eval(m, brackets, length):
    task = make_task(task_config("modular_arithmetic", modulus=m, brackets=brackets))
    b = task.sample(gen(3), 48, length)
    assert b.inputs.shape[1] == task.valid_length(length)
    for x, y in zip(b.inputs.tolist(), b.targets.tolist()):
        text = decode(x, m)
        assert text.endswith("=") and text.count("=") == 1
        if not brackets:
            assert "(" not in text and ")" not in text
        assert y[:-1] == [IGNORE] * (len(y) - 1)
        assert y[-1] == evaluate(text[:-1], m), text


def test_modular_arithmetic_no_brackets_alternates_numbers_and_operators():
    m = 5
    task = make_task(task_config("modular_arithmetic", modulus=m))
    x = task.sample(gen(4), 64, 20).inputs
    assert (x[:, 0:-1:2] < m).all()  # numbers
    assert ((x[:, 1:-1:2] >= m) & (x[:, 1:-1:2] <= m + 2)).all()  # + - *
    assert (x[:, -1] == m + 5).all()  # =
    # every operator and every digit occurs
    assert set(x[:, 1:-1:2].unique().tolist()) == {m, m + 1, m + 2}
    assert set(x[:, 0:-1:2].unique().tolist()) == set(range(m))


def test_modular_arithmetic_brackets_use_every_leaf_form():
    m = 5
    task = make_task(task_config("modular_arithmetic", modulus=m, brackets=True))
    texts = [decode(x, m) for x in task.sample(gen(5), 64, 40).inputs.tolist()]
    joined = "".join(texts)
    assert "*" not in joined  # mult=False, as in the NE code
    assert "(-" in joined and "+-" in joined and "--" in joined  # unary minus in several places
    assert any(t.count("(") >= 3 for t in texts)  # nesting
    for t in texts:
        assert t.count("(") == t.count(")")


@pytest.mark.parametrize("m", [pytest.param(5, id="m=5"), pytest.param(4, id="m=4")])
@pytest.mark.parametrize("length", [pytest.param(21, id="odd-length"), pytest.param(20, id="even-length")])
def test_modular_arithmetic_per_step_answers_match_eval(m, length):
    task = make_task(task_config("modular_arithmetic", modulus=m, format="per_step"))
    b = task.sample(gen(6), 24, length)
    assert b.inputs.shape[1] == length
    for x, y in zip(b.inputs.tolist(), b.targets.tolist()):
        text = decode(x, m)
        assert "=" not in text and "(" not in text
        for t in range(length):
            if t % 2 == 0:
                assert y[t] == evaluate(text[: t + 1], m), text[: t + 1]
            else:
                assert y[t] == IGNORE


@pytest.mark.parametrize(
    "fields, lengths",
    [
        pytest.param({}, {2: 2, 3: 2, 4: 4, 41: 40}, id="ne-rounds-down-to-even"),
        pytest.param({"brackets": True}, {2: 2, 3: 3, 40: 40}, id="ne-brackets-any"),
        pytest.param({"format": "per_step"}, {1: 1, 2: 2, 7: 7}, id="per_step-any"),
    ],
)
def test_modular_arithmetic_valid_length(fields, lengths):
    task = make_task(task_config("modular_arithmetic", **fields))
    for length, valid in lengths.items():
        assert task.valid_length(length) == valid
        if length >= task.min_length():
            assert task.sample(gen(0), 2, length).inputs.shape[1] == valid


@pytest.mark.parametrize(
    "fields, shortest",
    [
        pytest.param({}, 2, id="ne"),
        pytest.param({"brackets": True}, 2, id="ne-brackets"),
        pytest.param({"format": "per_step"}, 1, id="per_step"),
    ],
)
def test_modular_arithmetic_min_length(fields, shortest):
    task = make_task(task_config("modular_arithmetic", **fields))
    assert task.min_length() == shortest
    with pytest.raises(ConfigError, match=f"length {shortest - 1} "):
        task.sample(gen(0), 2, shortest - 1)


def test_modular_arithmetic_prefix_closed_and_sizes():
    ne = make_task(task_config("modular_arithmetic", modulus=5))
    per_step = make_task(task_config("modular_arithmetic", modulus=5, format="per_step"))
    brackets = make_task(task_config("modular_arithmetic", modulus=5, brackets=True))
    assert not ne.prefix_closed and not brackets.prefix_closed and per_step.prefix_closed
    assert ne.vocab_size == brackets.vocab_size == per_step.vocab_size == 12  # NE's bracket vocab
    assert ne.num_classes == 5 and ne.pad_id == 11


def test_brackets_with_per_step_is_rejected():
    with pytest.raises(ConfigError, match=r"brackets=True.*format='per_step'"):
        task_config("modular_arithmetic", brackets=True, format="per_step")


# ----------------------------------------------------------------------------- bracketed arithmetic with ×

MULT_EXAMPLE = ("((2*(-3))+4)=", [8, 8, 2, 7, 8, 6, 3, 9, 9, 5, 4, 9, 10], [None] * 12 + [3])  # modular_mult.py


def test_modular_arithmetic_mult_docstring_example_is_right():
    text, ids, answers = MULT_EXAMPLE
    assert decode(ids, 5) == text
    assert evaluate(text[:-1], 5) == answers[-1]


@pytest.mark.parametrize(
    "m, length",
    [
        pytest.param(5, 31, id="m=5"),
        pytest.param(5, 13, id="m=5-example-length"),
        pytest.param(7, 64, id="m=7-long"),
        pytest.param(3, 2, id="m=3-shortest"),
    ],
)
def test_modular_arithmetic_mult_answers_match_eval(m, length):
    task = make_task(task_config("modular_arithmetic_mult", modulus=m, supervision="final"))
    b = task.sample(gen(7), 64, length)
    assert b.inputs.shape[1] == length
    for x, y, mask in zip(b.inputs.tolist(), b.targets.tolist(), b.mask.tolist()):
        text = decode(x, m)
        assert text.endswith("=") and text.count("=") == 1 and text.count("(") == text.count(")")
        assert y[:-1] == [IGNORE] * (len(y) - 1) and mask == [False] * (len(y) - 1) + [True]
        assert y[-1] == evaluate(text[:-1], m), text


def test_modular_arithmetic_mult_uses_every_operator_and_leaf_form():
    m = 5
    task = make_task(task_config("modular_arithmetic_mult", modulus=m))
    texts = [decode(x, m) for x in task.sample(gen(8), 256, 40).inputs.tolist()]
    inner = [t[i + 1] for t in texts for i, c in enumerate(t) if c in "0123456789)" and t[i + 1] in "+-*"]
    counts = {op: inner.count(op) for op in "+-*"}
    assert min(counts.values()) > 0.28 * len(inner), counts  # uniform over the three operators
    joined = "".join(texts)
    assert "(-" in joined and "*-" in joined and "*(" in joined  # unary minus and nested products
    # The × task and the bracket task share ids and sizes; only × separates their languages.
    plain = make_task(task_config("modular_arithmetic", modulus=m, brackets=True))
    assert (task.vocab_size, task.num_classes, task.pad_id) == (plain.vocab_size, plain.num_classes, plain.pad_id)
    assert not task.prefix_closed and task.min_length() == 2


def test_modular_arithmetic_mult_depends_on_the_generator_only():
    task = make_task(task_config("modular_arithmetic_mult"))
    a, b = (task.sample_range(gen(9), 32, 2, 60) for _ in range(2))
    assert torch.equal(a.inputs, b.inputs) and torch.equal(a.targets, b.targets)
    with pytest.raises(ConfigError, match="modulus=1 "):
        task_config("modular_arithmetic_mult", modulus=1)


# ----------------------------------------------------------------------------- finite-state machine


def python_walk(table: list[list[int]], letters: list[int]) -> list[int]:
    state, states = 0, []
    for a in letters:
        state = table[state][a]
        states.append(state)
    return states


def test_fsm_docstring_example():
    from statetrack.tasks.fsm import walk

    table = torch.tensor([[1, 0], [2, 0], [0, 2]])  # table[q, a]; fsm.py's docstring, transposed
    assert walk(table, torch.tensor([[0, 0, 1, 0, 0]])).tolist() == [[1, 2, 2, 0, 1]]
    assert python_walk(table.tolist(), [0, 0, 1, 0, 0]) == [1, 2, 2, 0, 1]


@pytest.mark.parametrize(
    "fields",
    [
        pytest.param({}, id="m=5-k=4"),
        pytest.param({"num_states": 10, "alphabet_size": 10, "num_permutation_letters": 3}, id="m=10-k=10-p=3"),
        pytest.param({"num_states": 2, "alphabet_size": 1, "table_seed": 7}, id="m=2-k=1"),
    ],
)
def test_fsm_labels_are_table_walks(fields):
    task = make_task(task_config("fsm", **fields))
    m, k = task.cfg.num_states, task.cfg.alphabet_size
    assert task.table.shape == (m, k) and task.table.dtype == torch.long
    assert (task.vocab_size, task.num_classes) == (k + 1, m)
    table = task.table.tolist()
    assert all(0 <= s < m for row in table for s in row)
    b = task.sample(gen(7), 32, 30)
    for x, y in zip(b.inputs.tolist(), b.targets.tolist()):
        assert y == python_walk(table, x)


def test_fsm_table_is_fixed_by_table_seed_only():
    cfg = task_config("fsm", num_states=10, alphabet_size=6)
    task = make_task(cfg)
    before = task.table.clone()
    task.sample(gen(0), 4, 10)
    task.sample(gen(1), 4, 10)
    assert torch.equal(task.table, before)  # training generators do not touch the table
    assert torch.equal(make_task(cfg).table, before)  # a fresh task (another run) gets the same table
    other = make_task(task_config("fsm", num_states=10, alphabet_size=6, table_seed=1))
    assert not torch.equal(other.table, before)


def test_fsm_permutation_letters_are_permutations():
    m, k, p = 8, 6, 4
    fields = {"num_states": m, "alphabet_size": k, "num_permutation_letters": p}
    tables = [make_task(task_config("fsm", **fields, table_seed=seed)).table for seed in range(5)]
    for table in tables:
        for a in range(p):
            assert sorted(table[:, a].tolist()) == list(range(m))
    # uniform random maps are rarely permutations: over 5 tables x 2 letters, at least one is not
    assert any(len(set(t[:, a].tolist())) < m for t in tables for a in range(p, k))


@pytest.mark.parametrize(
    "fields, key",
    [
        pytest.param({"num_states": 1}, "num_states=1", id="one-state"),
        pytest.param({"alphabet_size": 0}, "alphabet_size=0", id="no-letters"),
        pytest.param(
            {"alphabet_size": 3, "num_permutation_letters": 4}, "num_permutation_letters=4", id="too-many-permutations"
        ),
        pytest.param({"num_permutation_letters": -1}, "num_permutation_letters=-1", id="negative-permutations"),
    ],
)
def test_fsm_bad_config_is_rejected(fields, key):
    with pytest.raises(ConfigError, match=key):
        task_config("fsm", **fields)


# ----------------------------------------------------------------------------- word problems


def compose(p: tuple[int, ...], q: tuple[int, ...]) -> tuple[int, ...]:
    """Apply p first, then q."""
    return tuple(q[p[j]] for j in range(len(p)))


def moved(p: tuple[int, ...]) -> int:
    return sum(p[j] != j for j in range(len(p)))


def is_even(p: tuple[int, ...]) -> bool:
    # parity from the cycle decomposition (not from inversions, as the task does)
    seen, transpositions = set(), 0
    for start in range(len(p)):
        length, j = 0, start
        while j not in seen:
            seen.add(j)
            j = p[j]
            length += 1
        transpositions += max(length - 1, 0)
    return transpositions % 2 == 0


def expected_elements(group: str) -> list[tuple[int, ...]]:
    """The element order documented in groups.py, rebuilt here."""
    if group == "S3":
        return list(itertools.permutations(range(3)))
    if group == "S5":
        return list(itertools.permutations(range(5)))
    if group == "A5":
        return [p for p in itertools.permutations(range(5)) if is_even(p)]
    return [tuple((j + r) % 60 for j in range(60)) for r in range(60)]


def python_products(perms: list[tuple[int, ...]], ids: list[int], k: int) -> list[int]:
    """Answer at p: the product of the elements at positions q (q % k == 0) with q + k - 1 <= p."""
    index = {perm: i for i, perm in enumerate(perms)}
    answers = []
    for p in range(len(ids)):
        prod = perms[0]
        for q in range(0, len(ids), k):
            if q + k - 1 <= p:
                prod = compose(prod, perms[ids[q]])
        answers.append(index[prod])
    return answers


def test_word_problem_docstring_example():
    task = make_task(task_config("word_problem", group="S3"))
    assert lookup_example(task, 0, 20_000, [2, 1, 5]) == [2, 4, 1]
    assert lookup_example(task, 0, 20_000, [1, 2]) == [1, 3]  # the other order
    blanks = make_task(task_config("word_problem", group="S3", tokens_per_element=2))
    assert lookup_example(blanks, 0, 20_000, [2, 6, 1, 6]) == [0, 2, 2, 4]


@pytest.mark.parametrize(
    "group, order", [pytest.param(g, n, id=g) for g, n in (("S3", 6), ("S5", 120), ("A5", 60), ("Z60", 60))]
)
def test_word_problem_group_structure(group, order):
    task = make_task(task_config("word_problem", group=group))
    assert task.group_order == task.num_classes == order
    assert task.vocab_size == order + 1 and task.pad_id == order
    perms = expected_elements(group)
    assert list(task.permutations) == perms and len(perms) == order
    assert perms[0] == tuple(range(len(perms[0])))  # id 0 is the identity
    assert task.mul_table.shape == (order, order)
    if group == "A5":
        assert all(is_even(p) for p in task.permutations)
    assert sorted(task.elements_drawn.tolist()) == list(range(order))


@pytest.mark.parametrize(
    "group, elements",
    [
        pytest.param("S3", "all", id="S3"),
        pytest.param("S3", "swaps", id="S3-swaps"),
        pytest.param("S5", "all", id="S5"),
        pytest.param("S5", "swaps", id="S5-swaps"),
        pytest.param("S5", "swaps_3cycles", id="S5-swaps_3cycles"),
        pytest.param("A5", "all", id="A5"),
    ],
)
def test_word_problem_labels_are_products(group, elements):
    task = make_task(task_config("word_problem", group=group, elements=elements))
    perms = expected_elements(group)
    b = task.sample(gen(8), 24, 25)
    for x, y in zip(b.inputs.tolist(), b.targets.tolist()):
        assert y == python_products(perms, x, 1)


def test_word_problem_z60_is_addition_mod_60():
    task = make_task(task_config("word_problem", group="Z60"))
    b = task.sample(gen(9), 32, 40)
    for x, y in zip(b.inputs.tolist(), b.targets.tolist()):
        assert y == [sum(x[: t + 1]) % 60 for t in range(len(x))]


@pytest.mark.parametrize(
    "group, elements, most, count",
    [
        pytest.param("S5", "swaps", 2, 11, id="S5-swaps"),
        pytest.param("S5", "swaps_3cycles", 3, 31, id="S5-swaps_3cycles"),
        pytest.param("S3", "swaps", 2, 4, id="S3-swaps"),
        pytest.param("S3", "swaps_3cycles", 3, 6, id="S3-swaps_3cycles"),
    ],
)
def test_word_problem_element_subsets(group, elements, most, count):
    task = make_task(task_config("word_problem", group=group, elements=elements))
    perms = expected_elements(group)
    allowed = {i for i, p in enumerate(perms) if moved(p) <= most}
    assert len(allowed) == count
    assert set(task.elements_drawn.tolist()) == allowed
    drawn = set(task.sample(gen(10), 64, 32).inputs.unique().tolist())
    assert drawn == allowed  # only these, and every one of them


@pytest.mark.parametrize(
    "group, k",
    [pytest.param("S5", 4, id="S5-k=4"), pytest.param("S3", 3, id="S3-k=3"), pytest.param("Z60", 2, id="Z60-k=2")],
)
def test_word_problem_tokens_per_element(group, k):
    task = make_task(task_config("word_problem", group=group, tokens_per_element=k))
    order = task.group_order
    assert task.vocab_size == order + 2 and task.pad_id == order + 1
    perms = expected_elements(group)
    b = task.sample(gen(11), 16, 22)
    blank = order
    for x, y in zip(b.inputs.tolist(), b.targets.tolist()):
        assert all((v == blank) == (p % k != 0) for p, v in enumerate(x))
        assert y[: k - 1] == [0] * (k - 1)
        assert y == python_products(perms, x, k)


@pytest.mark.parametrize(
    "group, elements",
    [
        pytest.param("A5", "swaps", id="A5-swaps"),
        pytest.param("A5", "swaps_3cycles", id="A5-swaps_3cycles"),
        pytest.param("Z60", "swaps", id="Z60-swaps"),
    ],
)
def test_word_problem_subsets_only_for_symmetric_groups(group, elements):
    with pytest.raises(ConfigError, match=rf"elements='{elements}'.*allowed: \['all'\]"):
        task_config("word_problem", group=group, elements=elements)


def test_word_problem_tokens_per_element_must_be_positive():
    with pytest.raises(ConfigError, match="tokens_per_element=0"):
        task_config("word_problem", tokens_per_element=0)


# ----------------------------------------------------------------------------- every task

CONFIGS = [
    pytest.param(("parity", {}), id="parity"),
    pytest.param(("modular_addition", {"modulus": 7}), id="modular_addition"),
    pytest.param(("modular_arithmetic", {}), id="modular_arithmetic-ne"),
    pytest.param(("modular_arithmetic", {"brackets": True}), id="modular_arithmetic-ne-brackets"),
    pytest.param(("modular_arithmetic", {"format": "per_step"}), id="modular_arithmetic-per_step"),
    pytest.param(("modular_arithmetic_mult", {}), id="modular_arithmetic_mult"),
    pytest.param(("fsm", {}), id="fsm"),
    pytest.param(("fsm", {"num_permutation_letters": 2}), id="fsm-permutations"),
    pytest.param(("word_problem", {}), id="word_problem-S5"),
    pytest.param(("word_problem", {"group": "S3", "elements": "swaps"}), id="word_problem-S3-swaps"),
    pytest.param(("word_problem", {"group": "A5"}), id="word_problem-A5"),
    pytest.param(("word_problem", {"group": "Z60", "tokens_per_element": 2}), id="word_problem-Z60-k=2"),
    pytest.param(("word_problem", {"tokens_per_element": 4}), id="word_problem-S5-k=4"),
    pytest.param(("byte_lm", {"corpus": "stdlib-docs"}), id="byte_lm-docs"),
]


def test_every_registered_task_is_covered():
    assert {p.values[0][0] for p in CONFIGS} == set(TASKS)


def build(spec, **extra):
    name, fields = spec
    return make_task(task_config(name, **fields, **extra))


@pytest.mark.parametrize("spec", CONFIGS)
def test_same_seed_same_batch(spec):
    task = build(spec)
    a, b = task.sample_range(gen(0), 16, 3, 20), task.sample_range(gen(0), 16, 3, 20)
    for x, y in zip((a.inputs, a.targets, a.mask, a.lengths), (b.inputs, b.targets, b.mask, b.lengths)):
        assert torch.equal(x, y)
    c = task.sample_range(gen(1), 16, 3, 20)
    assert not (torch.equal(a.lengths, c.lengths) and torch.equal(a.inputs, c.inputs))
    assert not torch.equal(task.sample(gen(0), 16, 12).inputs, task.sample(gen(1), 16, 12).inputs)


@pytest.mark.parametrize("spec", CONFIGS)
def test_bounds(spec):
    task = build(spec)
    b = task.sample(gen(2), 32, 17)
    assert b.inputs.dtype == b.targets.dtype == torch.long
    assert b.inputs.shape == b.targets.shape == b.mask.shape == (32, task.valid_length(17))
    assert ((b.inputs >= 0) & (b.inputs < task.vocab_size)).all()
    assert (b.inputs != task.pad_id).all()  # no padding inside a sequence
    defined = b.targets != IGNORE
    assert ((b.targets[defined] >= 0) & (b.targets[defined] < task.num_classes)).all()
    assert defined.any(dim=1).all()
    assert torch.equal(b.mask, defined)
    if task.prefix_closed and spec[0] != "modular_arithmetic":
        assert defined.all()
    assert task.chance == pytest.approx(1 / task.num_classes)


@pytest.mark.parametrize("spec", CONFIGS)
def test_sample_range_lengths_and_padding(spec):
    task = build(spec)
    lo, hi = 3, 18
    b = task.sample_range(gen(3), 64, lo, hi)
    lengths = b.lengths.tolist()
    assert all(task.valid_length(lo) <= n <= hi and task.valid_length(n) == n for n in lengths)
    assert len(set(lengths)) > 3  # lengths really vary
    assert b.inputs.shape[1] == max(lengths)
    pos = torch.arange(b.inputs.shape[1])  # (T,)
    pad = pos[None, :] >= b.lengths[:, None]  # (B, T)
    assert (b.inputs[pad] == task.pad_id).all()
    assert (b.inputs[~pad] != task.pad_id).all()
    assert (b.targets[pad] == IGNORE).all()
    assert not b.mask[pad].any()
    assert torch.equal(b.mask, b.targets != IGNORE)


@pytest.mark.parametrize("spec", [p for p in CONFIGS if p.values[0][0] != "byte_lm"])  # an LM answers every byte
def test_final_supervision_masks_the_last_answer(spec):
    task = build(spec, supervision="final")
    b = task.sample_range(gen(4), 32, 3, 15)
    assert (b.mask.sum(dim=1) == 1).all()
    defined = b.targets != IGNORE  # (B, T)
    pos = torch.arange(b.targets.shape[1])  # (T,)
    last = torch.where(defined, pos, -1).max(dim=1).values  # (B,)
    assert torch.equal(b.mask.float().argmax(dim=1), last)
    # the last answer sits at the last token, or (per_step, even length) at the last number
    assert ((b.lengths - 1 - last) <= 1).all()


@pytest.mark.parametrize("spec", CONFIGS)
def test_bad_lengths_are_rejected(spec):
    task = build(spec)
    with pytest.raises(ConfigError, match="empty"):
        task.sample_range(gen(0), 4, 10, 9)
    shortest = task.min_length()
    with pytest.raises(ConfigError, match=f"length {shortest - 1} "):
        task.sample(gen(0), 4, shortest - 1)
    with pytest.raises(ConfigError):
        task.sample_range(gen(0), 4, shortest - 1, 10)
    assert task.sample(gen(0), 4, shortest).inputs.shape == (4, task.valid_length(shortest))
