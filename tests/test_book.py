"""The book builds offline with warnings as errors, and the claim page stands without a kernel."""

import re

import pytest

from statetrack.book import build_book
from statetrack.claims import CLAIMS, implemented

pytestmark = pytest.mark.book


def test_book_builds_and_pages_are_complete(smoke_runs, tmp_path):
    folder, _ = smoke_runs.all()
    html_dir, _ = build_book(executed=folder, output=tmp_path)
    assert (html_dir / "index.html").exists()
    intro = (html_dir / "book" / "intro.html").read_text()
    from statetrack.claims import CLAIMS

    for cid, c in CLAIMS.items():  # the scoreboard lists every claim, computed at build time
        assert re.search(rf">{cid}<", intro), f"scoreboard misses {cid}"
    assert "not built yet" in intro or all(c.notebook for c in CLAIMS.values())
    for claim in implemented():
        assert "smoke" in intro and f'href="../notebooks/{CLAIMS[claim].notebook}.html' in intro
    for claim in implemented():
        page = (html_dir / "notebooks" / f"{CLAIMS[claim].notebook}.html").read_text()
        assert len(re.findall(r'<img [^>]*src="\.\./_images/', page)) >= 2, "figures are embedded as images"
        assert 'class="dataframe' in page or "<table" in page, "the verdict table is on the page"
        assert f"{claim} verdict (smoke)" in page
        assert "application/vnd.jupyter.widget-state+json" in page
        assert "_static/mathjax/tex-mml-chtml.js" in page and "_static/widgets/embed-amd.js" in page
        cdn = [u for u in re.findall(r'https?://[^"\'\s)]+', page) if "jsdelivr" in u or "cdnjs" in u]
        assert cdn == [], f"scripts must be served by the book, found {cdn}"
