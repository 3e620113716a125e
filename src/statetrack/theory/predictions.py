"""What each class of transition matrices can track, as data: one layer, more layers, and the theorem behind each cell.

The table ``TABLE[(transition class, task)]`` holds an ``Entry`` with two verdicts, for one layer and
for more layers, each "can", "cannot" or "open" with the reason and the citation. ``predict`` reads it
(and applies the class's parameter: n reflections per token, block size b); ``ZOO`` maps every model
config of the package to its class (``transition_class_of``).

Classes (A(x) is the transition of one token; "GH" a generalized Householder matrix I − β k kᵀ, ‖k‖ = 1):

| class                | A(x)                                                    | zoo                                             |
|----------------------|---------------------------------------------------------|-------------------------------------------------|
| positive_diagonal    | real diagonal, entries ≥ 0                               | mamba [0,1], mlstm, complex_diagonal "none"     |
| signed_diagonal      | real diagonal, negative entries allowed                  | mamba [-1,1], bilinear "diagonal"               |
| complex_diagonal     | complex diagonal (rotations), any phases                 | complex_diagonal "data" (Mamba-3), bilinear "rotation" |
| householder_nonneg   | product of n GH factors with eigenvalues in [0, 1]       | deltanet / gated_deltanet [0,1], deltaproduct [0,1] |
| reflection           | one GH factor per token, eigenvalue 1 − β ∈ [−1, 1]      | deltanet / gated_deltanet [-1,1], deltaproduct n_h = 1 [-1,1] |
| reflections_n        | product of n ≥ 2 GH factors in [−1, 1]                   | deltaproduct n_h ≥ 2 [-1,1]                     |
| permutation_diagonal | column-one-hot P(x) times complex diagonal D(x)          | pd_ssm                                          |
| block_diagonal       | independent dense b×b blocks                             | bilinear "block"                                |
| dense                | a full matrix                                            | bilinear "full"                                 |
| low_rank_cp          | U diag(Wᵀx) Vᵀ, rank R                                   | bilinear "cp"                                   |
| nonlinear            | not a linear recurrence                                  | elman, lstm, slstm                              |
| attention            | no recurrence                                            | transformer                                     |

A scalar gate α ≤ 1 in front (Gated DeltaNet, Mamba-2/3's decay) does not change the class: it scales
the eigenvalues towards 0 and can reach 1 in finite precision. *Strict contractivity* is a separate
flag (``predict(..., contractive=True)``): if every transition has spectral norm < 1 in the arithmetic
actually used, the state on a repeated letter a^k converges to a fixed point (Banach), so the output
is eventually constant and no periodic task (any task here: each has a letter of order ≥ 2) is solved
at long lengths, at any depth. Every zoo model is contractive in exact arithmetic or not at all; none
stays contractive in fp32, where its gates saturate to exactly 1 (``ZooClass.contractive_exact``
records the exact-arithmetic fact).

Tasks: ``parity`` (Z2), ``Zm`` (counting mod m, m ≥ 3 not a power of two; x1's Z3), ``abelian`` (the
word problem of a finite abelian group with an element of order ≥ 3), ``S3``, ``A5``, ``S5`` (word
problems with every element a token), ``S5_swaps`` (only transpositions as tokens), ``fsm_perm`` (x1's
permutation machine: 25 states, non-commuting letters, one with a cycle of length ≥ 3) and ``fsm``
(every finite automaton). "cannot" cells rest on impossibility theorems; where a theorem is
conditional (Merrill et al. 2024: unless TC⁰ = NC¹, at arbitrary lengths) the entry's ``condition``
says so. "can" means a construction exists (learnability is a separate, empirical question).

Citations: NE = Grazzi et al. 2025 (Thm 1 parity, Thm 2 counting mod m, Thm 3 group automata with
GH products, Prop 1, Thm 4 any regular language, Thm 6 two layers of reflections); BL = Ebrahimi and
Memisevic 2025 (Prop 1 full bilinear = any FSM, Prop 2 commuting transitions see only counts, Prop 3
real diagonal and parity); Merrill, Petty and Sabharwal 2024, "The illusion of state in state-space
models" (fixed-depth diagonal SSMs and transformers are in TC⁰); PD-SSM = Terzić et al. 2025 (Prop 2:
one layer with N ≥ |Q| states emulates any N-state automaton); DeltaProduct = Siems et al. 2025;
Shakerinava et al. 2026 (arXiv 2603.01959: one layer of input-dependent complex diagonal transitions, input
terms allowed, tracks no non-abelian group in finite precision).

``counts_only`` says where BL Prop 2 holds exactly at every length: commuting transitions with no input
term (the pure bilinear "diagonal" and "rotation"), whose state after a word is a function of its letter
counts; x1 bounds those models by the best count-only accuracy at the lengths it tests.

Used in: claims/x1/claim.py (every cell's prediction), leaderboard.py, tests/test_theory_predictions.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from statetrack.models import model_config, transition_of, transition_param_of, MODELS, is_builtin

CLASSES = ("positive_diagonal", "signed_diagonal", "complex_diagonal", "householder_nonneg", "reflection",
           "reflections_n", "permutation_diagonal", "block_diagonal", "dense", "low_rank_cp", "nonlinear",
           "attention")
TASKS = ("parity", "Zm", "abelian", "S3", "A5", "S5", "S5_swaps", "fsm_perm", "fsm")
SAYS = ("can", "cannot", "open")
#: classes with a parameter: the number n of GH factors per token, or the block size b.
PARAM = {"householder_nonneg": "n", "reflections_n": "n", "block_diagonal": "b"}

UNLESS_NC1 = "unless TC⁰ = NC¹, at arbitrary lengths (log precision)"


@dataclass(frozen=True)
class Verdict:
    """One cell: ``says`` ("can", "cannot", "open"), why, and the theorem cited.

    For a class with a parameter p (``PARAM``), ``says`` holds when ``min_param`` is None or
    p ≥ ``min_param``; below it the answer is ``below`` (with ``below_why``, ``below_cite``), except
    from ``open_from`` up to ``min_param`` − 1, where it is "open" (no theorem decides those values).
    ``condition`` names the assumption of a conditional theorem ("" if none).
    """

    says: str
    why: str
    cite: str
    min_param: int | None = None
    below: str = "open"
    below_why: str = ""
    below_cite: str = ""
    condition: str = ""
    open_from: int | None = None


@dataclass(frozen=True)
class Entry:
    """A class × task cell: the verdict for one layer and for more layers (a fixed number > 1)."""

    one_layer: Verdict
    more_layers: Verdict


@dataclass(frozen=True)
class Prediction:
    """The answer of ``predict``: says, why and the citation (and the assumption of a conditional theorem)."""

    says: str
    why: str
    cite: str
    condition: str = ""


def _v(says: str, why: str, cite: str, **kw) -> Verdict:
    assert says in SAYS
    return Verdict(says, why, cite, **kw)


# ----------------------------------------------------------------------------- the table

# A letter of order ≥ 2 repeated is parity-like, and every task here has one (S3, A5, S5 and the machines
# contain transpositions or longer cycles; Zm and abelian have a generator of order ≥ 3).
_NONNEG = _v("cannot", "every eigenvalue is real and ≥ 0, so in finite precision the state on a repeated letter "
                       "becomes constant and no letter of order ≥ 2 can be followed, at any depth", "NE Thm 1")
_GH_NONNEG = _v("cannot", "products of n ≤ 2 GH factors with eigenvalues in [0,1] have real eigenvalues in [0,1] "
                          "(NE Prop 1.3), so NE Thm 1 applies at any depth", "NE Thm 1, NE Prop 1.3")

_COMMUTE = ("the transitions share one eigenbasis, so they commute: without an input term the state sees only the "
            "letter counts (BL Prop 2), and with one (Mamba) one such layer still tracks no non-abelian group "
            "(Shakerinava et al. 2026)")
_COMMUTE_CITE = "BL Prop 2, Shakerinava et al. 2026"


def _uniform(v: Verdict) -> dict[str, Entry]:
    return {t: Entry(v, v) for t in TASKS}


def _signed_diagonal() -> dict[str, Entry]:
    par = _v("can", "an eigenvalue −1 flips a sign per letter", "NE Thm 1 (allowed), NE Thm 3 (A ∈ {−1, 1}), BL Prop 3")
    zm1 = _v("cannot", "one layer with only real eigenvalues is eventually 2-periodic on a repeated letter", "NE Thm 2")
    zmL = _v("cannot", "products of real diagonal matrices are real diagonal, so no layer has a non-real eigenvalue "
                       "and no depth counts mod m (m not a power of two)", "NE Thm 2")
    non_ab = _v("cannot", _COMMUTE + "; this group does not commute", _COMMUTE_CITE)
    three = _v("cannot", "a 3-cycle token repeated counts mod 3, which real diagonal products cannot at any depth",
               "NE Thm 2")
    nonsolv = _v("cannot", "a non-solvable word problem is NC¹-complete, and fixed-depth diagonal SSMs are in TC⁰",
                 "Merrill et al. 2024", condition=UNLESS_NC1)
    return {
        "parity": Entry(par, par),
        "Zm": Entry(zm1, zmL),
        "abelian": Entry(_v("cannot", "the element of order ≥ 3 repeated counts mod its order (only Z2^k is possible)",
                            "NE Thm 2"), zmL),
        "S3": Entry(non_ab, three),
        "A5": Entry(non_ab, three),
        "S5": Entry(non_ab, three),
        "S5_swaps": Entry(non_ab, nonsolv),
        "fsm_perm": Entry(_v("cannot", _COMMUTE + "; this machine's letters do not commute", _COMMUTE_CITE),
                          _v("cannot", "a letter with a cycle of length ≥ 3 that is not a power of two counts mod that "
                                       "length when repeated (random 25-state permutations have one)", "NE Thm 2")),
        "fsm": Entry(_v("cannot", "the automata include counters mod 3", "NE Thm 2"), zmL),
    }


def _complex_diagonal() -> dict[str, Entry]:
    par = _v("can", "a rotation by π is the eigenvalue −1", "NE Thm 1 (allowed), NE Thm 3")
    zm = _v("can", "a rotation by 2π/m counts mod m: the non-real eigenvalue NE Thm 2 requires", "NE Thm 2, NE Thm 3")
    ab = _v("can", "the letters commute, so their counts mod each cyclic factor's order are the whole answer: one "
                   "rotation per factor", "BL Prop 2, NE Thm 3")
    non_ab = _v("cannot", _COMMUTE + "; this group does not commute", _COMMUTE_CITE)
    nonsolv = _v("cannot", "a non-solvable word problem is NC¹-complete, and fixed-depth diagonal SSMs are in TC⁰",
                 "Merrill et al. 2024", condition=UNLESS_NC1)
    return {
        "parity": Entry(par, par),
        "Zm": Entry(zm, zm),
        "abelian": Entry(ab, ab),
        "S3": Entry(non_ab, _v("can", "S3 = Z3 ⋊ Z2 is solvable: a cascade of two commuting layers, the second's "
                                      "rotations chosen by the first's sign (Krohn–Rhodes, as in NE Thm 4's cascades)",
                               "Krohn–Rhodes cascade, as in the proof of NE Thm 4")),
        "A5": Entry(non_ab, nonsolv),
        "S5": Entry(non_ab, nonsolv),
        "S5_swaps": Entry(non_ab, nonsolv),
        "fsm_perm": Entry(_v("cannot", _COMMUTE + "; this machine's letters do not commute", _COMMUTE_CITE),
                          _v("open", "depends on whether the letters generate a solvable group (then a cascade of "
                                     "commuting layers works) or not (then Merrill et al. 2024 excludes it)",
                             "Merrill et al. 2024")),
        "fsm": Entry(_v("cannot", "the automata include non-commuting letters", "BL Prop 2"),
                     Verdict(nonsolv.says, "automata whose transition groups are non-solvable are NC¹-complete",
                             nonsolv.cite, condition=UNLESS_NC1)),
    }


def _reflection() -> dict[str, Entry]:
    par = _v("can", "a reflection (β = 2) is −1 on k: parity with A ∈ {−1, 1}", "NE Thm 3")
    real = "a GH matrix is symmetric, so its eigenvalues are real"
    zm1 = _v("cannot", real + ": one layer is eventually 2-periodic on a repeated letter", "NE Thm 2")
    three = _v("cannot", real + ", and a 3-cycle token repeated must count mod 3", "NE Thm 2")
    deep_open = _v("open", "NE Thm 4 builds automata from products of several GH factors per token; with one factor "
                           "per token no theorem of NE or BL decides it", "NE Thm 4")
    return {
        "parity": Entry(par, par),
        "Zm": Entry(zm1, _v("can", "two layers of reflections count mod m", "NE Thm 6")),
        "abelian": Entry(_v("cannot", real + ", and the element of order ≥ 3 repeated counts mod its order",
                            "NE Thm 2"), _v("open", "NE Thm 6 counts mod m in two layers; products of several "
                                                    "counters are not covered", "NE Thm 6")),
        "S3": Entry(three, deep_open),
        "A5": Entry(three, deep_open),
        "S5": Entry(three, deep_open),
        "S5_swaps": Entry(_v("can", "a swap changes 2 states, so it is one reflection (k − 1 = 1 GH factor)",
                             "NE Thm 3"), _v("can", "one layer suffices", "NE Thm 3")),
        "fsm_perm": Entry(_v("cannot", real + ", so a letter with a cycle of length ≥ 3 cannot be followed around it",
                             "NE Thm 2"), deep_open),
        "fsm": Entry(_v("cannot", "the automata include counters mod 3", "NE Thm 2"), deep_open),
    }


def _reflections_n() -> dict[str, Entry]:
    anyL = _v("can", "repeated products of GH matrices in [−1, 1] recognise every regular language with enough layers",
              "NE Thm 4")
    return {
        "parity": Entry(_v("can", "one reflection is −1", "NE Thm 3"), anyL),
        "Zm": Entry(_v("can", "a 2×2 rotation by 2π/m is a product of 2 reflections (Z_m ⊂ M²₂)", "NE Thm 3"), anyL),
        "abelian": Entry(_v("open", "one rotation (2 reflections) per cyclic factor a letter moves; n ≥ |G| − 1 always "
                                    "suffices (regular representation), smaller n depends on the group", "NE Thm 3"),
                         anyL),
        "S3": Entry(_v("can", "a 3-cycle changes 3 states: k − 1 = 2 GH factors; DeltaProduct learns S3 with n_h = 2",
                       "NE Thm 3, DeltaProduct (Siems et al. 2025)"), anyL),
        "A5": Entry(_v("can", "A5 is the rotation group of the icosahedron and every rotation of ℝ³ is 2 reflections; "
                              "DeltaProduct reports n_h = 2 in one layer (NE Thm 3's bound is 4)",
                       "DeltaProduct (Siems et al. 2025), NE Thm 3"), anyL),
        "S5": Entry(_v("can", "a 5-cycle changes 5 states: k − 1 = 4 GH factors; DeltaProduct learns S5 in one layer "
                              "with n_h = 4", "NE Thm 3, DeltaProduct (Siems et al. 2025)", min_param=4,
                       below="open", below_why="S5's characters are integers, so in every orthogonal representation a "
                                               "5-cycle moves a subspace of dimension ≥ 4 and needs 4 reflections; "
                                               "non-orthogonal GH products are not covered by a theorem",
                       below_cite="NE Thm 3 (upper bound only)"), anyL),
        "S5_swaps": Entry(_v("can", "a swap is one reflection", "NE Thm 3"), anyL),
        "fsm_perm": Entry(_v("can", "a permutation letter changing k ≤ 25 states is k − 1 ≤ 24 GH factors",
                             "NE Thm 3", min_param=24, below="open",
                             below_why="NE Thm 3 needs k − 1 factors for a letter changing k states; fewer are not "
                                       "excluded for this machine", below_cite="NE Thm 3"), anyL),
        "fsm": Entry(_v("open", "NE Thm 3 covers automata whose letters are permutations; resets and merges need more "
                                "(NE Thm 4 uses several layers)", "NE Thm 3"), anyL),
    }


def _permutation_diagonal() -> dict[str, Entry]:
    v = _v("can", "one layer with N ≥ |Q| states emulates any |Q|-state automaton (P = the letter's map on one-hot "
                  "states, D = 1); a word problem is the automaton on the group's elements", "PD-SSM Prop 2")
    return {t: Entry(v, v) for t in TASKS}


def _block_diagonal() -> dict[str, Entry]:
    def same(v):
        return Entry(v, Verdict(v.says, v.why + " (the bilinear model has one layer)", v.cite, v.min_param, v.below,
                                v.below_why, v.below_cite, v.condition, v.open_from))

    return {
        "parity": same(_v("can", "a sign flip in a block (b = 1 is the real diagonal); BL learns it with b = 2",
                          "BL Prop 3, NE Thm 1")),
        "Zm": same(_v("can", "a 2×2 block holds the rotation by 2π/m", "NE Thm 2, NE Thm 3", min_param=2,
                      below="cannot", below_why="b = 1 is a real diagonal", below_cite="NE Thm 2")),
        "abelian": same(_v("can", "one rotation block per cyclic factor", "NE Thm 3, BL Prop 2", min_param=2,
                           below="cannot", below_why="b = 1 is a real diagonal", below_cite="NE Thm 2")),
        "S3": same(_v("can", "S3 has a faithful 2-dimensional representation", "BL Prop 1 (within a block)",
                      min_param=2, below="cannot", below_why="b = 1 blocks commute", below_cite="BL Prop 2")),
        "A5": same(_v("can", "A5 acts faithfully on ℝ³ (the icosahedron's rotations)", "BL Prop 1 (within a block)",
                      min_param=3, below="cannot",
                      below_why="A5's irreducible representations have dimensions 1, 3, 3, 4, 5, so blocks of size "
                                "b < 3 see A5 act trivially", below_cite="theory.block_size (bl5)")),
        "S5": same(_v("can", "S5 acts faithfully on ℝ⁴ (its standard representation)", "BL Prop 1 (within a block)",
                      min_param=4, below="cannot", below_why="blocks of size b < 4 hold only the sign of a permutation",
                      below_cite="theory.block_size (bl5)")),
        "S5_swaps": same(_v("can", "S5 acts faithfully on ℝ⁴ (its standard representation)",
                            "BL Prop 1 (within a block)", min_param=4, below="cannot",
                            below_why="blocks of size b < 4 hold only the sign of a permutation",
                            below_cite="theory.block_size (bl5)")),
        "fsm_perm": same(_v("can", "a block of b ≥ 25 is a full bilinear RNN for the 25-state machine",
                            "BL Prop 1", min_param=25, below="cannot",
                            below_why="a block of b = 2 holds only groups with a faithful representation of "
                                      "dimension ≤ 2, and these letters generate a large permutation group",
                            below_cite="theory.block_size (bl5)", open_from=3)),
        "fsm": same(_v("open", "a block of b ≥ |Q| simulates any |Q|-state machine (BL Prop 1); smaller blocks depend "
                               "on the machine", "BL Prop 1")),
    }


def _attention() -> dict[str, Entry]:
    out = _uniform(_v("open", "no theorem of NE or BL applies to attention", "—"))
    cond = _v("cannot", "a non-solvable word problem is NC¹-complete, and fixed-depth transformers are in TC⁰",
              "Merrill et al. 2024", condition=UNLESS_NC1)
    for t in ("A5", "S5", "S5_swaps"):
        out[t] = Entry(cond, cond)
    return out


def _build() -> dict[tuple[str, str], Entry]:
    per_class = {
        "positive_diagonal": _uniform(_NONNEG),
        "signed_diagonal": _signed_diagonal(),
        "complex_diagonal": _complex_diagonal(),
        "householder_nonneg": _uniform(_GH_NONNEG),
        "reflection": _reflection(),
        "reflections_n": _reflections_n(),
        "permutation_diagonal": _permutation_diagonal(),
        "block_diagonal": _block_diagonal(),
        "dense": _uniform(_v("can", "a full bilinear RNN with H ≥ |Q| simulates any |Q|-state machine", "BL Prop 1")),
        "low_rank_cp": _uniform(_v("open", "rank-limited transitions; BL gives no theorem for a given rank", "BL §2")),
        "nonlinear": _uniform(_v("open", "no theorem of NE or BL applies to a non-linear recurrence", "—")),
        "attention": _attention(),
    }
    return {(c, t): e for c, entries in per_class.items() for t, e in entries.items()}


#: (class, task) → Entry, for every class in CLASSES and task in TASKS.
TABLE: dict[tuple[str, str], Entry] = _build()


# ----------------------------------------------------------------------------- predict


def predict(transition_class: str, task: str, layers: int = 1, param: int | None = None,
            contractive: bool = False) -> Prediction:
    """Theory's answer for one layer (``layers == 1``) or more of ``transition_class`` on ``task``.

    Args:
        transition_class: one of ``CLASSES``.
        task: one of ``TASKS``.
        layers: number of layers, ≥ 1.
        param: the class's parameter (``PARAM``): n GH factors per token, or the block size b. Needed for
            "reflections_n" and "block_diagonal"; for "householder_nonneg" n ≥ 3 leaves every cell open.
        contractive: every transition has spectral norm < 1 in the arithmetic used: then every task
            (each has a letter of order ≥ 2) is "cannot" at long lengths, at any depth.

    Returns:
        ``Prediction(says, why, cite, condition)`` with says in {"can", "cannot", "open"}.
    """
    if transition_class not in CLASSES:
        raise ValueError(f"unknown transition class {transition_class!r}; allowed: {', '.join(CLASSES)}")
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; allowed: {', '.join(TASKS)}")
    if layers < 1:
        raise ValueError(f"layers={layers!r} is not allowed: it must be >= 1")
    if contractive:
        return Prediction("cannot", "strictly contractive transitions drive the state on a repeated letter to a fixed "
                                    "point, so the output is eventually constant and no letter of order ≥ 2 is "
                                    "tracked at long lengths, at any depth",
                          "Banach fixed-point theorem (the argument of NE Thm 1)")
    if transition_class in ("reflections_n", "block_diagonal") and param is None:
        raise ValueError(f"class {transition_class!r} needs param ({PARAM[transition_class]})")
    if transition_class == "householder_nonneg" and (param or 1) > 2:
        return Prediction("open", "NE Prop 1.3 keeps the eigenvalues real in [0,1] only for products of ≤ 2 GH "
                                  "factors; with n ≥ 3 they may be negative or complex", "NE Prop 1.3")
    if transition_class == "reflections_n" and param < 2:
        return predict("reflection", task, layers)
    entry = TABLE[(transition_class, task)]
    v = entry.one_layer if layers == 1 else entry.more_layers
    if v.min_param is not None and param is not None and param < v.min_param:
        if v.open_from is not None and param >= v.open_from:
            return Prediction("open", f"{v.cite} gives {v.says!r} from {PARAM[transition_class]} = {v.min_param}; "
                                      f"below, down to {v.open_from}, no theorem decides it", v.cite)
        return Prediction(v.below, v.below_why, v.below_cite)
    return Prediction(v.says, v.why, v.cite, v.condition)


# ----------------------------------------------------------------------------- the zoo


@dataclass(frozen=True)
class ZooClass:
    """A model config's transition class, its parameter, and whether |λ| < 1 for every input in exact arithmetic."""

    transition_class: str
    param: int | None = None
    contractive_exact: bool = False
    note: str = ""


