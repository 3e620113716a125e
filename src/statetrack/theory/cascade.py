"""NE Thm 4: a cascade of permutation–reset layers, H_t = A(x_t) H_{t−1} + B(x_t) with A a product of GH matrices, recognises a regular language.

NE Thm 4 (via Krohn & Rhodes 1965) says: an LRNN whose layers have transitions A(x) ∈ M^n_n([−1, 1])
(products of n generalized Householder factors I − β v vᵀ, ‖v‖ = 1, β ∈ [0, 2]) and offsets
B(x) ∈ ℕ^n can simulate any finite automaton, with s ≤ 2^|Q| layers, by following a cascade of
permutation–reset automata. This module builds that cascade exactly and runs it:

- ``reset_factors``: a reset (flip-flop) letter as n GH factors with β = 1 and keys e_1 … e_n, whose
  product (I − e_n e_nᵀ) ⋯ (I − e_1 e_1ᵀ) is exactly 0, plus the offset B = e_q of the reset target.
  As a delta rule (``models/ops/delta.py``) the same steps with values v_j = [j = q] overwrite the
  state with e_q. A permutation letter is ≤ n − 1 reflections I − 2vvᵀ, v = (e_i − e_j)/√2 (β = 2,
  value 0), from ``householder.as_reflections``; the layer pads every letter with β = 0 factors.
- ``Automaton`` / ``z3_with_reset`` / ``random_automaton``: the automata checked (transition tables,
  a brute-force ``run``), ``monoid_size`` their transition monoid by closure.
- ``holonomy_cascade``: the holonomy decomposition (Zeiger 1967; Eilenberg 1976, Vol. B; in the
  algorithmic spirit of Maler 2010), described below. ``verify_cascade`` checks it symbolically and
  exhaustively: every valid cascade state × every letter, decoded, against the transition table.
- ``run_symbolic`` (the cascade's tables), ``run_lrnn`` (each layer a DeltaProduct recurrence of the
  package, one-hot states, letters read from the argmax of the layers above) and ``cascade_check``
  (both against ``Automaton.run`` on random words, in a given dtype).
- ``corrupt_decoder`` / ``corrupt_layer``: negative controls that the checks must catch.

The holonomy decomposition, as built here. Transformations act on the right (q·a). The image sets
are I = {Q·w : w ∈ Σ*} ∪ {{q}}; P is subducted by R (P ≤ R) if P ⊆ R·w for some word w, and P ≡ R if
both ways (then R·u = P for a u that is a bijection R → P). The height is h({q}) = 0 and
h(P) = 1 + max h(P') over P' < P strictly; K = h(Q) levels. The tiles of P are the maximal members
of I strictly inside P. Each ≡-class has a representative R with, for each P in it, monoid
elements u_P: R → P and ū_P: P → R, mutually inverse on R and P. The first layer belongs to height
K, the last to height 1; a layer's states are the tiles of the representatives of its height. A
cascade state (x_1, …, x_K) decodes to a chain Q = C_0 ⊋ C_1 ⊋ … ⊋ {q}, each C_{j+1} a tile of C_j:
walking down from S = Q, at the layer of height h(S) the coordinate names a tile T of rep(S) and
S ← T·u_S; layers whose height no set of the chain has are skipped (don't care; a layer the new
chain skips keeps its value, an identity letter). A letter
a maps the chain to the images C_j·a, and the new chain is built from Q down: at S′ take the first
j with C_j·a ⊊ S′, then the tile C_j·a itself if it is a tile of S′, else the first tile of S′ that
contains it. Its level-k coordinate depends only on a and the coordinates above k, except when
S′ = C_{j−1}·a with C_{j−1} ≡ S′ at the same level; then C_j·a is a tile of S′ and the new
coordinate is x_k·(u_{C_{j−1}} a ū_{S′}), a permutation of rep(S′)'s tiles. So, for each letter of
layer k — the pair (a, coordinates above) — the layer's map is a permutation or a constant
(a reset), which ``holonomy_cascade`` checks for every such pair, and the last set of the new
chain is {q·a}, which ``verify_cascade`` checks. There are K < |I| ≤ 2^|Q| layers (a chain of
strict subductions visits distinct image sets). A layer's size is its number of tiles, which the
holonomy method does not bound by |Q| in general (some random 5-state automata get a 6-state
layer); for the two automata here every layer has ≤ |Q| states, as NE Thm 4 states.

Hand-worked example: Z3 with a reset (``z3_with_reset``): letters "+1" (q ↦ q + 1 mod 3) and
"reset" (q ↦ 0). I = {Q, {0}, {1}, {2}}, h(Q) = 1: one layer whose 3 states are the tiles {0}, {1},
{2}; "+1" is the 3-cycle, two reflections (swap (1 2) then (0 1)), and "reset" is A = 0, B = e_0.

Conventions: a layer's state is one-hot e_x (x indexes the layer's tiles); a letter f of the layer
maps e_x to e_{f(x)}, with the matrix M(f) of ``householder.permutation_matrix`` for a permutation
and A = 0, B = e_c for the constant c. All layers step together from the states at t − 1.

Used in: ne3.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

import torch
from torch import Tensor

from statetrack.models.ops.delta import delta_product_chunked, delta_product_sequential
from statetrack.theory.householder import as_reflections, gh_product, permutation_matrix
from statetrack.theory.threads import single_thread

__all__ = [
    "Automaton",
    "z3_with_reset",
    "random_automaton",
    "monoid_size",
    "ResetFactors",
    "reset_factors",
    "letter_factors",
    "letter_matrix",
    "Layer",
    "Cascade",
    "holonomy_cascade",
    "SymbolicCheck",
    "verify_cascade",
    "run_symbolic",
    "delta_rule_rank_one",
    "run_lrnn",
    "run_matrices",
    "layer_factors",
    "CascadeResult",
    "cascade_check",
    "corrupt_decoder",
    "corrupt_layer",
]

Transformation = tuple[int, ...]  # f[q] = q·f, a map of range(len(f)) into itself


# ----------------------------------------------------------------------------- automata


@dataclass(frozen=True)
class Automaton:
    """A complete deterministic semiautomaton with a start state: ``letters[a][q]`` is δ(q, a)."""

    name: str
    num_states: int
    letters: tuple[Transformation, ...]
    letter_names: tuple[str, ...]
    initial: int = 0

    def __post_init__(self):
        if self.num_states < 1 or not self.letters:
            raise ValueError(f"{self.name}: need >= 1 state and >= 1 letter")
        for a, f in enumerate(self.letters):
            if len(f) != self.num_states or any(not 0 <= q < self.num_states for q in f):
                raise ValueError(f"{self.name}: letter {a} = {f!r} is not a map of 0..{self.num_states - 1}")
        if not 0 <= self.initial < self.num_states:
            raise ValueError(f"{self.name}: initial state {self.initial!r} out of range")

    @property
    def ranks(self) -> tuple[int, ...]:
        """|Q·a| per letter: num_states for a permutation, 1 for a constant (reset)."""
        return tuple(len(set(f)) for f in self.letters)

    def run(self, words: Tensor) -> Tensor:
        """Brute force: the state after each letter, by table lookup from ``initial``.

        Args:
            words: (B, T) letter indices.
        Returns:
            (B, T) long, the state q_t = δ(q_{t−1}, x_t), q_0 = ``initial``.
        """
        table = torch.tensor(self.letters, dtype=torch.long)  # (A, N) δ(q, a)
        q = torch.full((words.shape[0],), self.initial, dtype=torch.long)  # (B,)
        wt = words.T.contiguous()  # (T, B)
        out = torch.empty(wt.shape, dtype=torch.long)  # (T, B)
        for t in range(wt.shape[0]):
            q = table[wt[t], q]  # (B,)
            out[t] = q
        return out.T  # (B, T)


def z3_with_reset() -> Automaton:
    """Z3 with a reset: "+1" (q ↦ q + 1 mod 3, a permutation) and "reset" (q ↦ 0, a constant map).

    Its transition monoid (Z3 plus the 3 constants, 6 elements) is not a group.
    """
    return Automaton("Z3 with reset", 3, ((1, 2, 0), (0, 0, 0)), ("+1", "reset"))


def _random_map(rng: random.Random, n: int, rank: int) -> Transformation:
    """A uniformly drawn image of size ``rank``, then a random map of range(n) onto exactly that image."""
    image = rng.sample(range(n), rank)
    f = [rng.choice(image) for _ in range(n)]
    for q, target in zip(rng.sample(range(n), rank), image):  # distinct preimages make it onto
        f[q] = target
    return tuple(f)


def random_automaton(num_states: int = 5, ranks: Sequence[int] = (4, 3, 2), seed: int = 0) -> Automaton:
    """A random automaton whose letter a is a map of rank ``ranks[a]`` (seeded, so fixed).

    With the defaults every letter has rank 2–4 of 5: neither a permutation nor a constant map, so no
    letter is a permutation–reset letter and the cascade needs several layers.

    Args:
        num_states: |Q|.
        ranks: the rank of each letter, in 1..num_states.
        seed: the generator's seed.
    Returns:
        The ``Automaton`` (start state 0).
    """
    if any(not 1 <= r <= num_states for r in ranks) or not ranks:
        raise ValueError(f"ranks={tuple(ranks)!r} is not allowed: each rank must lie in 1..{num_states}")
    rng = random.Random(seed)
    letters = tuple(_random_map(rng, num_states, r) for r in ranks)
    return Automaton(f"random {num_states}-state (seed {seed})", num_states, letters,
                     tuple(f"rank-{r} map {a}" for a, r in enumerate(ranks)))


def _compose(f: Transformation, g: Transformation) -> Transformation:
    """f then g (right action): q·(fg) = (q·f)·g."""
    return tuple(g[x] for x in f)


def _closure(start, successors) -> set:
    """Everything reachable from the items of ``start`` by repeatedly applying ``successors`` (item → iterable)."""
    seen = set(start)
    frontier = list(seen)
    while frontier:
        for y in successors(frontier.pop()):
            if y not in seen:
                seen.add(y)
                frontier.append(y)
    return seen


def _reachable(cascade) -> set:
    """The cascade states reachable from its start state (``cascade.step`` over every letter)."""
    letters = range(len(cascade.automaton.letters))
    return _closure({cascade.initial}, lambda c: (cascade.step(c, a) for a in letters))


def monoid_size(automaton: Automaton) -> int:
    """The number of transformations q ↦ q·w over all words w ≠ ε (the transition semigroup), by closure."""
    return len(_closure(automaton.letters, lambda f: (_compose(f, a) for a in automaton.letters)))


# ----------------------------------------------------------------------------- GH factors of a layer letter


@dataclass(frozen=True, eq=False)
class ResetFactors:
    """A reset letter as n GH factors (β = 1, keys e_1..e_n) and its offset, checked."""

    n: int
    target: int
    keys: Tensor  # (n, n) row j is the key v_j = e_j
    betas: Tensor  # (n,) all 1
    values: Tensor  # (n,) v_j = [j = target], the delta rule's written values
    product: Tensor  # (n, n) gh_product of the factors
    offset: Tensor  # (n,) B = Σ_j (later factors) β_j v_j value_j, what the delta steps write from h = 0
    product_is_zero: bool  # every entry of ``product`` is exactly 0
    beta_min: float
    beta_max: float
    max_image_error: float  # max over one-hot h = e_p of |A h + B − e_target| (delta steps, exact: 0)


def reset_factors(n: int, target: int = 0, dtype: torch.dtype = torch.float64) -> ResetFactors:
    """NE Thm 4's reset letter: A = (I − e_n e_nᵀ) ⋯ (I − e_1 e_1ᵀ) = 0 (n GH factors, β = 1), B = e_target.

    Args:
        n: the layer's state size.
        target: the reset target q (B = e_q).
        dtype: the factors' dtype.
    Returns:
        A ``ResetFactors`` with the factors, their product (exactly 0), the offset e_target, the β range
        and the largest error of the delta-rule steps on every one-hot state.
    """
    if n < 1 or not 0 <= target < n:
        raise ValueError(f"n={n!r}, target={target!r}: need n >= 1 and 0 <= target < n")
    keys, betas, values = _reset(n, target, dtype)  # (n, n), (n,), (n,)
    product = gh_product(keys, betas)  # (n, n)
    states = torch.eye(n, dtype=dtype)  # (n, n) column p is e_p
    offset = _delta_steps(torch.zeros(n, 1, dtype=dtype), keys, betas, values)[:, 0]  # (n,)
    images = _delta_steps(states, keys, betas, values)  # (n, n) column p: the image of e_p
    want = torch.zeros(n, n, dtype=dtype)  # (n, n)
    want[target] = 1
    return ResetFactors(n, target, keys, betas, values, product, offset, bool((product == 0).all()),
                        float(betas.min()), float(betas.max()), float((images - want).abs().max()))


def _delta_steps(S: Tensor, keys: Tensor, betas: Tensor, values: Tensor) -> Tensor:
    """The delta rule's sub-steps S ← (I − β k kᵀ) S + β k v on columns of S (a direct loop, for checks).

    Args: S (n, m) states as columns; keys (k, n); betas (k,); values (k,). Returns (n, m).
    """
    for kj, bj, vj in zip(keys, betas, values):
        S = S - bj * kj[:, None] * (kj[None, :] @ S) + bj * vj * kj[:, None]  # (n, m)
    return S


def _reset(n: int, target: int, dtype: torch.dtype) -> tuple[Tensor, Tensor, Tensor]:
    """Keys e_1..e_n (rows), β = 1, values [j = target]: n delta-rule steps that overwrite h with e_target."""
    values = torch.zeros(n, dtype=dtype)  # (n,)
    values[target] = 1
    return torch.eye(n, dtype=dtype), torch.ones(n, dtype=dtype), values  # (n, n), (n,), (n,)


def _is_permutation(f: Transformation) -> bool:
    return sorted(f) == list(range(len(f)))


def letter_factors(f: Transformation, num_factors: int | None = None,
                   dtype: torch.dtype = torch.float64) -> tuple[Tensor, Tensor, Tensor]:
    """The GH factors (keys, β, delta-rule values) of a permutation–reset letter f of an n-state layer.

    A permutation: the reflections of ``as_reflections`` (v = (e_i − e_j)/√2, β = 2, value 0), so the
    product is M(f). A constant c: keys e_1..e_n with β = 1 and values [j = c] (product 0, offset e_c).
    Padding factors have key e_1, β = 0 (the identity) and value 0.

    Args:
        f: the letter as a map of range(n); a permutation or a constant map.
        num_factors: pad to this many factors (None: as many as needed).
        dtype: the tensors' dtype.
    Returns:
        keys (k, n), betas (k,), values (k,).
    """
    n = len(f)
    if _is_permutation(f):
        pairs = as_reflections(f)
        keys = torch.zeros(len(pairs), n, dtype=dtype)  # (k, n)
        for r, (i, j) in enumerate(pairs):
            keys[r, i], keys[r, j] = 1 / math.sqrt(2), -1 / math.sqrt(2)
        betas = torch.full((len(pairs),), 2.0, dtype=dtype)  # (k,)
        values = torch.zeros(len(pairs), dtype=dtype)  # (k,)
    elif len(set(f)) == 1:
        keys, betas, values = _reset(n, f[0], dtype)  # (n, n), (n,), (n,)
    else:
        raise ValueError(f"letter {f!r} is neither a permutation nor a constant map: not a permutation–reset letter")
    k = keys.shape[0] if num_factors is None else num_factors
    if k < keys.shape[0]:
        raise ValueError(f"letter {f!r} needs {keys.shape[0]} factors, more than num_factors={num_factors}")
    pad = k - keys.shape[0]
    if pad:
        e0 = torch.zeros(pad, n, dtype=dtype)  # (pad, n)
        e0[:, 0] = 1
        keys = torch.cat([keys, e0])  # (k, n)
        betas = torch.cat([betas, torch.zeros(pad, dtype=dtype)])  # (k,)
        values = torch.cat([values, torch.zeros(pad, dtype=dtype)])  # (k,)
    return keys, betas, values


def letter_matrix(f: Transformation, dtype: torch.dtype = torch.float64) -> tuple[Tensor, Tensor]:
    """What a permutation–reset letter should be, by definition: (A, B) = (M(f), 0) or (0, e_c).

    Returns: A (n, n), B (n,).
    """
    n = len(f)
    if _is_permutation(f):
        return permutation_matrix(f, dtype), torch.zeros(n, dtype=dtype)
    if len(set(f)) == 1:
        b = torch.zeros(n, dtype=dtype)  # (n,)
        b[f[0]] = 1
        return torch.zeros(n, n, dtype=dtype), b
    raise ValueError(f"letter {f!r} is neither a permutation nor a constant map")


# ----------------------------------------------------------------------------- the holonomy decomposition


def _image(f: Transformation, S: frozenset) -> frozenset:
    return frozenset(f[q] for q in S)


def _key(S: frozenset) -> tuple:
    """Canonical order of sets: larger first, then lexicographic."""
    return (-len(S), sorted(S))


class _Holonomy:
    """Image sets, subduction, heights, tiles, representatives and the maps u_P, ū_P of one automaton."""

    def __init__(self, aut: Automaton):
        N = aut.num_states
        self.N, self.letters = N, aut.letters
        self.Q = Q = frozenset(range(N))
        ident = tuple(range(N))
        images = _closure({Q}, lambda S: (_image(f, S) for f in aut.letters))
        images |= {frozenset({q}) for q in range(N)}
        self.sets = sorted(images, key=_key)
        # orbit[S][T] = a monoid element g (or the identity) with S·g = T, found breadth first
        self.orbit: dict[frozenset, dict[frozenset, Transformation]] = {}
        for S in self.sets:
            found, queue = {S: ident}, [S]
            for P in queue:
                for f in aut.letters:
                    T = _image(f, P)
                    if T not in found:
                        found[T] = _compose(found[P], f)
                        queue.append(T)
            self.orbit[S] = found
        self.height: dict[frozenset, int] = {}
        for S in sorted(self.sets, key=len):
            self._height(S)
        self.tiles = {S: sorted((T for T in self.sets if T < S and not any(T < U < S for U in self.sets)), key=_key)
                      for S in self.sets if len(S) > 1}
        # representatives of the ≡-classes (Q for its own class) and u_P: rep → P, ū_P: P → rep
        self.rep: dict[frozenset, frozenset] = {}
        self.u: dict[frozenset, Transformation] = {}
        self.ubar: dict[frozenset, Transformation] = {}
        for S in self.sets:  # canonical order: Q first, then larger sets first
            if S in self.rep:
                continue
            for P in self.sets:
                if P not in self.rep and self.equivalent(S, P):
                    self.rep[P] = S
                    u, v = self.orbit[S][P], self.orbit[P][S]
                    g = _compose(u, v)  # a permutation of S
                    # ū = v·g^{m−1} where g^m is the identity on S, so u·ū is the identity on S
                    ubar, p = v, g
                    while any(p[q] != q for q in S):
                        ubar, p = _compose(ubar, g), _compose(p, g)
                    self.u[P], self.ubar[P] = u, ubar
                    assert all(ubar[u[q]] == q for q in S) and _image(u, S) == P and _image(ubar, P) == S
        self.K = self.height[Q]
        # level i (0 = top) holds the tiles of the representatives of height K − i
        self.level_states: list[list[tuple[frozenset, frozenset]]] = []
        for i in range(self.K):
            reps = sorted({self.rep[S] for S in self.sets if self.height[S] == self.K - i}, key=_key)
            self.level_states.append([(R, T) for R in reps for T in self.tiles[R]])
        self.index = [{rt: x for x, rt in enumerate(states)} for states in self.level_states]

    def subducts(self, P: frozenset, R: frozenset) -> bool:
        """P ≤ R: P ⊆ R·w for some word w (ε included)."""
        return any(P <= T for T in self.orbit[R])

    def equivalent(self, P: frozenset, R: frozenset) -> bool:
        return self.subducts(P, R) and self.subducts(R, P)

    def _height(self, S: frozenset) -> int:
        if S not in self.height:
            if len(S) == 1:
                self.height[S] = 0
            else:
                below = [P for P in self.sets if P != S and self.subducts(P, S) and not self.subducts(S, P)]
                self.height[S] = 1 + max(self._height(P) for P in below)
        return self.height[S]

    def level(self, S: frozenset) -> int:
        """The level index (0 = top) of a non-singleton set."""
        return self.K - self.height[S]

    def decode(self, coords: Sequence[int], upto: int | None = None) -> list[frozenset] | None:
        """The tile chain Q = C_0 ⊋ C_1 ⊋ … named by coordinates of levels < ``upto`` (None: all), or None if invalid."""
        S, chain = self.Q, [self.Q]
        for i in range(self.K if upto is None else upto):
            if len(S) > 1 and self.level(S) == i:
                R, T = self.level_states[i][coords[i]]
                if R != self.rep[S]:
                    return None
                S = _image(self.u[S], T)
                chain.append(S)
        return chain

    def encode(self, chain: Sequence[frozenset], old: Sequence[int]) -> tuple[int, ...]:
        """Coordinates of a tile chain; levels the chain skips keep their old value."""
        coords = list(old)
        for S, T in zip(chain[:-1], chain[1:]):
            coords[self.level(S)] = self.index[self.level(S)][(self.rep[S], _image(self.ubar[S], T))]
        return tuple(coords)

    def step_chain(self, chain: Sequence[frozenset], f: Transformation) -> list[frozenset]:
        """The new tile chain after letter f (module docstring): from Q down, tiles that contain the images."""
        images = [_image(f, C) for C in chain]
        S, new = self.Q, [self.Q]
        while len(S) > 1:
            D = next(D for D in images if D < S)
            T = D if D in self.tiles[S] else next(T for T in self.tiles[S] if D <= T)
            new.append(T)
            S = T
        return new

    def complete(self, prefix: Sequence[int], last: bool = False) -> tuple[int, ...] | None:
        """A full valid state extending the coordinates ``prefix`` (first, or last, tile below), or None if invalid."""
        chain = self.decode(prefix, upto=len(prefix))
        if chain is None:
            return None
        coords, S = list(prefix) + [0] * (self.K - len(prefix)), chain[-1]
        for i in range(len(prefix), self.K):
            if len(S) > 1 and self.level(S) == i:
                R = self.rep[S]
                T = self.tiles[R][-1 if last else 0]
                coords[i] = self.index[i][(R, T)]
                S = _image(self.u[S], T)
        return tuple(coords)

    def step(self, coords: Sequence[int], a: int) -> tuple[int, ...]:
        chain = self.decode(coords)
        return self.encode(self.step_chain(chain, self.letters[a]), coords)


@dataclass(frozen=True, eq=False)
class Layer:
    """One permutation–reset layer of the cascade: its states, letters and the lookup that picks its letter."""

    height: int  # the height of the representatives whose tiles are this layer's states
    states: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]  # (representative, tile) per state, as sorted tuples
    letters: tuple[Transformation, ...]  # distinct maps of range(n); each a permutation or a constant; [0] = identity
    table: Tensor  # (A, n_0, …, n_{i−1}) long: the letter index for (input letter, states of the layers above)

    @property
    def size(self) -> int:
        return len(self.states)

    @property
    def num_resets(self) -> int:
        return sum(not _is_permutation(f) for f in self.letters)


@dataclass(frozen=True, eq=False)
class Cascade:
    """A cascade of permutation–reset layers with a decoder to the automaton's states."""

    automaton: Automaton
    layers: tuple[Layer, ...]
    initial: tuple[int, ...]  # the start state of every layer (encodes the automaton's initial state)
    decoder: Tensor  # (n_0, …, n_{K−1}) long: the automaton state, −1 for a tuple that names no tile chain

    @property
    def state_sizes(self) -> tuple[int, ...]:
        return tuple(layer.size for layer in self.layers)

    def step(self, coords: Sequence[int], a: int) -> tuple[int, ...]:
        """All layers step together from the old states: layer i reads (a, coords[:i])."""
        out = []
        for i, layer in enumerate(self.layers):
            letter = int(layer.table[(a, *coords[:i])])
            out.append(layer.letters[letter][coords[i]])
        return tuple(out)


