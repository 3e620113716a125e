"""Placeholder: filled in by the model-zoo issue."""
