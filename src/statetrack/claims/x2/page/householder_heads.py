"""A DeltaNet head's transition I − β k kᵀ read per token: its non-unit eigenvalue 1 − β and the overlap of the keys.

Reflections along orthogonal keys commute (they generate Z_2 × Z_2): |k₀·k₁| near 0 with both tokens' 1 − β near −1
is the structure a parity solution can use; near 1, the two tokens act on the same axis.

Used in: notebooks/x2_eigenvalue_explorer.md (the head table), tests/test_page_readings_ne7_x2.py.
"""

from __future__ import annotations

from typing import Any

import torch

from statetrack.spectra import Transitions
from statetrack.config import RunConfig
from statetrack.runs.execute import checkpoint_path, load_model
from statetrack import spectra

def head_readings(tr: Transitions, tokens: tuple[int, int] = (0, 1)) -> list[dict[str, Any]]:
    """Per head: the non-unit eigenvalue 1 − β of A(x) for each of two tokens (its largest over the windows ending
    in that token) and |k_a·k_b|, the overlap of the two tokens' keys (each read in the first window ending in it).

    The transitions are symmetric (I − β k kᵀ), so ``eigh`` reads them; its ascending order puts 1 − β first when
    β > 0, and the first eigenvector is the key (up to sign)."""
    a, b = tokens
    lam, vec = torch.linalg.eigh(tr.matrices.double())  # (W, H, n), (W, H, n, n)
    first = {t: int((tr.last_token == t).nonzero()[0, 0]) for t in tokens}
    return [{f'λ for "{a}"': float(lam[tr.last_token == a, h, 0].max()),
             f'λ for "{b}"': float(lam[tr.last_token == b, h, 0].max()),
             f"|k{a}·k{b}|": float((vec[first[a], h, :, 0] @ vec[first[b], h, :, 0]).abs())}
            for h in range(tr.matrices.shape[1])]


def head_rows(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``head_readings`` of every trained DeltaNet run among ``records`` (weights from its checkpoint), one row per
    head with the run's seed and normalized test accuracy."""
    out = []
    for r in records:
        if r["status"] != "ok" or r["config"]["model"]["name"] != "deltanet":
            continue
        model = load_model(r, checkpoint_path(RunConfig.from_dict(r["config"])))
        tr = spectra.transitions(model, spectra.all_windows(model, range(2)))
        out += [{"seed": r["config"]["seed"], "head": h, "test (normalized)": r["summary"]["ood_normalized"], **row}
                for h, row in enumerate(head_readings(tr))]
    return out


__all__ = ["head_readings", "head_rows"]