def holonomy_cascade(automaton: Automaton) -> Cascade:
    """The holonomy decomposition of ``automaton`` (Zeiger 1967; Eilenberg 1976; Maler 2010) as a ``Cascade``.

    For every layer i, input letter a and tuple of states of the layers above, the layer's map is
    computed from the tile-chain step (module docstring) on every valid state of the layer and
    checked to be a permutation of the valid states or a constant; it is then extended to the whole
    layer (identity, resp. the same constant, off the valid states). Tuples above that name no tile
    chain get the identity letter (they are never reached).

    Args:
        automaton: the automaton to decompose.
    Returns:
        The ``Cascade``; its layers from the top (height K) down to height 1.
    Raises:
        ValueError: for a 1-state automaton (nothing to track: no layers).
        AssertionError: if some layer letter is neither a permutation nor a constant (never, by the
            holonomy theorem; kept as a guard).
    """
    if automaton.num_states < 2:
        raise ValueError(f"{automaton.name}: a 1-state automaton needs no layers; give >= 2 states")
    H = _Holonomy(automaton)
    sizes = [len(s) for s in H.level_states]
    layers = []
    for i in range(H.K):
        n = sizes[i]
        ident = tuple(range(n))
        letters = {ident: 0}
        table = torch.zeros((len(automaton.letters), *sizes[:i]), dtype=torch.long)  # (A, n_0, …, n_{i−1})
        for above in itertools.product(*(range(m) for m in sizes[:i])):
            if H.decode(above, upto=i) is None:
                continue
            for a in range(len(automaton.letters)):
                image = {}
                for x in range(n):
                    full = H.complete((*above, x))
                    if full is None:
                        continue
                    image[x] = H.step(full, a)[i]
                    other = H.complete((*above, x), last=True)  # other lower coordinates must not matter
                    assert H.step(other, a)[i] == image[x], f"layer {i}: the map depends on the layers below"
                valid = sorted(image)
                targets = [image[x] for x in valid]
                if len(set(targets)) == 1 and len(valid) > 1:
                    f = tuple([targets[0]] * n)
                elif sorted(targets) == valid:
                    g = list(ident)
                    for x in valid:
                        g[x] = image[x]
                    f = tuple(g)
                else:
                    raise AssertionError(f"layer {i}: letter {a} above {above} maps {image}: not permutation–reset")
                table[(a, *above)] = letters.setdefault(f, len(letters))
        states = tuple((tuple(sorted(R)), tuple(sorted(T))) for R, T in H.level_states[i])
        layers.append(Layer(H.K - i, states, tuple(letters), table))
    decoder = torch.full(sizes, -1, dtype=torch.long)  # (n_0, …, n_{K−1})
    for coords in itertools.product(*(range(m) for m in sizes)):
        chain = H.decode(coords)
        if chain is not None:
            decoder[coords] = next(iter(chain[-1]))
    # start: the canonical chain down to {initial} (first tile containing it)
    S, chain = H.Q, [H.Q]
    while len(S) > 1:
        S = next(T for T in H.tiles[S] if automaton.initial in T)
        chain.append(S)
    initial = H.encode(chain, [0] * H.K)
    return Cascade(automaton, tuple(layers), initial, decoder)


