"""NE Thm 3 and Fig. 4/8: a group word problem is tracked exactly by a linear map per token, a faithful representation.

The word problem of a group G asks, after every token, for the running product g_t = x_1·…·x_t
(``tasks/groups.py``; "apply x_1 first"). A linear RNN tracks it exactly if each element x acts on
the state by a matrix ρ(x) with ρ(x)ρ(g) = ρ(g·x) and the start h_0 has a *free orbit* (ρ(g)h_0 = h_0
only for g = e): then h_t = ρ(g_t)h_0 names g_t, and since every ρ(g)h_0 has the norm of h_0, the
readout argmax_c ⟨ρ(c)h_0, h_t⟩ is right by Cauchy–Schwarz (equality only for the true c). This
module builds such trackers and measures how many generalized Householder (GH) factors each
variant of NE Fig. 4 asks of one token:

- ``representation``: S5 as 5×5 permutation matrices with h_0 = (1, 2, 3, 4, 5)/‖·‖ (distinct
  entries, so no permutation but the identity fixes it); Z60 as 2×2 rotations by 2πr/60 with
  h_0 = e_1.
- ``delay_line``: NE's "k tokens per element" makes the answer lag k − 1 tokens behind the element;
  a state of k blocks (a shift register) holds the pending change until the last blank.
- ``full_matrix_tracker``: both, as the weights of the package's ``bilinear`` model, variant "full"
  (our version of NE's "full matrix simple" baseline, state size 32), for every variant of ne5 and
  for Z60 (ne6); ``track`` runs a model's own ``forward`` on the task's samples and compares with the
  task's labels.
- ``factors_needed``: the fewest reflections whose product is each drawn element (n − #cycles,
  NE Prop. 1.2): 1 for swaps, 2 for 3-cycles, up to 4 in S5. One DeltaNet [−1,1] layer applies one
  GH factor per token, so it fits the swaps variant; "4 tokens per transition" gives every element
  room for 4.
- ``reflection_pairs`` / ``track_reflection_pairs``: Z60 with 2 tokens per element through the
  package's delta-rule recurrence with one 2×2 head: the element token reflects across a line
  at angle −πx/60, the blank across the x-axis, and the two reflections make the rotation R(2πx/60)
  (NE Thm 3: a rotation is a product of two GH matrices with β = 2). One GH factor per token, as in
  a one-layer DeltaNet [−1,1], but a complex eigenvalue per *pair* of tokens, which NE Thm 2 asks of
  any LRNN that counts modulo 60.

Hand-worked example (the delay line, k = 2, one block per token of size r). The state has two
blocks (B0, B1); the readout looks at B0 only::

    element x:  (B0, B1) ↦ (B0, (ρ(x) − I) B0)      B0 still holds the previous product
    blank:      (B0, B1) ↦ (B0 + B1, 0)              B0 becomes ρ(x) B0: the product including x

From (h_0, 0) the word "x blank" gives (h_0, (ρ(x) − I)h_0) and then (ρ(x)h_0, 0): the answers
e and x, exactly the task's labels at positions 0 and 1. For k = 4 the blank shifts B1 → B2 → B3
and adds B3 into B0, so the change lands on the third blank. Z60, k = 1, x = 15: ρ(15) = R(π/2),
h_1 = (0, 1), and the readout's row c = 15 is (cos(π/2), sin(π/2)) = (0, 1), the only row with
⟨row, h_1⟩ = 1.

Our "full matrix simple" differs from NE's: NE's state is a matrix H_t = A(x_t)H_{t−1} from H_0 = I
(so it holds ρ(g_t) itself), ours a vector h_t from a learned h_0. A vector suffices when h_0's orbit
is free, which the constructions here show for every variant.

Used in: ne5, ne6.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from statetrack.config import ConfigError, TaskConfig
from statetrack.models import make_model, model_config
from statetrack.models.ops.delta import delta_rule_sequential
from statetrack.tasks import make_task, task_config
from statetrack.theory.householder import TrackResult, as_reflections

GROUPS = ("S5", "Z60")


def _check_int(name: str, value: int, least: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise ConfigError(f"{name}={value!r} is not allowed: it must be an integer >= {least}")


# ----------------------------------------------------------------------------- representations


def representation(task) -> tuple[torch.Tensor, torch.Tensor]:
    """A faithful orthogonal representation ρ of the task's group and a start h_0 with a free orbit.

    Args:
        task: a ``word_problem`` task of group S5 or Z60.
    Returns:
        rho (|G|, r, r) fp64 with rho[b] @ rho[a] = rho[a·b] (apply a first), and h0 (r,) of unit norm;
        r = 5 for S5 (permutation matrices M(p) e_j = e_{p[j]}), 2 for Z60 (rotations by 2πr/60).
    """
    group = getattr(task.cfg, "group", None)
    if group not in GROUPS:
        raise ConfigError(f"group={group!r} is not allowed here; allowed: {', '.join(GROUPS)}")
    if group == "Z60":
        angle = 2 * math.pi * torch.arange(60, dtype=torch.float64) / 60  # (|G|,)
        c, s = torch.cos(angle), torch.sin(angle)  # (|G|,) each
        rho = torch.stack((torch.stack((c, -s), -1), torch.stack((s, c), -1)), -2)  # (|G|, 2, 2)
        return rho, torch.tensor([1.0, 0.0], dtype=torch.float64)
    perms = torch.tensor(task.permutations)  # (|G|, 5)
    n = perms.shape[1]
    rho = torch.zeros(len(perms), n, n, dtype=torch.float64)  # (|G|, n, n)
    rho[torch.arange(len(perms))[:, None], perms, torch.arange(n)] = 1.0  # column j has its 1 in row p[j]
    h0 = torch.arange(1, n + 1, dtype=torch.float64)  # (n,) distinct entries: only the identity fixes it
    return rho, h0 / torch.linalg.vector_norm(h0)


def delay_line(rho: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Token matrices that apply ρ(x) k − 1 tokens late, on a state of k blocks of size r (see the docstring).

    Args:
        rho: (|G|, r, r) the elements' matrices.
        k: tokens per element (k = 1: the matrices themselves).
    Returns:
        elements (|G|, k·r, k·r) and blank (k·r, k·r), fp64; the readout block is B0 (the first r).
    """
    _check_int("k", k, 1)
    G, r, _ = rho.shape
    eye = torch.eye(r, dtype=rho.dtype)  # (r, r)
    if k == 1:
        return rho.clone(), torch.eye(r, dtype=rho.dtype)
    el = torch.zeros(G, k * r, k * r, dtype=rho.dtype)  # (|G|, kr, kr); blocks B2..B_{k−1} are zeroed
    el[:, :r, :r] = eye  # B0 ← B0
    el[:, r:2 * r, :r] = rho - eye  # B1 ← (ρ(x) − I) B0
    blank = torch.zeros(k * r, k * r, dtype=rho.dtype)  # (kr, kr)
    blank[:r, :r] = eye  # B0 ← B0 + B_{k−1}
    blank[:r, (k - 1) * r:] = eye
    for j in range(1, k - 1):
        blank[(j + 1) * r:(j + 2) * r, j * r:(j + 1) * r] = eye  # B_{j+1} ← B_j
    return el, blank


