"""Small helpers shared by the test modules (imported as ``from helpers import ...``)."""

import torch


def rel_err(x: torch.Tensor, ref: torch.Tensor) -> float:
    """‖x − ref‖ / ‖ref‖ in fp64 on the CPU (a zero reference needs x = 0)."""
    x, ref = x.detach().double().cpu(), ref.detach().double().cpu()
    return ((x - ref).norm() / ref.norm().clamp_min(1e-300)).item()


def rollout(model, tokens: torch.Tensor):
    """Logits (B, T, K) and the last state from T calls of ``model.step``, starting at ``init_state``."""
    state = model.init_state(tokens.shape[0], tokens.device)
    logits = []
    for tok in tokens.unbind(dim=1):  # (B,) each
        y, state = model.step(tok, state)  # (B, K)
        logits.append(y)
    return torch.stack(logits, dim=1), state  # (B, T, K)