@dataclass(frozen=True)
class SymbolicCheck:
    """The cascade's tables against the transition table, exhaustively."""

    valid_states: int  # cascade states (tuples) that decode to an automaton state
    reachable_states: int  # of those, reachable from the start
    transitions_checked: int  # valid states × letters
    wrong_transitions: int  # decoded next state ≠ δ(decoded state, a), or an invalid next state
    covers_all_states: bool  # every automaton state reachable from q_0 decodes from some reachable cascade state
    start_ok: bool  # the start decodes to the automaton's initial state
    letters_ok: bool  # every layer letter is a permutation or a constant map

    @property
    def ok(self) -> bool:
        return self.wrong_transitions == 0 and self.covers_all_states and self.start_ok and self.letters_ok


def verify_cascade(cascade: Cascade) -> SymbolicCheck:
    """Check the cascade over every valid state × letter: decode(step(c, a)) = δ(decode(c), a).

    Since it holds on every valid state and the start decodes to q_0, it holds on every word by
    induction; the reachable part of the automaton must also be covered.

    Returns:
        A ``SymbolicCheck``.
    """
    aut, dec = cascade.automaton, cascade.decoder
    sizes = cascade.state_sizes
    valid = [c for c in itertools.product(*(range(m) for m in sizes)) if int(dec[c]) >= 0]
    wrong = 0
    for c in valid:
        q = int(dec[c])
        for a, f in enumerate(aut.letters):
            wrong += int(dec[cascade.step(c, a)]) != f[q]
    reach = _reachable(cascade)
    q_reach = _closure({aut.initial}, lambda q: (f[q] for f in aut.letters))
    letters_ok = all(_is_permutation(f) or len(set(f)) == 1 for layer in cascade.layers for f in layer.letters)
    return SymbolicCheck(len(valid), len(reach), len(valid) * len(aut.letters), wrong,
                         {int(dec[c]) for c in reach} >= q_reach, int(dec[cascade.initial]) == aut.initial, letters_ok)


