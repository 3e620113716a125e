"""Carry a run store over to the current code hash, without retraining: ``migrate_code_hashes``.

A record names the code that made it by ``provenance.code_hash``. The hash once covered the raw
bytes of the files a run imports (``provenance.whole_file_hash``); it now covers their code only
(``provenance.code_hash``: no comments, docstrings or blank lines). A record whose stored hash equals
the *whole-file* hash of the code here was made by exactly this code, so its hash can be rewritten to
the current scheme; any other record is left as it is (it is stale under both schemes). Nothing but
``provenance.code_hash`` changes in a migrated record, and the run key (which hashes the config and
the schema version, not the code) never changes.

Run it on a store made before the change: ``python -m statetrack.runs.migrate [FOLDER]`` (default: the
results folder, ``STATETRACK_RESULTS_DIR`` or ``data/results``).

Used in: the committed store (``data/results``), once; any older store a user keeps.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from statetrack.config import ConfigError, RunConfig
from statetrack.runs.provenance import code_hash, whole_file_hash
from statetrack.runs.store import RecordError, results_dir, write_record


def migrate_code_hashes(root: Path | None = None) -> dict[str, int]:
    """Rewrite the code hash of every record under ``root`` made by the code here to the current scheme.

    Returns:
        Counts: ``migrated`` (rewritten), ``current`` (already on the current scheme and fresh),
        ``stale`` (made by other code: left alone).
    """
    import statetrack.models  # noqa: F401  (fills the config registries that RunConfig.from_dict reads)
    import statetrack.tasks  # noqa: F401

    root = Path(root) if root is not None else results_dir()
    counts = {"migrated": 0, "current": 0, "stale": 0}
    for path in sorted(root.rglob("*.json")):
        try:
            rec = json.loads(path.read_text())
            cfg = RunConfig.from_dict(rec["config"])
            stored = rec["provenance"]["code_hash"]
        except (OSError, ValueError, KeyError, TypeError, ConfigError) as e:
            raise RecordError(f"cannot migrate {path}: not a readable run record ({e})") from None
        now = code_hash(cfg)
        if stored == now:
            counts["current"] += 1
        elif stored == whole_file_hash(cfg):
            rec["provenance"]["code_hash"] = now
            write_record(path, rec)
            counts["migrated"] += 1
        else:
            counts["stale"] += 1
    return counts


if __name__ == "__main__":
    try:
        print(migrate_code_hashes(Path(sys.argv[1]) if len(sys.argv) > 1 else None))
    except RecordError as e:
        sys.exit(f"statetrack.runs.migrate: {e}")
