"""NE Thm 2 on the input 1^k: a real diagonal state is eventually 1- or 2-periodic, a rotation by 2π/3 counts mod 3.

NE Theorem 2: a finite-precision linear RNN counts modulo m (m not a power of 2)
only if some transition has an eigenvalue with a nonzero imaginary part. Feed the input 1^k
(only ones, so A and b are the same at every step) to one real diagonal layer::

    h_k = a ⊙ h_{k−1} + b,   a ∈ [−1, 1]^N,   stored in fp32 or bf16 after every operation

Each coordinate is a scalar map applied again and again to a finite set of numbers, so the stored
sequence is eventually periodic; for a real coefficient it settles on a fixed point (a ≥ 0) or on a
2-cycle (a < 0). Counting mod 3 needs a state with period 3. Worked example in bfloat16 (8
significant bits), one coordinate, from h_0 = 0::

    a = −0.5, b = 1 :  h_1.. = 1, 0.5, 0.75, 0.625, 0.6875, 0.65625, 0.671875, 0.6640625, 0.66796875,
                       0.6640625, 0.66796875, ...
                       cycle from k = 8, period 2: the bf16 neighbours 170/256 and 171/256 of the fixed
                       point 2/3 swap forever (−0.5 · 171/256 + 1 = 341/512 is a tie, rounded to even)

Whatever a readout does with a state of period p, it sees k mod 3 through the residues of k mod p:
the best any readout can do on a long run is gcd(p, 3)/3, i.e. 1/3 (chance) for p ∈ {1, 2}
(``best_readout_accuracy``). A 2×2 rotation by θ = 2π/3 has the eigenvalues e^{±2πi/3} and, read
out as argmax_i ⟨R(iθ) h_0, h_k⟩, counts mod 3 exactly; its stored orbit is itself eventually
periodic, with period 3::

    h_0 = (1, 0),  h_1 = (−0.5, 0.866),  h_2 = (−0.5, −0.866),  h_3 = (1, 0), ...   readout 0, 1, 2, 0, ...

Through the package's own model: the bilinear variant "rotation" with token v turning every block
by 2πv/m and head rows at the angles 2πc/m tracks Z_m against ``modular_addition``'s labels
(``hand_set_rotation``); the variant "diagonal" is the real diagonal above with b = 0.

Used in: ne2 (and tests/test_bilinear.py's rotation construction).
"""

from __future__ import annotations

import math

import torch

from statetrack.config import ConfigError


def _check_positive(name: str, value: int, least: int = 1) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise ConfigError(f"{name}={value!r} is not allowed: it must be an integer >= {least}")


# ----------------------------------------------------------------------------- real diagonal on 1^k


def diagonal_orbit(a: torch.Tensor, b: torch.Tensor, h0: torch.Tensor, steps: int,
                   dtype: torch.dtype) -> torch.Tensor:
    """h_k = a ⊙ h_{k−1} + b for k = 1..steps on the input 1^k, rounded to ``dtype`` after every operation.

    Args:
        a, b, h0: (N,) coefficient, input term and initial state of N independent coordinates
            (draws); cast to ``dtype`` first.
        steps: K >= 1.
        dtype: the storage precision (torch.float32, torch.bfloat16, ...).
    Returns:
        (K + 1, N) tensor in ``dtype``; row k holds h_k (row 0 is h_0).
    """
    _check_positive("steps", steps)
    coef, add, h = a.to(dtype), b.to(dtype), h0.to(dtype)  # (N,) each
    out = torch.empty(steps + 1, len(h), dtype=dtype)  # (K+1, N)
    out[0] = h
    for k in range(1, steps + 1):
        h = coef * h + add  # (N,): the product and the sum are each rounded to dtype
        out[k] = h
    return out