# ----------------------------------------------------------------------------- rollouts


def _layer_letters(layer: Layer, words: Tensor, above: Sequence[Tensor]) -> Tensor:
    """The layer's letter at every step from the input and the states of the layers above at t − 1.

    Args: words (B, T); above: per upper layer (B, T) its states *before* step t. Returns (B, T) long.
    """
    return layer.table[(words, *above)]  # (B, T)


def _previous(states: Tensor, start: int) -> Tensor:
    """(B, T) states after each step → (B, T) states before each step (start prepended)."""
    return torch.cat([torch.full_like(states[:, :1], start), states[:, :-1]], dim=1)  # (B, T)


def run_symbolic(cascade: Cascade, words: Tensor) -> list[Tensor]:
    """The cascade run by its tables (integers, no arithmetic).

    Args:
        words: (B, T) input letters.
    Returns:
        Per layer, (B, T) long: its state after each step.
    """
    B, T = words.shape
    out, above = [], []
    for i, layer in enumerate(cascade.layers):
        letters = _layer_letters(layer, words, above).T.contiguous()  # (T, B) time-major
        maps = torch.tensor(layer.letters, dtype=torch.long)  # (L, n)
        x = torch.full((B,), cascade.initial[i], dtype=torch.long)  # (B,)
        states = torch.empty(T, B, dtype=torch.long)  # (T, B)
        for t in range(T):
            x = maps[letters[t], x]  # (B,)
            states[t] = x
        states = states.T  # (B, T)
        out.append(states)
        above.append(_previous(states, cascade.initial[i]))
    return out


