"""One display name per model, as the claims' cells and tables write it.

Used in: the claim modules (``cell_of`` and statements), ``statetrack.site`` pages and figures.
"""

MODEL_NAMES = {"mamba": "Mamba", "deltanet": "DeltaNet", "transformer": "Transformer", "mlstm": "mLSTM",
               "slstm": "sLSTM", "lstm": "LSTM", "elman": "Elman", "full": "full bilinear", "cp": "CP bilinear",
               "block": "block-diagonal bilinear", "block2": "block-diagonal b=2", "diagonal": "real diagonal (b=1)",
               "rotation": "R2 (rotation blocks)", "deltaproduct": "DeltaProduct", "gated_deltanet": "Gated DeltaNet",
               "pd_ssm": "PD-SSM", "complex_diagonal": "complex diagonal"}  # one display name per model