# ----------------------------------------------------------------------------- through the bilinear model


def full_matrix_tracker(task_cfg: TaskConfig, d_model: int = 32) -> nn.Module:
    """The package's ``bilinear`` model (variant "full", one-hot input) with hand-set weights that tracks the task.

    Token x < |G| (an element) gets the delay-line matrix of ρ(x), the blank token |G| the shift,
    the padding token the identity; unused state coordinates (beyond k·r) keep the identity and
    start at 0. h_0 = (h_0 of ``representation``, 0, …); the head's row c is (ρ(c)h_0, 0, …), so the
    logit of class c is ⟨ρ(c)h_0, B0⟩. The model normalises the state every step, which rescales
    every block alike and so never changes the argmax.

    Args:
        task_cfg: a ``word_problem`` config (S5 with any ``elements``, or Z60) with k tokens per element.
        d_model: the state size H; must be >= k·r (r = 5 for S5, 2 for Z60).
    Returns:
        the model (fp32, eval mode).
    """

    task = make_task(task_cfg)
    rho, h0 = representation(task)  # (|G|, r, r), (r,)
    k, (G, r, _) = task_cfg.tokens_per_element, rho.shape
    _check_int("d_model", d_model, k * r)
    model = make_model(model_config("bilinear", variant="full", d_model=d_model), task.vocab_size, task.num_classes)
    el, blank = delay_line(rho, k)  # (|G|, kr, kr), (kr, kr)
    A = torch.eye(d_model, dtype=torch.float64).repeat(task.vocab_size, 1, 1)  # (V, H, H)
    A[:G, :k * r, :k * r] = el
    if k > 1:
        A[G, :k * r, :k * r] = blank  # the blank token's id is |G|
    with torch.no_grad():
        model.transition.copy_(A.float())  # (V, H, H)
        start = torch.zeros(d_model, dtype=torch.float64)  # (H,)
        start[:r] = h0
        model.h0.copy_(start.float())
        rows = torch.zeros(G, d_model, dtype=torch.float64)  # (K, H)
        rows[:, :r] = rho @ h0  # (K, r) row c = ρ(c) h_0
        model.head.weight.copy_(rows.float())
    return model.eval()