def layer_factors(layer: Layer, dtype: torch.dtype) -> tuple[Tensor, Tensor, Tensor]:
    """Every letter of a layer as n_h GH factors (padded): keys (L, n_h, n), betas (L, n_h), values (L, n_h)."""
    n = layer.size
    n_h = max(1, max((n if not _is_permutation(f) else len(as_reflections(f))) for f in layer.letters))
    parts = [letter_factors(f, n_h, dtype) for f in layer.letters]
    return tuple(torch.stack(p) for p in zip(*parts))  # (L, n_h, n), (L, n_h), (L, n_h)


def delta_rule_rank_one(k: Tensor, v: Tensor, beta: Tensor, h0: Tensor) -> Tensor:
    """The DeltaProduct recurrence for a vector state, written out: h ← h + β k (v − kᵀh), n_h sub-steps per token.

    The same update as ``delta_product_sequential`` (rank-one form of S ← (I − β k kᵀ) S + β k v with
    the (n, 1) state S = h), but on a (B, n) state with elementwise ops: no heads are needed to read
    h, and no batched 1×n matmuls, about 3× faster on a CPU. tests/test_theory_cascade.py checks it
    against the package's op.

    Args:
        k: (B, T, n_h, n) keys; v: (B, T, n_h) values; beta: (B, T, n_h); h0: (B, n) the start.
    Returns:
        (B, T, n) the state after each token's n_h sub-steps.
    """
    kt = k.permute(1, 2, 0, 3).contiguous()  # (T, n_h, B, n) time-major: one contiguous slice per sub-step
    bv = (beta * v).permute(1, 2, 0).contiguous()  # (T, n_h, B) β v
    bt = beta.permute(1, 2, 0).contiguous()  # (T, n_h, B)
    return _rank_one_time_major(kt, bv, bt, h0).transpose(0, 1)  # (B, T, n)


