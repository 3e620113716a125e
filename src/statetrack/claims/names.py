"""One display name per model, as the claims' cells and tables write it: the names the model configs declare
(``models.display_names``), and bilinear's block model at b = 2.

Used in: the claim modules (``cell_of`` and statements), ``statetrack.site`` pages and figures.
"""

from statetrack.models import display_names, display_of, model_config

MODEL_NAMES = {**display_names(), "block2": display_of(model_config("bilinear", variant="block", block_size=2))}