@torch.no_grad()
def track(model: nn.Module, task_cfg: TaskConfig, num_seqs: int = 1000, length: int = 500, seed: int = 0,
          batch_size: int = 250) -> TrackResult:
    """Run ``model``'s own forward on ``num_seqs`` random words of the task and compare with its labels.

    Args:
        model: any registered model for the task (K-way head).
        task_cfg: the task; its sampler draws the words and the labels (the ground truth).
        num_seqs, length: how many words, and their length in tokens.
        seed: the sampler's seed.
    """

    _check_int("num_seqs", num_seqs, 1)
    _check_int("length", length, 1)
    task = make_task(task_cfg)
    batch = task.sample(torch.Generator().manual_seed(seed), num_seqs, length)
    right = torch.cat([model(x).argmax(-1) == y for x, y in zip(batch.inputs.split(batch_size),
                                                                batch.targets.split(batch_size))])  # (N, T)
    return TrackResult(num_seqs, length, float(right.double().mean()), float(right.all(1).double().mean()))


# ----------------------------------------------------------------------------- GH factors per element


def factors_needed(task) -> torch.Tensor:
    """For each drawn element of an S5 task, the fewest reflections I − 2vvᵀ whose product is M(p): n − #cycles.

    (NE Prop. 1.2: a permutation of n points is a product of at most n − 1 swaps.) The count is a lower
    bound for GH factors of any β too: a product of j GH matrices differs from I by a matrix of rank
    <= j, and rank(M(p) − I) = n − #cycles (tests check both).

    Returns:
        (E,) LongTensor in the order of ``task.elements_drawn``.
    """
    if getattr(task.cfg, "group", None) != "S5":
        raise ConfigError(f"group={getattr(task.cfg, 'group', None)!r} is not allowed here; allowed: S5")
    return torch.tensor([len(as_reflections(task.permutations[e])) for e in task.elements_drawn.tolist()])


