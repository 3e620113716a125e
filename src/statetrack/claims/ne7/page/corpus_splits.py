"""A byte-level corpus's split by document: files and bytes per split, each document in exactly one split.

Used in: notebooks/ne7_language_modelling.md (the corpora table), tests/test_page_readings_ne7_x2.py.
"""

from __future__ import annotations

from typing import Any

from statetrack.tasks import byte_lm
from statetrack.claims.ne7 import claim as ne7

def split_row(corpus: str) -> dict[str, Any]:
    """Files and bytes per split of ``corpus`` (``tasks.byte_lm.load_corpus``) and its fingerprint; raises
    ``ValueError`` if a document's name falls in two splits."""

    c = byte_lm.load_corpus(corpus)
    names = {s: {n for n, _ in c.documents[s]} for s in byte_lm.SPLITS}
    shared = names["train"] & names["val"] | names["train"] & names["test"] | names["val"] & names["test"]
    if shared:
        raise ValueError(f"corpus {corpus!r}: documents in two splits: {sorted(shared)[:5]}")
    f = c.figures()
    return {"corpus": ne7.corpus_name(corpus), **{f"{s} files": f["files"][s] for s in byte_lm.SPLITS},
            **{f"{s} bytes": f["bytes"][s] for s in byte_lm.SPLITS}, "fingerprint": f["fingerprint"]}


__all__ = ["split_row"]
