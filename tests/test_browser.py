"""The built book in a real browser (headless Chromium through Playwright), as a reader sees it.

The book is built at the smoke preset, served on 127.0.0.1, and opened page by page at 1280×900. Asserted: the
scoreboard lists every claim and ends on the first screen; every claim page shows a
loaded figure image and its verdict, is at most ten screens tall as loaded, and has no table, code block or explorer
wider than the column or scrolling sideways; moving one control of every explorer changes what it draws; no page loads the
ipywidgets runtime, and only pages with an explorer load Vega; math is typeset by the book's own MathJax; no console
errors; no request leaves the machine; every page is at most 2 MB on a first visit, counting every request on load
gzipped as a web server sends it (the weights go to ``_build/page_weights.json``). Screenshots of the intro, ne1,
bl3, ne4 and x1 go to ``_build/screenshots``.

Chromium comes from the system package manager (``.ci/run`` installs it; elsewhere ``make browser``);
without it the test is skipped with a loud reason.
"""

import functools
import gzip
import http.server
import json
import shutil
import threading
import warnings
from urllib.parse import urlparse

import pytest

from statetrack.verdicts.registry import CLAIMS
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


MB = 1_000_000
MOST_BYTES = 2 * MB  # a page's first visit, every request gzipped
WEIGHTS: dict[str, dict] = {}
SHOTS = ("ne1", "bl3", "ne4", "x1")
SCREEN = {"width": 1280, "height": 900}  # the reader's screen every geometry assertion is made at


def _gzipped(response) -> int:
    """The bytes a web server that gzips sends for ``response`` (already-compressed formats barely shrink)."""
    try:
        body = response.body()
    except Exception:  # noqa: BLE001 — a redirect or an aborted request has no body
        return 0
    return len(gzip.compress(body, 6))


def _open(browser, url):
    """Load a page; return it with the console errors and the hosts of every request it made. Its weight on a first
    visit (bytes, gzipped) and the scripts it loaded go to ``WEIGHTS``."""
    page = browser.new_page(viewport=SCREEN)
    errors, hosts, responses = [], set(), []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("response", lambda r: errors.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)  # names it
    page.on("response", lambda r: responses.append(r))
    page.on("request", lambda r: hosts.add(urlparse(r.url).hostname or "local file"))
    page.goto(url, wait_until="networkidle")
    WEIGHTS[urlparse(url).path] = {"bytes": sum(map(_gzipped, responses)), "requests": len(responses),
                                   "height": page.evaluate("document.documentElement.scrollHeight"),
                                   "scripts": sorted(urlparse(r.url).path.rsplit("/", 1)[-1] for r in responses
                                                     if r.request.resource_type == "script")}
    out = repo_root() / "_build" / "page_weights.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(WEIGHTS, indent=1, sort_keys=True))
    return page, errors, hosts


def _check_weight(url_path: str) -> None:
    w = WEIGHTS[url_path]
    assert w["bytes"] <= MOST_BYTES, f"{url_path} loads {w['bytes'] / MB:.2f} MB gzipped (at most 2 MB)"
    assert not any("embed-amd" in s or "require.js" == s or "jupyter-widgets" in s for s in w["scripts"]), w["scripts"]


def _moves_every_explorer(page) -> int:
    """Move one control of every explorer on ``page``; assert each redraws differently. Returns how many."""
    boxes = page.locator(".statetrack-explorer")
    for i in range(boxes.count()):
        box = boxes.nth(i)
        box.locator("svg").first.wait_for(state="attached", timeout=20_000)
        before = box.locator("svg").first.inner_html()
        control = box.locator(".vega-bindings select, .vega-bindings input").first
        kind = control.get_attribute("type") or "select"
        if kind == "radio":
            radios = box.locator(".vega-bindings input[type=radio]")
            other = next(j for j in range(radios.count()) if not radios.nth(j).is_checked())
            radios.nth(other).check()
        elif kind == "range":
            low = control.get_attribute("min")
            control.fill(low if control.input_value() != low else control.get_attribute("max"))
        elif kind == "checkbox":
            control.click()
        else:  # a drop-down: the option after the one shown
            options = control.locator("option")
            current = control.input_value()
            values = [options.nth(j).get_attribute("value") for j in range(options.count())]
            control.select_option(value=values[(values.index(current) + 1) % len(values)])
        page.wait_for_function("([box, before]) => box.querySelector('svg').innerHTML !== before",
                               arg=[box.element_handle(), before], timeout=10_000)
    return boxes.count()


