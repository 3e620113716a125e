"""An example statetrack plug-in: the gated rotation RNN (``statetrack_example.model``)."""

__version__ = "0.1.0"
