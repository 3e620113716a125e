"""NE Thm 2 for two layers: counting mod 3 on 1^k needs a product of 2 layer-2 transitions with a non-real eigenvalue.

NE Theorem 2 (Sec. 4): an L-layer finite-precision LRNN counts modulo m (m not a power of 2) only
if, in some layer i, a product of 2^(i−1) transition matrices has an eigenvalue with a nonzero
imaginary part. ``rotations`` shows the one-layer case; this module shows both sides for L = 2,
m = 3, on the input 1^k (k ones).

Impossibility (``real_two_layer_periods``). A two-layer model, every number stored in ``dtype``
(fp32 or bf16) after every operation::

    layer 1 (diagonal):   h¹_t = a ⊙ h¹_{t−1} + b,             a ∈ [−1, 1]^{d1} (half exactly −1)
    nonlinearity:         u_t = Σ_j 2^j [h¹_{t,j} > τ_j]        a threshold pattern in 0..2^{d1} − 1
    layer 2:              h²_t = A_{u_t} h²_{t−1} + B_{u_t},    A_u from a per-draw table of 2^{d1} matrices

so layer 2's transition depends on layer 1's state. The table families all make every product
A_u A_{u'} have a real spectrum: "diagonal" (real diagonals with entries in [−1, 1]), "deltanet"
(DeltaNet [0, 1] heads: A = I − β k kᵀ, β ∈ [0, 1], a key per entry, B = β w k; two such factors
have real eigenvalues in [0, 1], NE Prop. 1.3) and "fixed_key" (β ∈ [0, 2] but one key per draw,
so the A_u commute and are symmetric). The negative control "rotation" (A_u = R(2π/3), B = 0) has
a non-real product and is not in the theorem's class.

Why the joint period is a power of two. On 1^k the pair (h¹, h²) evolves by one fixed map of a
finite set, so it is eventually periodic; the question is the period. Layer 1 is one real scalar
map per coordinate, h ↦ fl(fl(a h) + b); rounding is monotone, so the map is non-decreasing
(a >= 0) or non-increasing (a < 0); a non-decreasing map's orbit is monotone and so settles on a
fixed point, and a non-increasing map's square is non-decreasing: layer 1 ends with period 1 or
2, and so does the input pattern u_t. Over pairs of steps layer 2 then applies one fixed affine
map whose linear part is a product P = A_{u_odd} A_{u_even} of two transitions, with a real
spectrum by assumption. For the diagonal family each coordinate's pair map is a composition of
two monotone maps, monotone again, so over pairs it has period 1 or 2 (as in the one-layer
proof), and the joint period divides 2 · 2 = 4, which 3 does not divide: a readout of a state with
period p reaches at most gcd(p, 3)/3 = 1/3 on k mod 3 (``rotations.best_readout_accuracy``).

For the GH families the same holds for the exact orbit (P has real eigenvalues with |λ| <= 1, so
the pair orbit converges to a fixed point or a ±1 oscillation), but the rounded 2×2 map is not
monotone coordinate by coordinate, and near its fixed point it can lock into a cycle of
neighbouring floats of any length. Measured (1024 draws, 10^5 steps): a few draws per thousand
end in period 6, whose states 2 steps apart (p/3) differ by 1 ulp of the state's largest
coordinate (``PeriodResult.exceptions``, ``exception_ulps``, ``subperiod_ulps``). Such a cycle lets a
readout that resolves single ulps name k mod 3, a rounding artefact rather than a mechanism of the
real spectrum; NE's proof reasons about the exact orbit, and Thm 2's statement is for that reading
of finite precision. ``best_acc_without_exceptions`` is the bound over the other draws. The
diagonal family, covered by the monotone argument, has no exceptions.

Period detection is exact: at every step the stored state (h¹_t, h²_t) is compared bit for bit
(as integers) with the states 1..``max_period`` steps back; the smallest lag p with
state_K = state_{K−p} at the last step K is the period (the map is deterministic, so one repeat
makes the orbit periodic from then on) and the cycle's entry is the step after the last mismatch
at that lag. A draw without such a lag by step K is reported as not settled.

Possibility (``reflection_counter``). NE Thm 6's model (``householder.reflection_adder``): layer
1 is one number with A = −1 (s_t = t mod 2), layer 2 applies the reflection H(θ(1, s_t)). Each
transition is real (eigenvalues ±1), but the product of two consecutive ones is the rotation by
θ(1, even) − θ(1, odd) = 4π/m, for m = 3 eigenvalues e^{±4πi/3} = e^{∓2πi/3}: non-real, exactly as
the theorem requires of layer 2 (i = 2, 2^(i−1) = 2 factors). Its readout is k mod 3 at every k.

Worked example, m = 3: θ(1, odd) = −π/3 and θ(1, even) = π, H(θ) = [[cos θ, sin θ], [sin θ, −cos θ]];
h_0 = (1, 0) → h_1 = (cos(−π/3), sin(−π/3)) = d_1 (angle π/3 − 2π/3) → h_2 at angle π − (−π/3)
= 4π/3 = c_2 → h_3 at −π/3 − 4π/3 = −5π/3 ≡ π/3 = d_0: the readouts are 1, 2, 0, … = k mod 3.

Used in: ne2 (NE Thm 2 for two layers) and ne3 (the Thm 6 counter on 1^k).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from statetrack.theory.householder import reflection_adder, reflection_angle
from statetrack.theory.rotations import best_readout_accuracy, diagonal_orbit, eventual_period
from statetrack.theory.threads import single_thread

FAMILIES = ("diagonal", "deltanet", "fixed_key", "rotation")
REAL_FAMILIES = FAMILIES[:3]  # every product of two layer-2 transitions has a real spectrum
MAX_PERIOD = 12  # longest period looked for (the real families show 1, 2, 4; the rotation control 3 or 6)
MAX_STEPS = 10**5  # default rollout length on 1^k
_BITS = {torch.float32: torch.int32, torch.bfloat16: torch.int16, torch.float16: torch.int16,
         torch.float64: torch.int64}


def _check_int(name: str, value: int, least: int = 1) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise ValueError(f"{name}={value!r} is not allowed: it must be an integer >= {least}")


def _bits(x: torch.Tensor) -> torch.Tensor:
    """The stored numbers as integers of the same width, for exact (bitwise) comparison."""
    return x.contiguous().view(_BITS[x.dtype])


# ----------------------------------------------------------------------------- the model


@dataclass(frozen=True)
class TwoLayerLRNN:
    """N independent random two-layer finite-precision LRNNs on 1^k (all tensors but ``tau`` in ``dtype``)."""

    family: str
    dtype: torch.dtype
    a1: torch.Tensor  # (N, d1) layer-1 diagonal coefficients
    b1: torch.Tensor  # (N, d1) layer-1 input term (the input is always 1)
    h1_0: torch.Tensor  # (N, d1) layer-1 initial state
    tau: torch.Tensor  # (N, d1) fp64 thresholds of the nonlinearity u = Σ_j 2^j [h¹_j > τ_j]
    A2: torch.Tensor  # (N, 2^d1, d2, d2) layer-2 transition per pattern u
    B2: torch.Tensor  # (N, 2^d1, d2) layer-2 input term per pattern u
    h2_0: torch.Tensor  # (N, d2) layer-2 initial state

    @property
    def num_draws(self) -> int:
        return self.a1.shape[0]


def sample_two_layer(num_draws: int, family: str = "diagonal", dtype: torch.dtype = torch.float32,
                     seed: int = 0, d1: int = 2, d2: int = 2) -> TwoLayerLRNN:
    """Draw ``num_draws`` two-layer models (module docstring) with layer-2 tables of the given family.

    Layer 1: each a_j is exactly −1 with probability 1/2 (so layer 2 sees a genuinely alternating
    input), else U[−1, 1]; b, h¹_0, τ ~ U[−1, 1]. Layer 2, per pattern u (2^{d1} of them):

    - "diagonal": A_u = diag(a), a ~ U[−1, 1]^{d2}; B_u ~ U[−1, 1]^{d2};
    - "deltanet": A_u = I − β k kᵀ, k uniform on the sphere, β ~ U[0, 1]; B_u = β w k, w ~ U[−1, 1];
    - "fixed_key": as "deltanet" but one k per draw and β ~ U[0, 2];
    - "rotation" (negative control, d2 = 2): A_u = R(2π/3), B_u = 0, h²_0 = (1, 0).

    Otherwise h²_0 ~ U[−1, 1]^{d2}. Everything is drawn in fp64 and then rounded to ``dtype``.

    Returns:
        A ``TwoLayerLRNN``.
    """
    _check_int("num_draws", num_draws)
    _check_int("d1", d1)
    _check_int("d2", d2)
    if family not in FAMILIES:
        raise ValueError(f"family={family!r} is not allowed: choose one of {FAMILIES}")
    if dtype not in _BITS:
        raise ValueError(f"dtype={dtype!r} is not allowed: choose one of {tuple(_BITS)}")
    if family == "rotation" and d2 != 2:
        raise ValueError(f"family='rotation' needs d2=2, got d2={d2!r}")
    gen = torch.Generator().manual_seed(seed)
    f64 = torch.float64
    N, P = num_draws, 2 ** d1

    def unif(*shape, lo=-1.0, hi=1.0):
        return lo + (hi - lo) * torch.rand(*shape, generator=gen, dtype=f64)

    a1 = torch.where(torch.rand(N, d1, generator=gen) < 0.5, -1.0, unif(N, d1))  # (N, d1)
    b1, h1_0, tau = unif(N, d1), unif(N, d1), unif(N, d1)  # (N, d1) each
    h2_0 = unif(N, d2)  # (N, d2)
    if family == "diagonal":
        A2 = torch.diag_embed(unif(N, P, d2))  # (N, P, d2, d2)
        B2 = unif(N, P, d2)  # (N, P, d2)
    elif family in ("deltanet", "fixed_key"):
        shape = (N, P, d2) if family == "deltanet" else (N, 1, d2)
        k = torch.nn.functional.normalize(torch.randn(*shape, generator=gen, dtype=f64), dim=-1).expand(N, P, d2)
        beta = unif(N, P, lo=0.0, hi=1.0 if family == "deltanet" else 2.0)  # (N, P)
        outer = k[..., :, None] * k[..., None, :]  # (N, P, d2, d2), symmetric entry for entry
        A2 = torch.eye(d2, dtype=f64) - beta[..., None, None] * outer  # (N, P, d2, d2)
        B2 = (beta * unif(N, P))[..., None] * k  # (N, P, d2) the delta rule's write β w k
    else:
        c, s = math.cos(2 * math.pi / 3), math.sin(2 * math.pi / 3)
        A2 = torch.tensor([[c, -s], [s, c]], dtype=f64).expand(N, P, 2, 2)  # (N, P, 2, 2)
        B2 = torch.zeros(N, P, 2, dtype=f64)  # (N, P, 2)
        h2_0 = torch.tensor([1.0, 0.0], dtype=f64).expand(N, 2)  # (N, 2)
    cast = [t.to(dtype).contiguous() for t in (a1, b1, h1_0)]
    return TwoLayerLRNN(family, dtype, *cast, tau, A2.to(dtype).contiguous(), B2.to(dtype).contiguous(),
                        h2_0.to(dtype).contiguous())


def _layer2_rows(h: torch.Tensor, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    """h_t = A_t h_{t−1} + B_t for t = 1..n in the stored precision, each product and sum rounded in a fixed order.

    (h_t)_i = fl(fl(… fl(fl(A_i0 h_0) + fl(A_i1 h_1)) …) + B_i): elementwise ops only, so every draw
    gets the same arithmetic whatever the batch layout.

    Args:
        h: (N, d2) the state before the first step.
        A: (n, N, d2, d2) and B: (n, N, d2) the transitions and input terms of the n steps.
    Returns:
        (n, N, d2) the states after each step.
    """
    n, d2 = A.shape[0], h.shape[-1]
    coef = [[A[..., i, j].contiguous() for j in range(d2)] for i in range(d2)]  # d2 × d2 of (n, N)
    add = [B[..., i].contiguous() for i in range(d2)]  # d2 of (n, N)
    out = torch.empty(n, *h.shape, dtype=h.dtype)  # (n, N, d2)
    cols = list(h.unbind(-1))  # d2 of (N,)
    for t in range(n):
        new = []
        for i in range(d2):
            acc = coef[i][0][t] * cols[0]  # (N,)
            for j in range(1, d2):
                acc = acc + coef[i][j][t] * cols[j]  # (N,)
            new.append(acc + add[i][t])  # (N,)
        cols = new
        out[t] = torch.stack(cols, -1)  # (N, d2)
    return out


def _advance(model: TwoLayerLRNN, h1: torch.Tensor, h2: torch.Tensor,
             n: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """n more steps on 1^k from (h1, h2): layer 1 by ``rotations.diagonal_orbit``, then layer 2.

    Returns:
        h1 rows (n, N, d1), u (n, N) the layer-2 input patterns, h2 rows (n, N, d2).
    """
    N, d1 = h1.shape
    rows1 = diagonal_orbit(model.a1.flatten(), model.b1.flatten(), h1.flatten(), n, model.dtype)[1:]  # (n, N·d1)
    rows1 = rows1.view(n, N, d1)  # (n, N, d1)
    weights = 2 ** torch.arange(d1)  # (d1,)
    u = ((rows1.double() > model.tau) * weights).sum(-1)  # (n, N) pattern per step
    draw = torch.arange(N)[None, :]  # (1, N)
    rows2 = _layer2_rows(h2, model.A2[draw, u], model.B2[draw, u])  # (n, N, d2)
    return rows1, u, rows2


def two_layer_orbit(model: TwoLayerLRNN, steps: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The full stored orbit on 1^k (small sizes: it keeps every step).

    Returns:
        h1 (K+1, N, d1) and h2 (K+1, N, d2) in the model's dtype; row t holds the state after t ones.
    """
    _check_int("steps", steps)
    with single_thread():
        rows1, _, rows2 = _advance(model, model.h1_0, model.h2_0, steps)
    return torch.cat([model.h1_0[None], rows1]), torch.cat([model.h2_0[None], rows2])  # (K+1, N, d1), (K+1, N, d2)


