"""Count a built site's tables and those a reader would miss parts of: with an index column, cut by pandas,
printing a raw NaN/None, or open past ``tables.FOLD_ROWS`` rows (``statetrack.tables.audit``).

    python benchmarks/site_tables.py [_build/html]      # one line per page with a table, then the totals
"""

import sys
from pathlib import Path

from statetrack.tables import audit_pages

FIELDS = ("tables", "indexed", "truncated", "raw_missing", "long_open")


def main(site: str = "_build/html") -> None:
    pages = sorted(Path(site).rglob("*.html"))
    audits = audit_pages((str(p.relative_to(site)), p.read_text(errors="replace")) for p in pages
                         if "_static" not in p.parts and "_sources" not in p.parts)
    print(f"{'page':58s} " + " ".join(f"{f:>11s}" for f in FIELDS))
    for name, a in audits.items():
        if a.tables:
            print(f"{name:58s} " + " ".join(f"{getattr(a, f):11d}" for f in FIELDS))
    print(f"{'all pages':58s} " + " ".join(f"{sum(getattr(a, f) for a in audits.values()):11d}" for f in FIELDS))


if __name__ == "__main__":
    main(*sys.argv[1:])