def _rank_one_time_major(kt: Tensor, bv: Tensor, bt: Tensor, h0: Tensor) -> Tensor:
    """``delta_rule_rank_one`` on time-major inputs kt (T, n_h, B, n), bv = βv and bt = β (T, n_h, B); → (T, B, n)."""
    T, n_h, B, n = kt.shape
    out = torch.empty(T, B, n, dtype=h0.dtype)  # (T, B, n)
    h = h0  # (B, n)
    for t in range(T):
        for j in range(n_h):
            kj = kt[t, j]  # (B, n)
            h = h + kj * (bv[t, j] - bt[t, j] * (kj * h).sum(-1))[:, None]  # (B, n) h + β k (v − kᵀh)
        out[t] = h
    return out


LRNN_OPS = ("rank_one", "delta_product", "delta_product_chunked")


def run_lrnn(cascade: Cascade, words: Tensor, dtype: torch.dtype = torch.float32,
             op: str = "rank_one") -> list[Tensor]:
    """The cascade as an LRNN: each layer h_t = A_t h_{t−1} + B_t, A_t a product of GH factors, as a delta rule.

    Layer i's letter at step t is read from the argmax of the upper layers' states h_{t−1} (a
    lookup, the theorem's decoder); its n_h GH factors (``letter_factors``) are the delta-rule
    sub-steps S ← (I − β k kᵀ) S + β k v of the (n, 1) state S = h.

    Args:
        words: (B, T) input letters.
        dtype: the recurrence's dtype.
        op: "rank_one" (``delta_rule_rank_one``, the default: the fastest), "delta_product" (the
            package's ``delta_product_sequential``) or "delta_product_chunked" (its WY/UT form, slow
            here: T·n_h/16 chunks of tiny solves). The package's ops read the state through n heads
            that share keys, values and β, head h with query e_h, so o_t = S_tᵀ e_h = h_t[h].
    Returns:
        Per layer, (B, T, n) the states h_t after each step.
    """
    if op not in LRNN_OPS:
        raise ValueError(f"op={op!r} is not allowed: use one of {LRNN_OPS}")
    B, T = words.shape
    out, above = [], []
    with torch.no_grad(), single_thread():
        for i, layer in enumerate(cascade.layers):
            n = layer.size
            keys, betas, values = layer_factors(layer, dtype)  # (L, n_h, n), (L, n_h), (L, n_h)
            n_h = keys.shape[1]
            letters = _layer_letters(layer, words, above)  # (B, T)
            h0 = torch.zeros(B, n, dtype=dtype)  # (B, n)
            h0[:, cascade.initial[i]] = 1
            if op == "rank_one":
                lt = letters.T.contiguous()  # (T, B)
                kt = keys.transpose(0, 1)[:, lt].transpose(0, 1)  # (T, n_h, B, n), each (B, n) slice contiguous
                bt = betas.T[:, lt].transpose(0, 1)  # (T, n_h, B)
                bv = (betas * values).T[:, lt].transpose(0, 1)  # (T, n_h, B) β v
                h = _rank_one_time_major(kt, bv, bt, h0).transpose(0, 1)  # (B, T, n)
            else:
                fn = delta_product_sequential if op == "delta_product" else delta_product_chunked
                k = keys[letters].unsqueeze(1).expand(B, n, T, n_h, n)  # (B, H=n, T, n_h, n)
                v = values[letters][..., None].unsqueeze(1).expand(B, n, T, n_h, 1)  # (B, H, T, n_h, 1)
                beta = betas[letters].unsqueeze(1).expand(B, n, T, n_h)  # (B, H, T, n_h)
                q = torch.eye(n, dtype=dtype)[None, :, None, :].expand(B, n, T, n)  # (B, H, T, n) head h reads e_h
                o, _ = fn(q, k, v, beta, h0[:, None, :, None].expand(B, n, n, 1))  # (B, H, T, 1)
                h = o[..., 0].transpose(1, 2)  # (B, T, n)
            out.append(h)
            above.append(_previous(h.argmax(-1), cascade.initial[i]))  # (B, T) the exact lookup
    return out