def _config(model: Any) -> Any:
    """A model config, or the config a ``to_dict()`` (or a partial dict: name and the fields that differ) describes."""
    if not isinstance(model, dict):
        return model

    fields = {k: v for k, v in model.items() if k != "name"}
    return model_config(model["name"], **fields)


def transition_class_of(model: Any) -> ZooClass:
    """A model config (a ``ModelConfig``, or its ``to_dict()``) → its ``ZooClass``, as the config declares it.

    The class and its parameter are ``statetrack.models.transition_of`` and ``transition_param_of`` (the class
    constants or properties every config declares, a plug-in's alike); ``contractive_exact`` and
    ``transition_note`` are optional (False, and "declared by the model's config").
    """

    cfg = _config(model)
    note = getattr(cfg, "transition_note", None)
    return ZooClass(transition_of(cfg), transition_param_of(cfg), bool(getattr(cfg, "contractive_exact", False)),
                    "declared by the model's config" if note is None else note)


def counts_only(model: Any) -> bool:
    """Whether a model's state after a word depends only on its letter counts (BL Prop 2, exactly, at every length):
    commuting (real or complex diagonal) transitions and no input term, i.e. the pure bilinear "diagonal" and
    "rotation" (whose head reads the state alone). Mamba's diagonal transitions commute too, but its input term
    B(x_t) keeps the order of the letters in the state."""
    m = model if isinstance(model, dict) else model.to_dict()
    return m["name"] == "bilinear" and m.get("variant") in ("diagonal", "rotation") and not m.get("additive")


