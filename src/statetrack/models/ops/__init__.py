"""Pure recurrences in pairs: a sequential reference (the oracle) and a fast path with the same contract.

| module       | rule                                                          | pairs (reference / fast)                                      |
|--------------|---------------------------------------------------------------|---------------------------------------------------------------|
| diagonal.py  | h_t = a_t ⊙ h_{t−1} + b_t (Mamba)                             | diagonal_recurrence_sequential / diagonal_recurrence          |
| selective.py | y_t = ⟨h_t, C_t⟩, h_t = exp(Δ_t A) ⊙ h_{t−1} + Δ_t u_t B_t (Mamba) | selective_scan_sequential / selective_scan (fused, chunked) |
| delta.py     | S_t = (I − β_t k_t k_tᵀ) S_{t−1} + β_t k_t v_tᵀ (DeltaNet)     | delta_rule_sequential / delta_rule_chunked                    |
|              | n_h such steps per token (DeltaProduct)                       | delta_product_sequential / delta_product_chunked              |
| gated_delta.py | S_t = α_t (I − β_t k_t k_tᵀ) S_{t−1} + β_t k_t v_tᵀ (Gated DeltaNet) | gated_delta_rule_sequential / gated_delta_rule_chunked |
| complex_diagonal.py | S_t = diag(r_t e^{iθ_t}) S_{t−1} + k_t v_tᵀ (Mamba-3's rotations) | complex_diagonal_sequential / complex_diagonal_chunked |
| pd.py        | h_t = P_t D_t h_{t−1} + b_t, P column one-hot (PD-SSM)        | pd_sequential / pd_scan                                       |
| bilinear.py  | h_t = A(x_t) h_{t−1} (+ u(x_t)), optionally normalized (BL)   | bilinear_{dense,block,cp,diagonal,rotation}: _sequential / fast |
| rnn.py       | Elman and LSTM cells                                          | elman_sequential / elman_native, lstm_sequential / lstm_native |
| xlstm.py     | mLSTM and sLSTM cells (stabilized exponential gates)          | mlstm_recurrent / mlstm_chunkwise, slstm_sequential / slstm_fused |
| attention.py | softmax(QKᵀ/√d + causal mask) V                              | causal_attention_reference / causal_attention                 |

Every pair is also registered in ``registry.PAIRS`` with an input maker, so the tests and the
benchmark iterate over one list. No function here holds parameters; all of them run on CPU or CUDA
and in fp32 or fp64 (never bf16 or TF32 in a state recurrence).

Used in: models/layers.py and the models built on it; benchmarks/.
"""

from statetrack.models.ops.attention import *  # noqa: F401,F403
from statetrack.models.ops.bilinear import *  # noqa: F401,F403
from statetrack.models.ops.complex_diagonal import *  # noqa: F401,F403
from statetrack.models.ops.delta import *  # noqa: F401,F403
from statetrack.models.ops.diagonal import *  # noqa: F401,F403
from statetrack.models.ops.gated_delta import *  # noqa: F401,F403
from statetrack.models.ops.pd import *  # noqa: F401,F403
from statetrack.models.ops.rnn import *  # noqa: F401,F403
from statetrack.models.ops.selective import *  # noqa: F401,F403
from statetrack.models.ops.xlstm import *  # noqa: F401,F403
from statetrack.models.ops.registry import PAIRS, OpPair, register_pair  # noqa: F401
