"""How much a random state machine remembers: synchronising words and the w-letter window ceiling (BL random-FSM table).

BL's random-FSM table (secondary source, unverified: "bilinear 1.00, LSTM 0.09 at 50 states") does
not say how the machines were drawn. That choice decides the result: a machine *synchronises* when
some word sends every start state to one state, and after such a word its past no longer matters.
A model that only gets the last few letters right then scores well at any length. This module
measures, for one machine δ: Q × Σ → Q (``tasks.fsm`` tables, ``table[q, a] = δ(q, a)``):

- ``image_sizes``: |δ(Q, u)|, the number of states a word u can end in from *any* start state;
  u synchronises when it is 1. A permutation letter never shrinks the image, so a machine whose
  letters are all permutations has image size m for every word and never forgets.
- ``synchronizing_fraction``: the fraction of words of length w that synchronise (random words
  from a seeded generator, or all k^w words with ``exact=True``).
- ``state_prior``: P(state after n random letters from q0), the Markov chain e_{q0} Mⁿ with
  M[q, q'] = #{a : δ(q, a) = q'} / k, computed in fp64.
- ``window_ceiling``: the best accuracy at length L of *any* predictor that sees only the last w
  letters, E_u[max_q P(q | u)] with P(q | u) = Σ_{q' : δ(q', u) = q} P(q' after L − w letters).
  This is what a model that "re-synchronises" can reach without tracking the state at all; for a
  permutation machine every u is a bijection, so the ceiling is max_q P(q after L − w letters)
  whatever w is (≈ 1/m: chance).

Hand-worked example (the fsm task's docstring machine: 3 states, letter 0 the cycle 0→1→2→0,
letter 1 sends 0, 1 → 0 and keeps 2)::

    word u    δ(0,u) δ(1,u) δ(2,u)   image     synchronises
    "1"          0      0      2      {0, 2}    no
    "0 1"        0      2      0      {0, 2}    no    (0→1→0, 1→2→2, 2→0→0)
    "1 0 1"      0      0      0      {0}       yes   (0→0→1→0, 1→0→1→0, 2→2→0→0)

No word of length 2 synchronises; of the 8 words of length 3 only "1 0 1" does, so
``synchronizing_fraction(table, 3, exact=True)`` is 1/8.

Every number here is exact (enumeration) or an unbiased Monte Carlo estimate from a seeded
generator; the tests compare both with a brute-force walk from every start state through the
task's own ``tasks.fsm.walk``.

Used in: bl3 (claims/bl3/claim.py, notebooks/bl3_random_state_machines.md), tests/test_theory_synchronization.py.
"""

from __future__ import annotations

import itertools

import torch

MAX_EXACT_WORDS = 1 << 20  # enumerate all k^w words only up to this many


def _check_table(table: torch.Tensor) -> tuple[int, int]:
    if not isinstance(table, torch.Tensor) or table.dim() != 2 or table.dtype != torch.long or table.numel() == 0:
        raise ValueError(f"table {table!r} is not allowed: expected a non-empty (m, k) LongTensor of next states")
    m, k = table.shape
    if int(table.min()) < 0 or int(table.max()) >= m:
        raise ValueError(f"table entries must lie in [0, {m - 1}] (the states); found "
                         f"{int(table.min())}..{int(table.max())}")
    return m, k


def _check_words(words: torch.Tensor, k: int) -> None:
    if words.dim() != 2 or words.dtype != torch.long or words.shape[1] == 0:
        raise ValueError(f"words of shape {tuple(words.shape)} and dtype {words.dtype} are not allowed: "
                         "expected a (B, w) LongTensor with w >= 1")
    if words.numel() and (int(words.min()) < 0 or int(words.max()) >= k):
        raise ValueError(f"letters must lie in [0, {k - 1}]; found {int(words.min())}..{int(words.max())}")


def permutation_letters(table: torch.Tensor) -> torch.Tensor:
    """Which letters permute the states: (k,) bool, ``True`` where column a of δ hits every state once."""
    m, k = _check_table(table)
    return torch.tensor([torch.unique(table[:, a]).numel() == m for a in range(k)])  # (k,)


def word_maps(table: torch.Tensor, words: torch.Tensor) -> torch.Tensor:
    """δ(q, u) for every start state q and word u: (B, m), the map Q → Q each word induces.

    Args:
        table: (m, k) next-state table.
        words: (B, w) letters.
    """
    m, k = _check_table(table)
    _check_words(words, k)
    state = torch.arange(m).expand(words.shape[0], m)  # (B, m) every start state at once
    for t in range(words.shape[1]):
        state = table[state, words[:, t, None].expand(-1, m)]  # (B, m)
    return state


