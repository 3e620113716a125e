"""Placeholder: filled in by the model-zoo issue."""

__all__: list[str] = []