def run_matrices(cascade: Cascade, words: Tensor, dtype: torch.dtype = torch.float64) -> list[Tensor]:
    """The same LRNN with explicit matrices A = gh_product(factors) and offsets B (a second route, for tests).

    Returns: per layer (B, T, n) states h_t = A(x_t) h_{t−1} + B(x_t).
    """
    B, T = words.shape
    out, above = [], []
    with torch.no_grad():
        for i, layer in enumerate(cascade.layers):
            keys, betas, values = layer_factors(layer, dtype)  # (L, n_h, n), (L, n_h), (L, n_h)
            A = gh_product(keys, betas)  # (L, n, n)
            offs = _delta_steps_batch(keys, betas, values)  # (L, n)
            letters = _layer_letters(layer, words, above)  # (B, T)
            h = torch.zeros(B, layer.size, dtype=dtype)  # (B, n)
            h[:, cascade.initial[i]] = 1
            states = torch.empty(B, T, layer.size, dtype=dtype)  # (B, T, n)
            for t in range(T):
                h = (A[letters[:, t]] @ h[..., None])[..., 0] + offs[letters[:, t]]  # (B, n)
                states[:, t] = h
            out.append(states)
            above.append(_previous(states.argmax(-1), cascade.initial[i]))
    return out


def _delta_steps_batch(keys: Tensor, betas: Tensor, values: Tensor) -> Tensor:
    """B(x) of each letter: the delta sub-steps from h = 0. keys (L, k, n), betas, values (L, k) → (L, n)."""
    return torch.stack([_delta_steps(torch.zeros(keys.shape[-1], 1, dtype=keys.dtype), k, b, v)[:, 0]
                        for k, b, v in zip(keys, betas, values)])


