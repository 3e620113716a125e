#!/usr/bin/env bash
# One prepared GPU check (for a session that has the H200 device): GPU tests, the GPU benchmark, and a
# short paper-size ne1 run. Writes JSON under $OUT (the device tool brings it back) and prints a summary.
# Usage on the device:  bash benchmarks/gpu_check.sh   (needs torch with CUDA; fla optional, as a wheel)
set -uo pipefail
OUT=${OUT:-benchmarks/results}
mkdir -p "$OUT"
python -m pip install -q --no-deps -e . 2>/dev/null || true
python - <<'PY'
import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))
PY
timeout 180 python -m pytest -q -m gpu tests/test_gpu.py 2>&1 | tail -5
name=$(python -c "import torch; print(torch.cuda.get_device_name(0).replace(' ', '-'))")
timeout 300 python -m statetrack bench --device cuda --out "$OUT/bench-$name.json" | tail -40
# A short paper-size ne1 run (2 layers, D=128, batch 1024) to time a step on this GPU; not a result.
timeout 120 python -m statetrack train --task parity --model deltanet --preset paper --device cuda \
  --set model.eig_range=[-1,1] --set model.num_layers=2 --set model.d_model=128 --set train.num_steps=200 \
  --set train.warmup_steps=20 --set train.eval_every=0 --set task.supervision=final --set train.min_len=2 \
  --set train.max_len=39 --set eval.min_len=39 --set eval.max_len=255 --out "$OUT/ne1-paper-probe-$name.json" | tail -5
