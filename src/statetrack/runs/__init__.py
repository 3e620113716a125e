"""The run store and what surrounds one run: records and their keys (``store``), training one run (``execute``),
provenance and code hashes (``provenance``), cost and memory estimates (``cost``, ``memory``), re-stamping a store
(``migrate``). Imports the core, the registries and ``theory`` only; never a claim.
"""