class _LagDetector:
    """Per draw and lag p <= P, the last step t with state_t ≠ state_{t−p} (bitwise), fed chunk by chunk.

    Steps t < p have no state p back and count as mismatches, so a lag that matches from t = p on
    has last mismatch p − 1 and entry 0.
    """

    def __init__(self, num: int, max_period: int):
        self.P = max_period
        self.last_break = torch.arange(max_period).expand(num, max_period).clone()  # (N, P) p − 1
        self.history = None  # (≤P, N, D) the last states seen
        self.t = -1  # step of the last state seen

    def update(self, rows: torch.Tensor) -> None:
        """rows (n, N, D): the integer views of the states at steps t+1..t+n."""
        seq = rows if self.history is None else torch.cat([self.history, rows])  # (h+n, N, D)
        t_first = self.t + 1 - (len(seq) - len(rows))  # step of seq[0]
        times = t_first + torch.arange(len(seq))  # (h+n,)
        for p in range(1, self.P + 1):
            lo = max(p, len(seq) - len(rows))  # compare only the new rows, and only where t − p is in seq
            if lo >= len(seq):
                continue
            differ = (seq[lo:] != seq[lo - p: len(seq) - p]).any(-1)  # (L, N)
            last = torch.where(differ, times[lo:, None], -1).amax(0)  # (N,)
            self.last_break[:, p - 1] = torch.maximum(self.last_break[:, p - 1], last)
        self.history = seq[-self.P:]
        self.t += len(rows)

    def result(self) -> tuple[torch.Tensor, torch.Tensor]:
        """entry (N,) and period (N,); −1 for both where no lag <= P repeats at the last step."""
        ok = self.last_break < self.t  # (N, P): state_K == state_{K−p}
        found = ok.any(-1)  # (N,)
        period = torch.where(found, ok.long().argmax(-1) + 1, -1)  # (N,) smallest such lag
        lb = self.last_break.gather(1, (period.clamp_min(1) - 1)[:, None])[:, 0]  # (N,)
        entry = torch.where(found, lb - period + 1, -1)  # (N,)
        return entry, period