def eventual_period(states: torch.Tensor, max_period: int = 6, tail: int | None = 1
                    ) -> tuple[torch.Tensor, torch.Tensor]:
    """The eventual period of each column of a sequence, and the step where its cycle starts.

    Per column, p is the smallest lag in 1..max_period with h_t = h_{t−p} at each of the last ``tail`` rows t
    (``tail=None``: at every row t ≥ p, the whole sequence periodic), and the entry is the first j with
    h_j = h_{j+p}. For an orbit h_{k+1} = f(h_k) of a fixed map f one repeat h_j = h_{j+p} makes it p-periodic
    from j on, so the last row alone decides (``tail=1``); a readout of an orbit (a model's predictions) needs a
    longer tail, and a sequence shorter than ``tail + p`` has no period p.

    Args:
        states: (K+1,) a sequence, (K+1, N) or (K+1, N, D) orbits (row k = h_k; D-dimensional states are
            compared whole).
        max_period: the longest period looked for.
        tail: how many of the last rows must repeat at lag p (None: all of them).
    Returns:
        entry (N,) and period (N,) LongTensors ((1,) each for a single sequence); both −1 where no period
        <= max_period shows.
    """
    _check_positive("max_period", max_period)
    if tail is not None:
        _check_positive("tail", tail)
    if states.dim() == 1:
        states = states.unsqueeze(-1)  # (K+1, 1)
    if states.dim() == 2:
        states = states.unsqueeze(-1)  # (K+1, N, 1)
    K, N = states.shape[0] - 1, states.shape[1]
    entry = torch.full((N,), -1, dtype=torch.long)
    period = torch.full((N,), -1, dtype=torch.long)
    for p in range(1, min(max_period, K) + 1):
        same = (states[p:] == states[:-p]).all(-1)  # (K+1−p, N): h_{j+p} == h_j
        if tail is None:
            repeats = same.all(0)  # (N,)
        elif tail <= len(same):
            repeats = same[-tail:].all(0)  # (N,)
        else:
            continue  # too short to show period p over ``tail`` rows
        new = (period < 0) & repeats  # (N,) columns whose smallest period is p
        if new.any():
            # Once the orbit repeats it stays periodic, so ``same`` is False…False True…True per column.
            first = torch.where(same, torch.arange(K + 1 - p)[:, None], K + 1).min(0).values  # (N,)
            entry[new], period[new] = first[new], p
    return entry, period


def diagonal_periods(num_draws: int, dtype: torch.dtype, seed: int = 0, max_steps: int = 10**6,
                     chunk: int = 4096) -> dict[str, torch.Tensor]:
    """Draw (a, b, h_0) ~ U[−1, 1]³ ``num_draws`` times and find each orbit's eventual period in ``dtype``.

    Each draw runs until its orbit has repeated (or ``max_steps`` ones have been read); the orbits are
    rolled forward in chunks, keeping ``max_period`` = 6 rows of overlap so a cycle across a chunk
    boundary is seen.

    Returns:
        ``a``, ``b``, ``h0`` (N,) fp64 draws; ``entry`` and ``period`` (N,) as in ``eventual_period``
        (−1: no repeat within ``max_steps``); ``steps`` (N,) how many ones each draw read.
    """
    _check_positive("num_draws", num_draws)
    _check_positive("max_steps", max_steps)
    gen = torch.Generator().manual_seed(seed)
    a, b, h0 = (2 * torch.rand(3, num_draws, generator=gen, dtype=torch.float64) - 1).unbind(0)  # (N,) each
    entry = torch.full((num_draws,), -1, dtype=torch.long)
    period = torch.full((num_draws,), -1, dtype=torch.long)
    steps = torch.zeros(num_draws, dtype=torch.long)
    tail = h0.to(dtype).unsqueeze(0)  # (r, N): the last rows so far, r <= 7
    offset, todo = 0, torch.arange(num_draws)  # row index of tail[0]; draws still without a period
    while len(todo) and offset + len(tail) - 1 < max_steps:
        n = min(chunk, max_steps - (offset + len(tail) - 1))
        orbit = diagonal_orbit(a[todo], b[todo], tail[-1, todo].double(), n, dtype)  # (n+1, M)
        rows = torch.cat([tail[:-1, todo], orbit])  # (r+n, M): overlap, then the new rows
        e, p = eventual_period(rows)
        found = p > 0
        entry[todo[found]], period[todo[found]] = e[found] + offset, p[found]
        steps[todo] = offset + len(rows) - 1
        keep = rows[-7:]  # (≤7, M)
        offset += len(rows) - len(keep)
        tail = torch.zeros(len(keep), num_draws, dtype=dtype)
        tail[:, todo] = keep
        todo = todo[~found]
    return {"a": a, "b": b, "h0": h0, "entry": entry, "period": period, "steps": steps}


