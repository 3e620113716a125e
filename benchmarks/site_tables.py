"""Count the tables of a built site (or of executed notebooks) and those a reader would miss parts of: with an
index column, cut by pandas, printing a raw NaN/None, or open past ``tables.FOLD_ROWS`` rows
(``statetrack.site.audit``).

    python benchmarks/site_tables.py [_build/html]        # one line per page with a table, then the totals
    python benchmarks/site_tables.py _build/executed      # the same over executed notebooks' HTML outputs
"""

import json
import sys
from pathlib import Path

from statetrack.site.audit import audit_pages

FIELDS = ("tables", "indexed", "truncated", "raw_missing", "long_open")


def notebook_html(path: Path) -> str:
    """An executed notebook's ``text/html`` outputs, joined (what the book renders of its tables)."""
    nb = json.loads(path.read_text())
    parts = []
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            html = out.get("data", {}).get("text/html", "")
            parts.append(html if isinstance(html, str) else "".join(html))
    return "\n".join(parts)


def pages(folder: Path):
    """(name, HTML) of every page of a built site, else of every executed notebook in ``folder``."""
    sites = sorted(p for p in folder.rglob("*.html") if "_static" not in p.parts and "_sources" not in p.parts)
    if sites:
        return [(str(p.relative_to(folder)), p.read_text(errors="replace")) for p in sites]
    return [(p.name, notebook_html(p)) for p in sorted(folder.glob("*.ipynb")) if ".partial" not in p.name]


def main(folder: str = "_build/html") -> None:
    audits = audit_pages(pages(Path(folder)))
    print(f"{'page':58s} " + " ".join(f"{f:>11s}" for f in FIELDS))
    for name, a in audits.items():
        if a.tables:
            print(f"{name:58s} " + " ".join(f"{getattr(a, f):11d}" for f in FIELDS))
    print(f"{'all pages':58s} " + " ".join(f"{sum(getattr(a, f) for a in audits.values()):11d}" for f in FIELDS))


if __name__ == "__main__":
    main(*sys.argv[1:])
