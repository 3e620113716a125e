"""What ne1's page computes beside its verdict: the scalar recurrence h_k = a·h_{k−1} + 1 in finite precision, the
paper's numbers its prose quotes (the training recipe's wording: ``analysis.grids.recipe_values``).

- ``scalar_curves``: the stored state on the input 1^k for several a and dtypes, one row per (a, dtype, k).
- ``freeze_table``: from which k each a's state is frozen, per dtype (None: still changing).
- ``freeze_values``: the k from which a = 0.5 is frozen in bfloat16 and float32, as the prose reads them.
- ``paper_values``: NE Table 3's best-of-3 parity numbers, ``paper_<model>_<neg|pos>``.

Used in: notebooks/ne1_parity_needs_negative_eigenvalues.md, tests/test_page_ne1.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import torch

from statetrack.claims import ne1
from statetrack.theory.finite_precision import freeze_step, scalar_recurrence

COEFS = (0.0, 0.5, 0.9, 0.99, 1.0, -1.0)  # the values of a the page shows
DTYPES = (torch.bfloat16, torch.float32)
STEPS = 20_000  # the longest input 1^k the freeze table reads
SHOWN = 60  # the first k the figure draws


def _name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def scalar_curves(coefs: Sequence[float] = COEFS, dtypes: Sequence[torch.dtype] = DTYPES, steps: int = SHOWN,
                  ) -> pd.DataFrame:
    """The stored state h_k (h_0 = 0) on the input 1^k, k = 1..``steps``: columns a, dtype, k, h."""
    rows = []
    for dtype in dtypes:
        states = scalar_recurrence(list(coefs), steps, dtype)  # (K, A)
        rows += [{"a": a, "dtype": _name(dtype), "k": k + 1, "h": float(h)}
                 for j, a in enumerate(coefs) for k, h in enumerate(states[:, j])]
    return pd.DataFrame(rows)


def freeze_table(coefs: Sequence[float] = COEFS, dtypes: Sequence[torch.dtype] = DTYPES, steps: int = STEPS,
                 ) -> pd.DataFrame:
    """From which k the state on 1^k stops changing, rows a, columns dtype; "still changing at <steps>" where it
    does not within ``steps``."""
    rows = []
    for dtype in dtypes:
        states = scalar_recurrence(list(coefs), steps, dtype)  # (K, A)
        rows += [{"a": a, "dtype": _name(dtype), "frozen from k": k} for a, k in zip(coefs, freeze_step(states))]
    frozen = pd.DataFrame(rows).pivot(index="a", columns="dtype", values="frozen from k")
    return frozen.map(lambda k: f"still changing at {steps:,}" if pd.isna(k) else int(k))


def freeze_values(frozen: pd.DataFrame) -> dict[str, int]:
    """``bf16_freeze_half`` and ``fp32_freeze_half``: the k from which a = 0.5 is frozen (``freeze_table``)."""
    return {"bf16_freeze_half": int(frozen.loc[0.5, "bfloat16"]), "fp32_freeze_half": int(frozen.loc[0.5, "float32"])}


def paper_values() -> dict[str, float]:
    """NE Table 3's best of 3 seeds for each model and range, ``paper_<model>_<neg|pos>``."""
    return {f"paper_{model}_{'neg' if eig == '[-1,1]' else 'pos'}": row["paper_best"]
            for (model, eig), row in ne1.paper_rows().items()}