def best_readout_accuracy(period: int, m: int) -> float:
    """The best accuracy any readout of a p-periodic state reaches on k mod m over a long run: gcd(p, m)/m.

    Over one joint period lcm(p, m) each state of the cycle is met at the k ≡ i (mod p), whose
    residues mod m take m/gcd(p, m) values equally often; a readout can name only one of them.
    """
    _check_positive("period", period)
    _check_positive("m", m, 2)
    return math.gcd(period, m) / m


# ----------------------------------------------------------------------------- the 2x2 rotation counter


def rotation(theta: float, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """R(θ) = [[cos θ, −sin θ], [sin θ, cos θ]], computed in fp64 and rounded to ``dtype``: (2, 2)."""
    c, s = math.cos(theta), math.sin(theta)
    return torch.tensor([[c, -s], [s, c]], dtype=torch.float64).to(dtype)  # (2, 2)


def rotation_orbit(m: int, steps: int, dtype: torch.dtype) -> torch.Tensor:
    """h_k = R(2π/m) h_{k−1} from h_0 = (1, 0) on the input 1^k, R and every h_k stored in ``dtype``.

    Returns:
        (K + 1, 2) tensor in ``dtype``; row k holds h_k.
    """
    _check_positive("m", m, 2)
    _check_positive("steps", steps)
    R = rotation(2 * math.pi / m, dtype)  # (2, 2)
    h = torch.tensor([1.0, 0.0], dtype=dtype)  # (2,)
    out = torch.empty(steps + 1, 2, dtype=dtype)  # (K+1, 2)
    out[0] = h
    for k in range(1, steps + 1):
        h = R @ h  # (2,) rounded to dtype
        out[k] = h
    return out


def rotation_readout(states: torch.Tensor, m: int) -> torch.Tensor:
    """The count mod m read from each state: argmax_i ⟨R(2πi/m) h_0, h_k⟩, the references in the states' dtype.

    Args:
        states: (K, 2) stored states, e.g. from ``rotation_orbit``.
    Returns:
        (K,) LongTensor of residues in 0..m−1.
    """
    _check_positive("m", m, 2)
    refs = torch.stack([rotation(2 * math.pi * i / m, states.dtype)[:, 0] for i in range(m)])  # (m, 2) R(iθ) e_1
    return (states.float() @ refs.float().T).argmax(-1)  # (K,)


# ----------------------------------------------------------------------------- through the package's model


def hand_set_rotation(model: torch.nn.Module, m: int) -> torch.nn.Module:
    """Set a bilinear "rotation" model's weights so that it counts Z_m exactly (in place; returns it).

    Token v < m turns every 2×2 block by 2πv/m (any token >= m, the padding, by 0); h_0 = (1, 0, 1, 0, …)/‖·‖;
    the head's row c reads each block at the angle 2πc/m, so the logit of the true class is the largest.
    The model's input must be one-hot (``input="onehot"``).

    Args:
        model: a ``BilinearRNN`` with ``variant="rotation"`` and a head of m classes.
        m: the modulus.
    """
    cfg = model.cfg
    if getattr(cfg, "variant", None) != "rotation" or cfg.input != "onehot":
        raise ConfigError(f"hand_set_rotation needs a one-hot bilinear 'rotation' model, got {cfg!r}")
    _check_positive("m", m, 2)
    V, blocks = model.vocab_size, cfg.d_model // 2
    if model.head.out_features != m:
        raise ConfigError(f"the model's head has {model.head.out_features} classes, not m={m!r}")
    turn = torch.tensor([2 * math.pi * v / m if v < m else 0.0 for v in range(V)])  # (V,)
    ref = 2 * math.pi * torch.arange(m) / m  # (m,)
    with torch.no_grad():
        model.transition.copy_(turn.repeat_interleave(blocks))  # (V·H/2,) angle of token v in every block
        model.h0.copy_(torch.tensor([1.0, 0.0]).repeat(blocks))  # (H,)
        model.head.weight.copy_(torch.stack([torch.cos(ref), torch.sin(ref)], 1).repeat(1, blocks))  # (m, H)
    return model