def lowest_eigenvalue(task) -> torch.Tensor:
    """For each drawn element, the smallest real part of M(p)'s eigenvalues (fp64): −1 for every odd permutation.

    A DeltaNet [0,1] transition I − βkkᵀ with β ∈ [0, 1] has eigenvalues in [0, 1], so it can equal no
    element with an eigenvalue −1 (every swap), whatever k.
    """
    rho, _ = representation(task)  # (|G|, 5, 5)
    ev = torch.linalg.eigvals(rho[task.elements_drawn])  # (E, 5) complex
    return ev.real.min(-1).values  # (E,)


# ----------------------------------------------------------------------------- Z60, two reflections per element


def reflection_pairs(tokens: torch.Tensor, m: int = 60, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Z_m with 2 tokens per element through the package's delta rule (``delta_rule_sequential``), one 2×2 head.

    Every token applies one reflection (β = 2, v = 0) to the state S_t = A_t S_{t−1}, S_0 = I:
    element x reflects across the line at angle α_x = −πx/m (key n_x = (−sin α_x, cos α_x)), the blank
    across the x-axis (key e_2). Two reflections across lines at angles a, b make R(2(a − b)), so an
    element and its blank make R(2πx/m). The query is e_1 for the blank and F_x e_1 for the element x
    (F_x its reflection), so the output o_t = S_tᵀ q_t is R(−2πg/m) e_1 for the product g the label
    wants at both positions; the readout is the nearest of the m points R(−2πc/m) e_1.

    Args:
        tokens: (B, T) word_problem Z_m inputs with tokens_per_element = 2 (elements 0..m−1 at even
            positions, the blank m at odd ones).
        m: the modulus.
        dtype: the precision of the recurrence.
    Returns:
        predictions (B, T) in 0..m−1.
    """

    _check_int("m", m, 2)
    if tokens.numel() and (int(tokens.min()) < 0 or int(tokens.max()) > m):
        raise ConfigError(f"tokens must lie in 0..{m} (elements and the blank {m}); got "
                          f"{int(tokens.min())}..{int(tokens.max())}")
    B, T = tokens.shape
    alpha = torch.where(tokens < m, -math.pi * tokens.double() / m, torch.zeros((), dtype=torch.float64))  # (B, T)
    k = torch.stack((-torch.sin(alpha), torch.cos(alpha)), -1)  # (B, T, 2) unit normal of the line at angle α
    q = torch.stack((torch.cos(2 * alpha), torch.sin(2 * alpha)), -1)  # (B, T, 2) F_α e_1 (e_1 for the blank)
    v = torch.zeros(B, T, 2, dtype=torch.float64)  # (B, T, 2) no write: the state is a pure product
    beta = torch.full((B, T), 2.0, dtype=torch.float64)  # (B, T) reflections
    S0 = torch.eye(2, dtype=dtype).expand(B, 1, 2, 2).contiguous()  # (B, 1, 2, 2)
    o, _ = delta_rule_sequential(*(x.unsqueeze(1).to(dtype) for x in (q, k, v, beta)), S0)  # (B, 1, T, 2)
    ref = -2 * math.pi * torch.arange(m, dtype=torch.float64) / m  # (m,)
    points = torch.stack((torch.cos(ref), torch.sin(ref)), -1).to(dtype)  # (m, 2) R(−2πc/m) e_1
    return (o[:, 0] @ points.T).argmax(-1)  # (B, T)


def track_reflection_pairs(num_seqs: int = 1000, length: int = 500, seed: int = 0,
                           dtype: torch.dtype = torch.float32) -> TrackResult:
    """``reflection_pairs`` against the Z60 word problem's labels (2 tokens per element)."""

    _check_int("num_seqs", num_seqs, 1)
    _check_int("length", length, 1)
    task = make_task(task_config("word_problem", group="Z60", tokens_per_element=2))
    batch = task.sample(torch.Generator().manual_seed(seed), num_seqs, length)
    right = reflection_pairs(batch.inputs, 60, dtype) == batch.targets  # (N, T)
    return TrackResult(num_seqs, length, float(right.double().mean()), float(right.all(1).double().mean()))