def image_sizes(table: torch.Tensor, words: torch.Tensor) -> torch.Tensor:
    """|δ(Q, u)| for every word: (B,) long, 1 for a synchronising word, m for a bijection."""
    maps = word_maps(table, words)  # (B, m)
    hit = torch.zeros(maps.shape[0], table.shape[0], dtype=torch.bool)  # (B, m)
    hit.scatter_(1, maps, True)
    return hit.sum(1)  # (B,)


def all_words(k: int, w: int) -> torch.Tensor:
    """All k^w words of length w in lexicographic order: (k^w, w) long."""
    if k < 1 or w < 1 or k ** w > MAX_EXACT_WORDS:
        raise ValueError(f"k={k!r}, w={w!r}: enumeration needs k, w >= 1 and k^w <= {MAX_EXACT_WORDS}")
    return torch.tensor(list(itertools.product(range(k), repeat=w)), dtype=torch.long).view(-1, w)  # (k^w, w)


def random_words(k: int, w: int, num_words: int, seed: int) -> torch.Tensor:
    """``num_words`` uniform words of length w from a generator seeded with ``seed``: (N, w) long."""
    if num_words < 1 or w < 1:
        raise ValueError(f"num_words={num_words!r}, w={w!r}: both must be >= 1")
    return torch.randint(0, k, (num_words, w), generator=torch.Generator().manual_seed(seed))  # (N, w)


def synchronizing_fraction(table: torch.Tensor, w: int, num_words: int = 4096, seed: int = 0,
                           exact: bool = False) -> float:
    """The fraction of length-w words u with |δ(Q, u)| = 1 (u sends every start state to one state).

    Args:
        table: (m, k) next-state table.
        w: word length, >= 1.
        num_words, seed: the Monte Carlo sample (ignored when ``exact``).
        exact: enumerate all k^w words instead of sampling.
    """
    m, k = _check_table(table)
    words = all_words(k, w) if exact else random_words(k, w, num_words, seed)  # (N, w)
    return (image_sizes(table, words) == 1).double().mean().item()


def transition_probs(table: torch.Tensor) -> torch.Tensor:
    """M[q, q'] = P(δ(q, a) = q') for a uniform letter a: (m, m) fp64, rows sum to 1."""
    m, k = _check_table(table)
    M = torch.zeros(m, m, dtype=torch.float64)  # (m, m)
    M.index_put_((torch.arange(m).repeat_interleave(k), table.reshape(-1)),
                 torch.full((m * k,), 1.0 / k, dtype=torch.float64), accumulate=True)
    return M


def state_prior(table: torch.Tensor, n: int, start: int = 0) -> torch.Tensor:
    """P(state after n uniform random letters from ``start``): (m,) fp64, e_start Mⁿ."""
    m, _ = _check_table(table)
    if n < 0 or not 0 <= start < m:
        raise ValueError(f"n={n!r}, start={start!r}: need n >= 0 and start in [0, {m - 1}]")
    p = torch.zeros(m, dtype=torch.float64)  # (m,)
    p[start] = 1.0
    M = transition_probs(table)  # (m, m)
    for _ in range(n):
        p = p @ M  # (m,)
    return p


def window_posterior_max(table: torch.Tensor, words: torch.Tensor, prior: torch.Tensor) -> torch.Tensor:
    """max_q P(q | last letters = u) for every word u, with the state before u drawn from ``prior``: (B,) fp64."""
    maps = word_maps(table, words)  # (B, m): δ(q', u)
    post = torch.zeros(maps.shape, dtype=torch.float64)  # (B, m)
    post.scatter_add_(1, maps, prior.expand(maps.shape[0], -1))  # P(q | u) = Σ_{q': δ(q', u) = q} p(q')
    return post.amax(1)  # (B,)


def window_ceiling(table: torch.Tensor, w: int, length: int, num_words: int = 4096, seed: int = 0,
                   exact: bool = False, start: int = 0) -> float:
    """The best accuracy at ``length`` of any predictor that sees only the last w letters (module docstring).

    E_u[max_q P(q | u)] over uniform words u of length w, with the state before u distributed as
    after ``length − w`` letters from ``start``. Chance is 1/m for a permutation machine; 1 means
    the last w letters always determine the state.

    Args:
        table: (m, k) next-state table.
        w: window, 1 <= w <= length.
        length: the test length L.
        num_words, seed, exact: as in ``synchronizing_fraction``.
    """
    m, k = _check_table(table)
    if not 1 <= w <= length:
        raise ValueError(f"window w={w!r} is not allowed: it must lie in [1, length={length}]")
    prior = state_prior(table, length - w, start)  # (m,)
    words = all_words(k, w) if exact else random_words(k, w, num_words, seed)  # (N, w)
    return window_posterior_max(table, words, prior).mean().item()


__all__ = ["all_words", "image_sizes", "permutation_letters", "random_words", "state_prior",
           "synchronizing_fraction", "transition_probs", "window_ceiling", "window_posterior_max", "word_maps"]
