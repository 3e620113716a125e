"""The one guard every exact construction runs under: one torch thread for the block, then the count restored.

Why: the constructions are long loops of small products (B·H² per step, thousands of tiny ops per rollout). On a
shared 2-core box a second thread only adds hand-offs: measured 0.16 ms per step on one thread against 4.4 ms on two
(B = 100, H = 25, while other jobs ran).

Used in: ``fsm_simulation``, ``modular_arithmetic``, ``householder``, ``layered_counting``, ``cascade`` and the
claims' exact parts (bl1, bl2, bl4, bl5); ``verdicts.check_cache`` computes every claim's checks under it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch


@contextlib.contextmanager
def single_thread() -> Iterator[None]:
    """Run the block on one torch thread, then restore the count."""
    saved = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(saved)


__all__ = ["single_thread"]
