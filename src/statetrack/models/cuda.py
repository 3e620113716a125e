"""GPU helpers that are opt-in: capturing sequential mixers as CUDA graphs.

Nothing calls these by default; correctness never depends on them (the graphed forward falls back to
the eager one for any shape or mode it was not captured for).

Used in: tests/test_gpu.py; GPU training runs that opt in.
"""

from __future__ import annotations

import torch
from torch import nn


def cuda_graph_mixers(model: nn.Module, batch: int, length: int) -> nn.Module:
    """Capture every block's mixer (forward and backward) as CUDA graphs for inputs of shape (batch, length, D).

    Sequential loops on a GPU are bound by kernel-launch latency; replaying a
    captured graph removes most of it without ``torch.compile``-ing an unrolled loop. Uses
    ``torch.cuda.make_graphed_callables``; the graphed forward runs only in training mode, with grad
    enabled, for exactly the captured shape; any other call (eval, another length) runs the eager
    forward, so correctness never depends on it. Requirements: model on CUDA, fp32, no autocast, one
    forward then one backward per graphed call (static buffers are reused), parameters updated in
    place (any torch optimizer). Training with random lengths needs length buckets to profit.

    Returns the same model, modified in place. Off by default: nothing calls it.

    Used in: benchmarks and GPU training runs that opt in.
    """
    if not torch.cuda.is_available():
        raise RuntimeError("cuda_graph_mixers needs a CUDA device")
    param = next(model.parameters())
    if param.device.type != "cuda":
        raise RuntimeError(f"move the model to CUDA first (its parameters are on {param.device})")
    was_training = model.training
    model.train()
    for block in model.blocks:
        mixer = block.mixer
        eager = mixer.forward
        d_model = block.norm1.normalized_shape[0]
        sample = torch.randn(batch, length, d_model, device=param.device, dtype=param.dtype,
                             requires_grad=True)  # (B, T, D)
        torch.cuda.make_graphed_callables(mixer, (sample,))
        graphed = mixer.forward

        def forward(x, _graphed=graphed, _eager=eager, _shape=sample.shape, _mixer=mixer):
            use_graph = _mixer.training and torch.is_grad_enabled() and x.requires_grad and x.shape == _shape
            return _graphed(x) if use_graph else _eager(x)

        mixer.forward = forward
    model.train(was_training)
    return model
