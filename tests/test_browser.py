"""The built book in a real browser (headless Chromium through Playwright), as a reader sees it.

The book is built at the smoke preset, served on 127.0.0.1, and opened page by page. Asserted: the
scoreboard lists every claim; every claim page shows a loaded figure image and its verdict; the embedded
widgets render their static state; math is typeset by the book's own MathJax; no console errors; no
request leaves the machine. Screenshots of the intro and the first claim page go to ``_build/screenshots``.

Chromium comes from the system package manager (``.ci/run`` installs it; elsewhere ``make browser``);
without it the test is skipped with a loud reason.
"""

import functools
import http.server
import shutil
import threading
import warnings
from urllib.parse import urlparse

import pytest

from statetrack.claims import CLAIMS, implemented
from statetrack.runs.store import repo_root

pytestmark = pytest.mark.book

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run", "--disable-sync", "--disable-quic"]


@pytest.fixture(scope="module")
def site(request):
    if CHROMIUM is None:
        msg = "NO BROWSER TEST: chromium is not installed (apt-get install chromium, or `make browser`)"
        warnings.warn(msg)
        pytest.skip(msg)
    pytest.importorskip("playwright", reason="NO BROWSER TEST: the playwright package is not installed")
    html = request.getfixturevalue("built_site")
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(html))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def browser(site):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def _open(browser, url):
    """Load a page; return it with the console errors and the hosts of every request it made."""
    page = browser.new_page(viewport={"width": 1280, "height": 1800})
    errors, hosts = [], set()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("response", lambda r: errors.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)  # names it
    page.on("request", lambda r: hosts.add(urlparse(r.url).hostname or "local file"))
    page.goto(url, wait_until="networkidle")
    return page, errors, hosts


def test_intro_scoreboard(browser, site):
    page, errors, hosts = _open(browser, f"{site}/book/intro.html")
    table = page.locator("table", has_text="verdict").first.inner_text()
    for cid in CLAIMS:
        assert cid in table, f"the scoreboard does not list {cid}"
    shots = repo_root() / "_build" / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / "intro.png"), full_page=True)
    assert errors == [] and hosts <= {"127.0.0.1"}, (errors, hosts)


@pytest.mark.parametrize("claim", implemented())
def test_claim_page(browser, site, claim):
    page, errors, hosts = _open(browser, f"{site}/notebooks/{CLAIMS[claim].notebook}.html")
    images = page.locator("img[src*='_images/']")
    assert images.count() >= 1
    widths = images.evaluate_all("imgs => imgs.map(i => i.complete ? i.naturalWidth : 0)")
    assert all(w > 0 for w in widths), f"a figure did not load: {widths}"
    assert f"{claim} verdict (smoke)" in page.inner_text("main")
    if page.locator("script[type='application/vnd.jupyter.widget-state+json']").count():
        page.wait_for_selector(".jupyter-widgets", state="attached", timeout=15_000)  # the embedder drew the static state
    if page.locator(".math").count():
        page.wait_for_selector("mjx-container", state="attached", timeout=15_000)  # typeset by the book's own MathJax
    if claim == implemented()[0]:
        page.screenshot(path=str(repo_root() / "_build" / "screenshots" / f"{claim}.png"), full_page=True)
    past = page.evaluate("""() => { const a = document.querySelector('article.bd-article').getBoundingClientRect();
        return [...document.querySelectorAll('article.bd-article table')]
            .filter(t => t.getBoundingClientRect().right > a.right + 1).length; }""")
    assert past == 0, f"{past} table(s) run past the article"  # a wide one scrolls inside its box
    assert errors == [], errors
    assert hosts <= {"127.0.0.1"}, f"requests left the machine: {sorted(hosts)}"