def _onehot_error(h: Tensor, s: Tensor) -> Tensor:
    """max |h − onehot(s)|, exact in h's dtype (h − 1 near 1 and h − 0 are exact). h (B, T, n), s (B, T)."""
    d = h.scatter_add(-1, s[..., None], torch.full_like(h[..., :1], -1))  # (B, T, n) h − onehot(s)
    return d.abs().max()


@dataclass(frozen=True)
class CascadeResult:
    """The cascade LRNN against the automaton on random words."""

    automaton: str
    num_states: int
    num_letters: int
    letter_ranks: tuple[int, ...]
    monoid_size: int
    layers: int
    state_sizes: tuple[int, ...]
    resets_per_layer: tuple[int, ...]  # number of reset (constant) letters of each layer
    letters_per_layer: tuple[int, ...]  # distinct letters of each layer (identity included)
    factors_per_layer: tuple[int, ...]  # n_h, the GH factors per token of each layer
    beta_min: float
    beta_max: float
    symbolic_ok: bool  # ``verify_cascade(...).ok``
    num_words: int
    length: int
    dtype: str
    acc: float  # fraction of (word, position) states decoded right, against ``Automaton.run``
    seq_acc: float  # fraction of words right at every position
    symbolic_acc: float  # the same for ``run_symbolic`` (the tables alone)
    max_error: float  # max |h_t − onehot| over layers, words, steps, entries (one-hot of the symbolic state)


def cascade_check(automaton: Automaton, num_words: int = 1000, length: int = 1000,
                  dtype: torch.dtype = torch.float32, seed: int = 0, cascade: Cascade | None = None,
                  op: str = "rank_one") -> CascadeResult:
    """NE Thm 4 end to end: decompose, verify symbolically, run as an LRNN, compare with brute force.

    Args:
        automaton: the automaton (its letters drawn uniformly for the words).
        num_words, length: B words of T letters (seed ``seed``).
        dtype: the LRNN's dtype.
        seed: the words' seed.
        cascade: a given cascade (e.g. a corrupted one, as a negative control); None builds it.
        op: the delta-rule op of ``run_lrnn``.
    Returns:
        A ``CascadeResult``.
    """
    if num_words < 1 or length < 1:
        raise ValueError(f"num_words={num_words!r}, length={length!r}: both must be >= 1")
    casc = holonomy_cascade(automaton) if cascade is None else cascade
    words = torch.randint(len(automaton.letters), (num_words, length),
                          generator=torch.Generator().manual_seed(seed))  # (B, T)
    with single_thread():
        truth = automaton.run(words)  # (B, T)
        sym = run_symbolic(casc, words)  # K × (B, T)
        hs = run_lrnn(casc, words, dtype, op)  # K × (B, T, n)
        pred = casc.decoder[tuple(h.argmax(-1) for h in hs)]  # (B, T)
        sym_pred = casc.decoder[tuple(sym)]  # (B, T)
        err = max(float(_onehot_error(h, s)) for h, s in zip(hs, sym))
    factors = [layer_factors(layer, torch.float64) for layer in casc.layers]
    betas = torch.cat([b.flatten() for _, b, _ in factors])
    hit = pred == truth  # (B, T)
    return CascadeResult(
        automaton.name, automaton.num_states, len(automaton.letters), automaton.ranks, monoid_size(automaton),
        len(casc.layers), casc.state_sizes, tuple(layer.num_resets for layer in casc.layers),
        tuple(len(layer.letters) for layer in casc.layers), tuple(k.shape[1] for k, _, _ in factors),
        float(betas.min()), float(betas.max()), verify_cascade(casc).ok, num_words, length,
        str(dtype).removeprefix("torch."), float(hit.double().mean()), float(hit.all(dim=1).double().mean()),
        float((sym_pred == truth).double().mean()), err)


# ----------------------------------------------------------------------------- negative controls


def corrupt_decoder(cascade: Cascade, seed: int = 0) -> Cascade:
    """A copy whose decoder sends one reachable cascade state (drawn with ``seed``) to a wrong automaton state."""
    c = random.Random(seed).choice(sorted(_reachable(cascade)))
    dec = cascade.decoder.clone()
    dec[c] = (int(dec[c]) + 1) % cascade.automaton.num_states
    return replace(cascade, decoder=dec)


def corrupt_layer(cascade: Cascade, layer: int = -1) -> Cascade:
    """A copy in which one layer's non-identity letters are all replaced by the identity (a forgotten update)."""
    i = layer % len(cascade.layers)
    old = cascade.layers[i]
    new = replace(old, table=torch.zeros_like(old.table))
    return replace(cascade, layers=cascade.layers[:i] + (new,) + cascade.layers[i + 1:])