def two_layer_periods(model: TwoLayerLRNN, steps: int = MAX_STEPS, max_period: int = MAX_PERIOD,
                      chunk: int = 2048) -> dict[str, torch.Tensor]:
    """Roll ``model`` out on 1^``steps`` in chunks and find each draw's exact eventual period.

    Args:
        model: the draws.
        steps: K, the number of ones read (the states h_0..h_K are compared).
        max_period: the longest lag looked for.
        chunk: steps computed at once (memory ~ chunk · N · (d2² + d1 + d2)).
    Returns:
        ``entry``, ``period`` (N,) of the joint state (h¹, h²) (−1: no repeat with lag <= max_period
        at step K); ``layer1_entry``, ``layer1_period`` (N,) the same for h¹ alone; ``alternating``
        (N,) bool, whether the layer-2 input pattern differs between the last two steps; ``tail``
        (min(P, K+1), N, d2) the last layer-2 states, h²_K last (the whole cycle of a settled draw).
    """
    _check_int("steps", steps)
    _check_int("max_period", max_period)
    _check_int("chunk", chunk)
    N = model.num_draws
    joint, first = _LagDetector(N, max_period), _LagDetector(N, max_period)
    h1, h2 = model.h1_0, model.h2_0
    joint.update(torch.cat([_bits(h1), _bits(h2)], -1)[None])  # step 0
    first.update(_bits(h1)[None])
    done, last_u = 0, None
    with single_thread():
        while done < steps:
            n = min(chunk, steps - done)
            rows1, u, rows2 = _advance(model, h1, h2, n)  # (n, N, d1), (n, N), (n, N, d2)
            b1 = _bits(rows1)  # (n, N, d1)
            joint.update(torch.cat([b1, _bits(rows2)], -1))  # (n, N, d1 + d2)
            first.update(b1)
            h1, h2 = rows1[-1], rows2[-1]
            last_u = u[-2:] if last_u is None else torch.cat([last_u, u])[-2:]  # (≤2, N)
            done += n
    entry, period = joint.result()
    e1, p1 = first.result()
    alternating = (last_u[-1] != last_u[-2]) if len(last_u) > 1 else torch.zeros(N, dtype=torch.bool)
    tail = joint.history[..., model.a1.shape[1]:].contiguous().view(model.dtype)  # (≤P, N, d2) last layer-2 states
    return {"entry": entry, "period": period, "layer1_entry": e1, "layer1_period": p1, "alternating": alternating,
            "tail": tail}