#: The variants of a model whose transition class or parameter differ: model name → {label: the config fields}.
_VARIANTS: dict[str, dict[str, dict[str, Any]]] = {
    "mamba": {"[0,1]": {"eig_range": "[0,1]"}, "[-1,1]": {"eig_range": "[-1,1]"}},
    "deltanet": {"[0,1]": {"eig_range": "[0,1]"}, "[-1,1]": {"eig_range": "[-1,1]"}},
    "deltaproduct": {f"n_h={n} {e}": {"eig_range": e, "num_householder": n} for n in (1, 2, 3, 4)
                     for e in ("[0,1]", "[-1,1]")},
    "gated_deltanet": {"[0,1]": {"eig_range": "[0,1]"}, "[-1,1]": {"eig_range": "[-1,1]"}},
    "complex_diagonal": {"data": {"rotation": "data"}, "none": {"rotation": "none"}},
    "bilinear": {"full": {"variant": "full"}, "block b=2": {"variant": "block", "block_size": 2},
                 "block b=4": {"variant": "block", "block_size": 4}, "diagonal": {"variant": "diagonal"},
                 "rotation": {"variant": "rotation"}, "cp": {"variant": "cp"}},
}


def _zoo() -> dict[str, dict[str, dict[str, Any]]]:

    return {name: _VARIANTS.get(name, {"": {}}) for name in MODELS if is_builtin(name)}


#: Every built-in model with its variants: model name → {variant label: the config fields that select it}
#: (one variant, the defaults, where the class does not depend on a field).
ZOO: dict[str, dict[str, dict[str, Any]]] = _zoo()


def predict_model(model: Any, task: str, layers: int | None = None) -> Prediction:
    """``predict`` for a model config: its class and parameter, and its ``num_layers`` unless ``layers`` is given."""
    m = model if isinstance(model, dict) else model.to_dict()
    z = transition_class_of(m)
    return predict(z.transition_class, task, layers or m.get("num_layers", 1), z.param)


def table_rows(layers: int = 1) -> list[dict[str, Any]]:
    """The zoo × task table as rows (model, variant, class, then one column per task: says)."""
    rows = []
    for name, variants in ZOO.items():
        for label, fields in variants.items():
            z = transition_class_of({"name": name, **fields})
            row = {"model": name, "variant": label, "class": z.transition_class, "param": z.param}
            row.update({t: predict(z.transition_class, t, layers, z.param).says for t in TASKS})
            rows.append(row)
    return rows