def test_intro_scoreboard(browser, site):
    page, errors, hosts = _open(browser, f"{site}/book/intro.html")
    board = page.locator("table.scoreboard")
    table = board.inner_text()
    box = board.bounding_box()  # relative to the top of the page, which has not scrolled
    assert box["y"] + box["height"] <= SCREEN["height"], f"the scoreboard ends at {box['y'] + box['height']:.0f} px, " \
        f"below the first screen ({SCREEN['height']} px)"
    for cid in CLAIMS:
        assert cid in table, f"the scoreboard does not list {cid}"
    shots = repo_root() / "_build" / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / "intro.png"), full_page=True)
    assert errors == [] and hosts <= {"127.0.0.1"}, (errors, hosts)
    _check_weight("/book/intro.html")
    assert not any(s.startswith("vega") for s in WEIGHTS["/book/intro.html"]["scripts"]), "a page without explorers loads Vega"


@pytest.mark.parametrize("claim", list(CLAIMS))
def test_claim_page(browser, site, claim):
    page, errors, hosts = _open(browser, f"{site}/notebooks/{CLAIMS[claim].notebook}.html")
    images = page.locator("img[src*='_images/']")
    assert images.count() >= 1
    widths = images.evaluate_all("imgs => imgs.map(i => i.complete ? i.naturalWidth : 0)")
    assert all(w > 0 for w in widths), f"a figure did not load: {widths}"
    assert "Verdict at preset smoke" in page.inner_text("main")
    assert page.locator(".jupyter-widgets, script[type='application/vnd.jupyter.widget-state+json']").count() == 0
    if page.locator(".math").count():
        page.wait_for_selector("mjx-container", state="attached", timeout=15_000)  # typeset by the book's own MathJax
    height = page.evaluate("() => document.documentElement.scrollHeight")  # as loaded, every fold closed
    assert height <= 10 * SCREEN["height"], f"the page is {height} px tall: over ten screens of {SCREEN['height']} px"
    moved = _moves_every_explorer(page)
    path = urlparse(page.url).path
    assert (moved > 0) == any(s.startswith("vega") for s in WEIGHTS[path]["scripts"]), "Vega loads where no explorer is"
    WEIGHTS[path]["explorers"] = moved
    if claim in SHOTS:
        page.screenshot(path=str(repo_root() / "_build" / "screenshots" / f"{claim}.png"), full_page=True)
    _check_weight(path)
    past = page.evaluate("""() => { const a = document.querySelector('article.bd-article');
        const right = a.getBoundingClientRect().right - parseFloat(getComputedStyle(a).paddingRight);
        return [...a.querySelectorAll('table, .statetrack-explorer, .vega-embed, div.highlight pre, .cell_output pre')]
            .filter(e => !e.closest('details:not([open])') && e.getBoundingClientRect().width > 0)  // open ones
            .filter(e => e.getBoundingClientRect().right > right + 1 || e.scrollWidth > e.clientWidth + 1)
            .map(e => e.tagName.toLowerCase() + ' ' + e.textContent.trim().slice(0, 40)); }""")
    assert past == [], f"wider than the column, or scrolling sideways: {past}"
    assert errors == [], errors
    assert hosts <= {"127.0.0.1"}, f"requests left the machine: {sorted(hosts)}"