def subperiod_ulps(tail: torch.Tensor, period: int, m: int = 3) -> float:
    """How far a cycle whose period m divides is from the period p/m: max |h_t − h_{t+p/m}| in ulps.

    Args:
        tail: (>= p, d2) the last stored states of one draw (a cycle of period p at the end).
        period: p, a multiple of m.
        m: the modulus.
    Returns:
        The largest coordinate difference, in units of the dtype's spacing at the state's largest
        coordinate (1 ulp = 2^(e−1)·eps for |x| in [2^(e−1), 2^e)); 0 if the two shifts agree.
    """
    cyc = tail[-period:].double()  # (p, d2)
    other = cyc.roll(-(period // m), 0)  # (p, d2) h_{t+p/m}
    mag = torch.maximum(cyc.abs().amax(-1, keepdim=True), other.abs().amax(-1, keepdim=True)).expand_as(cyc)  # (p, d2)
    ulp = torch.ldexp(torch.full_like(mag, torch.finfo(tail.dtype).eps), torch.frexp(mag).exponent - 1)  # (p, d2)
    ulp = ulp.clamp_min(torch.finfo(tail.dtype).tiny)
    return float(((cyc - other).abs() / ulp).max())


def product_spectra_imag(model: TwoLayerLRNN) -> float:
    """max |Im λ| over all ordered products A_u A_{u'} of two stored layer-2 transitions (fp64 eigenvalues)."""
    A = model.A2.double()  # (N, P, d2, d2)
    prod = A[:, :, None] @ A[:, None, :]  # (N, P, P, d2, d2)
    return float(torch.linalg.eigvals(prod).imag.abs().max())


# ----------------------------------------------------------------------------- impossibility: the summary


@dataclass(frozen=True)
class PeriodResult:
    """NE Thm 2 (L = 2) measured on random two-layer models whose layer-2 two-step products are real."""

    family: str
    dtype: str
    m: int
    num_draws: int
    steps: int  # K, ones read per draw
    period_limit: int  # longest period looked for
    periods: dict[int, int]  # joint period of (h¹, h²) → number of draws (settled draws only)
    layer1_periods: dict[int, int]  # period of h¹ alone → number of draws
    draws_settled: int  # draws with a joint period <= period_limit by step K
    max_period: int  # largest joint period found (−1 if none)
    max_entry: int  # latest step at which a settled draw's cycle starts
    alternating_inputs: int  # draws whose layer-2 input pattern alternates at the end (a genuine pair product)
    powers_of_two: bool  # every joint period found is a power of two
    exceptions: int  # settled draws whose period m divides (GH families only: rounding cycles, see below)
    exception_ulps: float  # max over them of subperiod_ulps: how many ulps separate the cycle from period p/m
    best_acc: float  # max over settled draws of best_readout_accuracy(period, m), exceptions included
    best_acc_without_exceptions: float  # the same over the other settled draws
    max_product_imag: float  # max |Im λ| of A_u A_{u'} over all pairs of each draw's table (0: real)


def real_two_layer_periods(num_draws: int = 512, steps: int = 4096, dtype: torch.dtype = torch.float32,
                           seed: int = 0, family: str = "diagonal", m: int = 3,
                           max_period: int = MAX_PERIOD) -> PeriodResult:
    """Draw two-layer models (``sample_two_layer``), roll them out on 1^``steps``, tabulate the exact periods.

    For the families in ``REAL_FAMILIES`` NE Thm 2 predicts periods dividing 4, so ``best_acc`` = 1/3
    for m = 3; ``family="rotation"`` is the non-real control (periods 3 or 6, ``best_acc`` = 1).

    Args:
        num_draws: N models, rolled out together.
        steps: K ones (the module's ``MAX_STEPS`` = 10^5 for the full check; the default is cheap).
        dtype: storage precision (torch.float32 or torch.bfloat16; float16/float64 work too).
        seed, family: as in ``sample_two_layer``.
        m: the modulus of the count.
        max_period: the longest period looked for.
    Returns:
        A ``PeriodResult``.
    """
    model = sample_two_layer(num_draws, family, dtype, seed)
    out = two_layer_periods(model, steps, max_period)
    period, entry = out["period"], out["entry"]
    settled = period > 0
    found = sorted(set(period[settled].tolist()))
    periods = {p: int((period == p).sum()) for p in found}
    p1 = out["layer1_period"]
    layer1 = {p: int((p1 == p).sum()) for p in sorted(set(p1[p1 > 0].tolist()))}
    bad = torch.nonzero(settled & (period % m == 0)).flatten().tolist()  # draws whose period m divides
    ulps = max((subperiod_ulps(out["tail"][:, d], int(period[d]), m) for d in bad), default=0.0)
    return PeriodResult(
        family, str(dtype).removeprefix("torch."), m, num_draws, steps, max_period, periods, layer1,
        int(settled.sum()), max(found) if found else -1, int(entry[settled].max()) if found else -1,
        int(out["alternating"].sum()), all(p & (p - 1) == 0 for p in found), len(bad), ulps,
        max((best_readout_accuracy(p, m) for p in found), default=0.0),
        max((best_readout_accuracy(p, m) for p in found if p % m), default=0.0), product_spectra_imag(model))


# ----------------------------------------------------------------------------- possibility: Thm 6's counter


def _reflection(theta: torch.Tensor) -> torch.Tensor:
    """I − 2 n nᵀ, n = (−sin θ/2, cos θ/2) in θ's dtype, as in ``reflection_adder``; fp64 (…, 2, 2)."""
    normal = torch.stack([-torch.sin(theta / 2), torch.cos(theta / 2)], -1).double()  # (..., 2)
    return torch.eye(2, dtype=torch.float64) - 2 * normal[..., :, None] * normal[..., None, :]  # (..., 2, 2)


@dataclass(frozen=True)
class CounterResult:
    """NE Thm 6's two-layer reflection model counting mod m on 1^k."""

    m: int
    dtype: str
    steps: int
    acc: float  # fraction of k = 1..steps where the readout equals k mod m
    max_error: float  # max distance of h_k from its exact point on the unit circle
    step_eigenvalues: tuple[complex, ...]  # of the two single transitions (odd t, even t): ±1 each, real
    product_eigenvalues: tuple[complex, ...]  # of H(θ_even) H(θ_odd), the two-step product
    expected_eigenvalues: tuple[complex, complex]  # e^{±4πi/m} (for m = 3: e^{∓2πi/3})
    eigenvalue_error: float  # max |λ − expected| after matching by the sign of Im λ
    state_period: int  # exact eventual period of the stored (s, h) within the run (−1: none <= max_period)
    best_acc: float  # best_readout_accuracy(state_period, m), or 1.0 read off acc if no period shows


def reflection_counter(m: int = 3, steps: int = 10_000, dtype: torch.dtype = torch.float32,
                       max_period: int = 60) -> CounterResult:
    """Run ``householder.reflection_adder`` on 1^``steps`` and check it against k mod m.

    Args:
        m: the modulus (>= 2).
        steps: K ones.
        dtype: torch.float32 or torch.float64 (any float dtype the adder accepts).
        max_period: the longest period of the stored joint state looked for.
    Returns:
        A ``CounterResult``.
    """
    _check_int("m", m, 2)
    _check_int("steps", steps)
    tokens = torch.ones(1, steps, dtype=torch.long)  # (1, K) the input 1^k
    pred, h, parity = reflection_adder(tokens, m, dtype)  # (1, K), (1, K, 2), (1, K)
    k = torch.arange(1, steps + 1)  # (K,)
    truth = k % m  # (K,)
    acc = float((pred[0] == truth).double().mean())
    S = truth.double()
    ang = torch.where(parity[0] == 1, math.pi / m - 2 * math.pi * S / m, 2 * math.pi * S / m)  # (K,) exact angles
    max_error = float((h[0].double() - torch.stack([torch.cos(ang), torch.sin(ang)], -1)).norm(dim=-1).max())
    one = torch.ones((), dtype=dtype)
    theta = reflection_angle(torch.stack([one, one]), torch.tensor([1, 0]), torch.tensor(m, dtype=dtype))  # (2,)
    H_odd, H_even = _reflection(theta.to(dtype))  # (2, 2) each; t = 1 is odd and acts first
    step_ev = torch.linalg.eigvals(torch.stack([H_odd, H_even])).flatten()  # (4,)
    prod_ev = torch.linalg.eigvals(H_even @ H_odd)  # (2,)
    prod_ev = prod_ev[prod_ev.imag.argsort()]  # (2,) negative imaginary part first
    w = 4 * math.pi / m
    expected = (complex(math.cos(w), -abs(math.sin(w))), complex(math.cos(w), abs(math.sin(w))))
    ev_err = max(abs(complex(z) - e) for z, e in zip(prod_ev.tolist(), expected))
    states = torch.cat([parity[0, :, None].to(dtype), h[0]], -1)[:, None, :]  # (K, 1, 3)
    states = torch.cat([torch.tensor([[[0.0, 1.0, 0.0]]], dtype=dtype), states])  # (K+1, 1, 3) with (s_0, h_0)
    _, period = eventual_period(_bits(states), max_period)
    p = int(period[0])
    best = best_readout_accuracy(p, m) if p > 0 else 1.0 if acc == 1.0 else acc
    return CounterResult(m, str(dtype).removeprefix("torch."), steps, acc, max_error,
                         tuple(complex(z) for z in step_ev.tolist()), tuple(complex(z) for z in prod_ev.tolist()),
                         expected, ev_err, p, best)


__all__ = ["CounterResult", "FAMILIES", "PeriodResult", "REAL_FAMILIES", "TwoLayerLRNN", "product_spectra_imag",
           "real_two_layer_periods", "reflection_counter", "sample_two_layer", "subperiod_ulps", "two_layer_orbit",
           "two_layer_periods"]
