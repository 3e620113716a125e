"""NE Prop. 1, Thm 3, Thm 6: products of generalized Householder (GH) matrices I − β v vᵀ and what they track.

A GH matrix is ``I − β v vᵀ`` with ‖v‖ = 1; its eigenvalues are 1 (on v⊥) and 1 − β (on v), so
β ∈ [0, 1] gives DeltaNet's range [0, 1] and β ∈ [0, 2] the NE range [−1, 1]; β = 2 is a reflection.
This module holds the exact constructions of NE claim ne3:

- ``gh_product`` / ``sample_gh_products``: explicit products of k GH matrices and their spectra
  (Prop. 1: norm ≤ 1 always; for β ∈ [0, 1] and k ≤ 2 every eigenvalue is real in [0, 1]; with
  β ∈ [0, 2] two factors already make rotations, i.e. complex eigenvalues).
- ``swap_reflection`` / ``permutation_matrix`` / ``as_reflections``: a swap (i j) is the reflection
  I − 2vvᵀ with v = (e_i − e_j)/√2, and any permutation of n points is a product of ≤ n − 1 of them.
- ``swap_tracker`` / ``track_swaps``: Thm 3 for S5 restricted to swaps, as a hand-set ONE-LAYER
  DeltaNet [−1, 1] of the package (one GH factor per token), run with the model's own ``step``.
- ``reflection_adder``: Thm 6 (NE App. D), addition mod m with two layers that only reflect, run
  through the package's chunked delta-rule op (the DeltaNet recurrence).
- ``rotation_deltaproduct``: two reflections per token in the package's DeltaProduct (n_h = 2) give
  a rotation by θ, eigenvalues e^{±iθ}, which one GH factor (DeltaNet) never has.

Hand-worked example (n = 3). The swap (0 2) is a reflection: v = (e_0 − e_2)/√2 = (1, 0, −1)/√2 and

    I − 2 v vᵀ = I − [[1, 0, −1], [0, 0, 0], [−1, 0, 1]] = [[0, 0, 1], [0, 1, 0], [1, 0, 0]],

the matrix that exchanges coordinates 0 and 2. Two reflections across lines at angle φ make a
rotation by 2φ: with v_1 = e_0 and v_2 = (cos φ, sin φ) in the plane, (I − 2v_2v_2ᵀ)(I − 2v_1v_1ᵀ)
= R(2φ), whose eigenvalues e^{±2iφ} are not real for 0 < φ < π/2. One factor with β ∈ [0, 1] or
two (Prop. 1.3) stay real; two with β = 2 do not.

Conventions: a permutation p is the task's tuple (``tasks/groups.py``: p sends j to p[j]); its
matrix M(p) has M(p) e_j = e_{p[j]}, so M(q) M(p) = M(p·q) with the task's "apply p first, then q".
A DeltaNet state S_t = A(x_t) S_{t−1} that starts at I is therefore M(x_1·…·x_t), the task's label.

Used in: ne3 (and tests/test_deltaproduct.py for ``gh_product``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn

from statetrack.theory.threads import single_thread
from statetrack.models import make_model, model_config
from statetrack.tasks import make_task, task_config

SIGMOID_SATURATE = 200.0  # fp32 sigmoid(±200) is exactly 1 / 0 (exp(200) overflows), so β ∈ {0, 2} exactly
KEY_SCALE = 0.2  # |SiLU| of the key entries before L2 normalisation; SiLU reaches −0.2785 at its minimum


# ----------------------------------------------------------------------------- GH products and spectra


def gh_product(keys: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
    """NE Prop. 1's M^n_k: the explicit product A = H_k ⋯ H_1 with H_j = I − β_j v_j v_jᵀ.

    Args:
        keys: (..., k, n) the vectors v_j (unit norm for ``1 − β`` to be the eigenvalue).
        beta: (..., k) the β_j.
    Returns:
        (..., n, n); later factors act after earlier ones (on the left), as in a recurrence.
    """
    n = keys.shape[-1]
    eye = torch.eye(n, dtype=keys.dtype, device=keys.device)  # (n, n)
    A = eye.expand(*keys.shape[:-2], n, n)  # (..., n, n)
    for j in range(keys.shape[-2]):
        v = keys[..., j, :]  # (..., n)
        H = eye - beta[..., j, None, None] * v[..., :, None] * v[..., None, :]  # (..., n, n)
        A = H @ A  # (..., n, n)
    return A


def sample_gh_products(num: int, n: int, k: int, beta_max: float, seed: int = 0,
                       dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """``num`` random products of ``k`` GH matrices in dimension ``n``: v uniform on the sphere, β ~ U[0, beta_max].

    beta_max = 1 samples M^n_k([0, 1]) (DeltaNet), beta_max = 2 samples M^n_k([−1, 1]) (NE's extension).

    Returns:
        (num, n, n) matrices in ``dtype``.
    """
    for name, value, lo in (("num", num, 1), ("n", n, 1), ("k", k, 1)):
        if not isinstance(value, int) or isinstance(value, bool) or value < lo:
            raise ValueError(f"{name}={value!r} is not allowed: it must be an integer >= {lo}")
    if not 0 <= beta_max <= 2:
        raise ValueError(f"beta_max={beta_max!r} is not allowed: it must lie in [0, 2] (eigenvalues 1 − β in [−1, 1])")
    gen = torch.Generator().manual_seed(seed)
    keys = torch.nn.functional.normalize(torch.randn(num, k, n, generator=gen, dtype=dtype), dim=-1)  # (N, k, n)
    beta = beta_max * torch.rand(num, k, generator=gen, dtype=dtype)  # (N, k)
    return gh_product(keys, beta)  # (N, n, n)


@dataclass(frozen=True)
class Spectrum:
    """What Prop. 1 says about a batch of matrices, measured: eigenvalues and the worst cases."""

    eigenvalues: torch.Tensor  # (N, n) complex
    max_norm: float  # max spectral norm ‖A‖₂
    max_imag: float  # max |Im λ|
    min_real: float  # min Re λ
    max_real: float  # max Re λ
    frac_complex: float  # fraction of matrices with some |Im λ| > COMPLEX_TOL


COMPLEX_TOL = 1e-6  # |Im λ| above this is a genuinely non-real eigenvalue (fp64 noise on a defective pair ≈ 1e-8)


def spectrum(A: torch.Tensor) -> Spectrum:
    """Eigenvalues (LAPACK, fp64) and spectral norms of A (N, n, n)."""
    A = A.double()  # (N, n, n)
    ev = torch.linalg.eigvals(A)  # (N, n) complex128
    norms = torch.linalg.matrix_norm(A, ord=2)  # (N,)
    return Spectrum(ev, float(norms.max()), float(ev.imag.abs().max()), float(ev.real.min()), float(ev.real.max()),
                    float((ev.imag.abs() > COMPLEX_TOL).any(dim=-1).double().mean()))


# ----------------------------------------------------------------------------- permutations as reflections


def permutation_matrix(p: Sequence[int], dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """M(p) with M(p) e_j = e_{p[j]} (column j has its 1 in row p[j]): (n, n)."""
    n = len(p)
    if sorted(p) != list(range(n)):
        raise ValueError(f"p={tuple(p)!r} is not a permutation of 0..{n - 1}")
    M = torch.zeros(n, n, dtype=dtype)  # (n, n)
    M[list(p), list(range(n))] = 1
    return M


def swap_reflection(i: int, j: int, n: int, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """The swap (i j) as the reflection I − 2 v vᵀ, v = (e_i − e_j)/√2 (NE Prop. 1.2, Thm 3): (n, n).

    Computed as I − u uᵀ with u = e_i − e_j (the same matrix, since 2 v vᵀ = u uᵀ), so it is exact.
    """
    if not (0 <= i < n and 0 <= j < n) or i == j:
        raise ValueError(f"swap ({i} {j}) is not allowed in dimension n={n}: need two different indices in 0..{n - 1}")
    u = torch.zeros(n, dtype=dtype)  # (n,)
    u[i], u[j] = 1, -1
    return torch.eye(n, dtype=dtype) - u[:, None] * u[None, :]  # (n, n)


def as_reflections(p: Sequence[int]) -> list[tuple[int, int]]:
    """Swaps (i j), to apply in order, whose reflections multiply to M(p): ≤ n − 1 of them (NE Prop. 1.2).

    Each cycle (c_0 c_1 … c_{l−1}) of p (c_{r+1} = p[c_r]) takes l − 1 swaps, so n − #cycles ≤ n − 1 in all.
    Returns the list [(i_1, j_1), ...] with M(p) = R_last ⋯ R_1, R = ``swap_reflection``.
    """
    n = len(p)
    permutation_matrix(p)  # validates p
    swaps, seen = [], set()
    for start in range(n):
        if start in seen:
            continue
        cycle = [start]
        seen.add(start)
        while p[cycle[-1]] not in seen:
            cycle.append(p[cycle[-1]])
            seen.add(cycle[-1])
        # (c_0 … c_{l−1}) = apply (c_{l−2} c_{l−1}) first, then …, then (c_0 c_1): check on c_r ↦ c_{r+1}.
        swaps += [(cycle[r], cycle[r + 1]) for r in reversed(range(len(cycle) - 1))]
    return swaps


# ----------------------------------------------------------------------------- Thm 3: a one-layer DeltaNet tracks swaps


def silu_inverse(y: float) -> float:
    """The x with SiLU(x) = x·sigmoid(x) = y on the branch x > −1.2785 (SiLU's minimum); fp64 bisection."""
    if not -0.2784645 < y:
        raise ValueError(f"y={y!r} is not allowed: SiLU takes values >= -0.27846 only")
    lo, hi = -1.2784645, max(1.0, 2 * y + 2)
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid / (1 + math.exp(-mid)) < y:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


@dataclass
class SwapTracker:
    """A hand-set one-layer DeltaNet [−1, 1] over the S5-swaps word problem, and how to start it."""

    model: nn.Module  # the package's ``deltanet`` (1 layer, d_conv 0, no MLP, D = 40, 8 heads of width 5)
    task: object  # the word_problem task (group S5, elements "swaps") whose labels it is checked against
    num_points: int  # n = 5
    working_heads: int  # heads 0..n−1 hold the state; the rest are spare

    def init_state(self, batch: int) -> list:
        """The model's own ``init_state`` with S_0 = I in every working head (spare heads stay 0)."""
        state = self.model.init_state(batch)
        S = state[0][0].clone()  # (B, H, d, d) zeros
        S[:, : self.working_heads] = torch.eye(self.num_points, dtype=S.dtype)  # (B, n, d, d)
        return [(S,)]


def swap_tracker(num_points: int = 5) -> SwapTracker:
    """NE Thm 3 for S5 restricted to swaps: the package's one-layer DeltaNet [−1, 1] with weights set by hand.

    Layout (D = 8·5 = 40 channels, 8 heads of width d = n = 5):

    - embedding: token id of the r-th drawn element (identity, then the 10 swaps) → one-hot channel
      25 + r; the block's LayerNorm maps every such one-hot vector by the same affine map (same mean
      and variance), and its channel 36 has weight 0 and bias 1, so it reads a constant 1;
    - heads 0..4 ("working"): query e_h (from the constant channel; SiLU then L2 norm give e_h
      exactly), key (e_i − e_j)/√2 for the swap (i j) (pre-activations SiLU⁻¹(±0.2), then L2 norm),
      value 0 (no write), β = 2·sigmoid(+200) = 2 for a swap and 2·sigmoid(−200) = 0 for the
      identity, exactly in fp32; so each working head's state is S_t = M(x_1·…·x_t) from S_0 = I;
    - heads 5..7 ("spare"): query, key, value 0 and β = 0; they output nothing;
    - output: head h reads o = S_tᵀ e_h, row h of M (one-hot); the per-head RMSNorm scales it by
      ≈ √5; o_proj copies channel 5h + j to channel 5h + j (h < 5), so the residual stream holds
      √5·vec(M) in channels 0..24 beside the token's one-hot;
    - head: row c is vec(M(p_c)) on channels 0..24. Every (M, token) pair has the same mean and
      variance, so the final LayerNorm is one affine map and logit_c = a·⟨M(p_c), M⟩ + const:
      the argmax is the label (⟨M(p_c), M⟩ = 5 iff p_c is the label, ≤ 3 otherwise).

    The state must start at I: a trained DeltaNet starts at 0 and has no write-free way to reach I,
    so the rollout (``SwapTracker.init_state``) hands the model its initial state, as Thm 3 assumes.

    Returns:
        A ``SwapTracker`` with the fp32 model in eval mode.
    """

    if num_points != 5:
        raise ValueError(f"num_points={num_points!r} is not allowed: the task's swaps-only group is S5 (n = 5)")
    n = num_points
    task = make_task(task_config("word_problem", group="S5", elements="swaps"))
    H, d = 8, n
    D = H * d
    model = make_model(model_config("deltanet", eig_range="[-1,1]", num_layers=1, d_conv=0, mlp_ratio=0,
                                    d_model=D, num_heads=H), task.vocab_size, task.num_classes)
    drawn = task.elements_drawn.tolist()  # identity first, then the 10 transpositions
    perms = task.permutations
    tok0, const = n * n, n * n + len(drawn)  # first token channel, the constant channel
    block, mixer = model.blocks[0], model.blocks[0].mixer
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
        model.embed.weight[drawn, tok0 + torch.arange(len(drawn))] = 1.0  # (V, D) one-hot token channels
        block.norm1.weight[tok0: tok0 + len(drawn)] = 1.0
        block.norm1.bias[const] = 1.0  # weight 0, bias 1: a constant 1 whatever the token
        u = block.norm1(model.embed.weight[drawn]).double()  # (E, D) what the mixer sees, per drawn token

        # Targets per drawn token: pre-activations of q, k, v (3·D) and of β (H).
        qkv = torch.zeros(len(drawn), 3 * D, dtype=torch.float64)  # (E, 3D)
        beta = torch.full((len(drawn), H), -SIGMOID_SATURATE, dtype=torch.float64)  # (E, H)
        pos, neg = silu_inverse(KEY_SCALE), silu_inverse(-KEY_SCALE)
        for r, e in enumerate(drawn):
            moved = [i for i in range(n) if perms[e][i] != i]
            for h in range(n):
                qkv[r, h * d + h] = 1.0  # query e_h (SiLU(1) > 0, normalised to exactly 1)
                if moved:
                    i, j = moved
                    qkv[r, D + h * d + i], qkv[r, D + h * d + j] = pos, neg  # key ∝ (e_i − e_j)
                    beta[r, h] = SIGMOID_SATURATE
        # Solve W u_r = target_r for the E tokens through the LayerNorm's output (exact in fp64).
        cols = list(range(tok0, tok0 + len(drawn))) + [const]
        U = u[:, cols]  # (E, E+1)
        sol = torch.linalg.lstsq(U, torch.cat([qkv, beta], dim=1)).solution  # (E+1, 3D+H)
        mixer.qkv.weight[:, cols] = sol[:, : 3 * D].T.float()  # (3D, E+1)
        mixer.b_proj.weight[:, cols] = sol[:, 3 * D:].T.float()  # (H, E+1)
        mixer.o_norm.weight.fill_(1.0)
        eye = torch.arange(n * d)
        mixer.o_proj.weight[eye, eye] = 1.0  # head h, coordinate j → residual channel 5h + j
        model.norm.weight.fill_(1.0)
        flat = torch.stack([permutation_matrix(p).flatten() for p in perms])  # (K, n·n) row-major vec(M)
        model.head.weight[:, : n * n] = flat.float()
    model.eval()
    return SwapTracker(model, task, n, n)


@dataclass(frozen=True)
class TrackResult:
    """A hand-built tracker run against the task's labels; a tracker whose state is the group element's matrix also
    says how far its state drifted from that matrix (``track_swaps``)."""

    num_seqs: int
    length: int
    acc: float  # fraction of (sequence, position) answers equal to the label
    seq_acc: float  # fraction of sequences correct at every position
    max_state_error: float | None = None  # max |S_t − M(label_t)| over sequences, positions and entries (fp32)
    error_by_step: torch.Tensor | None = None  # (T,) that max at each step, over sequences and entries


@torch.no_grad()
def track_swaps(num_seqs: int = 1000, length: int = 10_000, seed: int = 0,
                tracker: SwapTracker | None = None) -> TrackResult:
    """Run the hand-set DeltaNet (``swap_tracker``) with the model's ``step`` from S_0 = I on random swap words.

    Args:
        num_seqs, length: B sequences of T tokens, drawn by the task's own sampler (seed ``seed``).
    Returns:
        Accuracy against the task's labels and the largest fp32 deviation of the state from M(label).
    """
    if num_seqs < 1 or length < 1:
        raise ValueError(f"num_seqs={num_seqs!r}, length={length!r}: both must be >= 1")
    tr = tracker or swap_tracker()
    n = tr.num_points
    batch = tr.task.sample(torch.Generator().manual_seed(seed), num_seqs, length)  # (B, T) inputs, labels
    mats = torch.stack([permutation_matrix(p, torch.float32) for p in tr.task.permutations])  # (K, n, n)
    state = tr.init_state(num_seqs)
    correct = torch.zeros(num_seqs, dtype=torch.long)  # (B,) correct answers so far
    all_ok = torch.ones(num_seqs, dtype=torch.bool)  # (B,)
    err = torch.zeros(length)  # (T,) max of |S_t − M(label_t)| at each step
    with single_thread():
        for t in range(length):
            logits, state = tr.model.step(batch.inputs[:, t], state)  # (B, K)
            hit = logits.argmax(-1) == batch.targets[:, t]  # (B,)
            correct += hit
            all_ok &= hit
            S = state[0][0][:, :n]  # (B, n, n, n) the working heads' states
            err[t] = (S - mats[batch.targets[:, t]][:, None]).abs().max()
    return TrackResult(num_seqs, length, float(correct.sum()) / (num_seqs * length), float(all_ok.double().mean()),
                       float(err.max()), err)


# ----------------------------------------------------------------------------- Thm 6: addition mod m by reflections


def reflection_angle(i: torch.Tensor, parity: torch.Tensor, m: int | torch.Tensor) -> torch.Tensor:
    """NE Thm 6's θ(i, t mod 2): (1 − 2i)π/m when t is odd, (1 + 2i)π/m when t is even (t counted from 1).

    Args: i (B, T) the tokens, parity (B, T) t mod 2, m an int or (B, 1). Returns (B, T).
    """
    return torch.where(parity == 1, (1 - 2 * i) * math.pi / m, (1 + 2 * i) * math.pi / m)


@dataclass(frozen=True)
class AdderResult:
    """Thm 6's adder on random sequences of ``modular_addition`` against the task's labels."""

    m: int
    dtype: str
    num_seqs: int
    length: int
    acc: float  # fraction of (sequence, position) answers equal to the label
    max_angle_error: float  # max distance of h_t from its exact point on the unit circle
    error_by_step: torch.Tensor  # (T,) that max at each step, over sequences


@torch.no_grad()
def reflection_adder(tokens: torch.Tensor, m: int | torch.Tensor,
                     dtype: torch.dtype = torch.float64) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """NE Thm 6 (App. D): a 2-layer LRNN whose transitions are reflections adds mod m.

    Layer 1 (one number, A = −1): s_t = −s_{t−1} + 1 from s_0 = 0, i.e. s_t = t mod 2. As a delta
    rule this is k = 1, β = 2, v = 1/2: s_t = s_{t−1} + 2(1/2 − s_{t−1}).
    Layer 2 (a 2-vector): h_t = H(θ(x_t, s_t)) h_{t−1} from h_0 = (1, 0), with the reflection
    H(θ) = [[cos θ, sin θ], [sin θ, −cos θ]] = I − 2 n nᵀ, n = (−sin(θ/2), cos(θ/2)). A reflection
    maps the angle φ to θ − φ, so with S = x_1 + … + x_t the state is at angle 2πS/m for even t
    (the points c_S) and at π/m − 2πS/m for odd t (the points d_S): the 2m states alternate between
    two sets of m points, and the readout argmax_s ⟨c_s or d_s, h_t⟩ (chosen by s_t) is S mod m.

    The loop below is the delta rule with k = n, β = 2, v = 0 written out for a 2-vector state
    (h ← h − 2 n (nᵀ h)); tests/test_theory_householder.py checks it against the package's DeltaNet
    recurrence (``delta_rule_sequential``, two heads reading h) on the same keys.

    Args:
        tokens: (B, T) numbers in 0..m−1.
        m: the modulus, one int or a (B,) tensor (one per sequence, to check several moduli at once).
    Returns:
        predictions (B, T), h (B, T, 2) the layer-2 states, parity (B, T) the layer-1 outputs.
    """
    B, T = tokens.shape
    mod = torch.as_tensor(m).expand(B) if torch.as_tensor(m).dim() == 0 else torch.as_tensor(m)  # (B,)
    if mod.dtype.is_floating_point or (mod < 2).any():
        raise ValueError(f"m={m!r} is not allowed: the modulus must be an integer >= 2")
    if tokens.numel() and ((tokens < 0).any() or (tokens >= mod[:, None]).any()):
        raise ValueError(f"tokens must lie in 0..m−1; got values in {int(tokens.min())}..{int(tokens.max())}")
    s = torch.zeros((), dtype=dtype)  # layer 1's state s_0 = 0
    parity = torch.empty(T, dtype=torch.long)  # (T,)
    for t in range(T):
        s = -s + 1  # A = −1, B = 1: exact in any precision (values 0 and 1)
        parity[t] = int(s)
    parity = parity.expand(B, T)  # (B, T) t mod 2 (t from 1), the same for every sequence
    mf = mod.to(dtype)[:, None]  # (B, 1)
    theta = reflection_angle(tokens.to(dtype), parity, mf)  # (B, T) θ(x_t, s_t)
    normal = torch.stack([-torch.sin(theta / 2), torch.cos(theta / 2)], dim=-1)  # (B, T, 2) unit normal n
    normal = normal.transpose(0, 1).contiguous()  # (T, B, 2) time-major: one contiguous slice per step
    h = torch.empty(T, B, 2, dtype=dtype)  # (T, B, 2)
    state = torch.tensor([1.0, 0.0], dtype=dtype).expand(B, 2)  # (B, 2) h_0 = c_0
    for t in range(T):
        n_t = normal[t]  # (B, 2)
        state = state - 2 * n_t * (n_t * state).sum(-1, keepdim=True)  # (B, 2) H(θ_t) h_{t−1}
        h[t] = state
    h = h.transpose(0, 1)  # (B, T, 2)
    # Readout: the point of the parity's set nearest in angle to h_t, i.e. argmax_s ⟨c_s or d_s, h_t⟩.
    phi = torch.atan2(h[..., 1], h[..., 0])  # (B, T)
    turns = torch.where(parity == 1, math.pi / mf - phi, phi) * mf / (2 * math.pi)  # (B, T) ≈ S (mod m)
    pred = torch.remainder(torch.round(turns), mf).long()  # (B, T)
    return pred, h, parity


def check_adders(moduli: Sequence[int], num_seqs: int = 1000, length: int = 10_000,
                 dtype: torch.dtype = torch.float64, seed: int = 0) -> list[AdderResult]:
    """Thm 6 against ``modular_addition``'s own labels: ``num_seqs`` random sequences per modulus."""

    if num_seqs < 1 or length < 1:
        raise ValueError(f"num_seqs={num_seqs!r}, length={length!r}: both must be >= 1")
    out = []
    for m in moduli:
        batch = make_task(task_config("modular_addition", modulus=m)).sample(
            torch.Generator().manual_seed(seed), num_seqs, length)  # (B, T) inputs and labels
        with single_thread():
            pred, h, parity = reflection_adder(batch.inputs, m, dtype)
        S = batch.targets.double()  # (B, T) the sum so far, mod m
        ang = torch.where(parity == 1, math.pi / m - 2 * math.pi * S / m, 2 * math.pi * S / m)  # (B, T) exact angle
        dist = (h.double() - torch.stack([torch.cos(ang), torch.sin(ang)], -1)).norm(dim=-1)  # (B, T)
        out.append(AdderResult(m, str(dtype).removeprefix("torch."), num_seqs, length,
                               float((pred == batch.targets).double().mean()), float(dist.max()), dist.max(0).values))
    return out


# ----------------------------------------------------------------------------- DeltaProduct: rotations


def rotation_deltaproduct(theta: float = 2 * math.pi / 3, d_model: int = 4) -> tuple[nn.Module, torch.Tensor]:
    """Two reflections per token in the package's DeltaProduct (n_h = 2, [−1, 1]) make the rotation R(θ).

    One head of width ``d_model``: keys v_1 = e_0 and v_2 = (cos θ/2, sin θ/2, 0, …), β = 2 for both
    (b_proj bias +200), for every token (the keys come from a LayerNorm channel with weight 0 and
    bias 1, a constant). The product (I − 2v_2v_2ᵀ)(I − 2v_1v_1ᵀ) rotates the (e_0, e_1) plane by θ
    and fixes the rest: eigenvalues e^{±iθ} and 1 (d_model − 2 times).

    Returns:
        The model (vocabulary of 2 tokens, 1 class) and its transition matrix A(x) (d, d) from
        ``DeltaProductMixer.transition_matrices``.
    """

    if not 0 < theta < 2 * math.pi or d_model < 2:
        raise ValueError(f"theta={theta!r}, d_model={d_model!r}: need 0 < theta < 2π and d_model >= 2")
    model = make_model(model_config("deltaproduct", eig_range="[-1,1]", num_householder=2, num_layers=1, d_conv=0,
                                    mlp_ratio=0, d_model=d_model, num_heads=1), 2, 1)
    block, mixer = model.blocks[0], model.blocks[0].mixer
    D = d_model
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
        block.norm1.bias[0] = 1.0  # channel 0 reads 1 for every token
        # Key pre-activations SiLU⁻¹(0.2·v): every entry of 0.2·v is >= −0.2 > min SiLU, so any direction
        # is reachable; the L2 normalisation then gives v back (up to fp32 rounding).
        v1 = [1.0] + [0.0] * (D - 1)
        v2 = [math.cos(theta / 2), math.sin(theta / 2)] + [0.0] * (D - 2)
        for r, target in enumerate(v1 + v2):
            mixer.qkv.weight[D + r, 0] = silu_inverse(KEY_SCALE * target)  # rows D..3D: key 1, then key 2
        mixer.b_proj.bias.fill_(SIGMOID_SATURATE)
        x = model.embed(torch.zeros(1, 1, dtype=torch.long))  # (1, 1, D)
        A = mixer.transition_matrices(block.norm1(x))[0, 0, 0]  # (d, d)
    return model, A
