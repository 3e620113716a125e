"""The book builds offline with warnings as errors, and the claim page stands without a kernel."""

import re

import pytest

from statetrack.verdicts.registry import CLAIMS

pytestmark = pytest.mark.book


def test_book_builds_and_pages_are_complete(built_site):
    html_dir = built_site
    assert (html_dir / "index.html").exists()
    intro = (html_dir / "book" / "intro.html").read_text()
    from statetrack.verdicts.registry import CLAIMS

    for cid, c in CLAIMS.items():  # the scoreboard lists every claim, computed at build time
        assert re.search(rf">{cid}<", intro), f"scoreboard misses {cid}"
    assert "not built yet" in intro or all(c.notebook for c in CLAIMS.values())
    for claim in list(CLAIMS):
        assert "smoke" in intro and f'href="../notebooks/{CLAIMS[claim].notebook}.html' in intro
    for claim in list(CLAIMS):
        page = (html_dir / "notebooks" / f"{CLAIMS[claim].notebook}.html").read_text()
        images = re.findall(r'<img [^>]*src="\.\./_images/', page)
        assert images, f"{claim}: its figure is embedded as an image"
        assert 'class="dataframe' in page or "<table" in page, "the verdict table is on the page"
        assert re.search(r"Verdict at preset <code[^>]*><span[^>]*>smoke</span></code>", page), f"{claim}: its box"
        assert "application/vnd.jupyter.widget-state+json" not in page and "embed-amd.js" not in page  # no ipywidgets
        assert "_static/mathjax/tex-mml-chtml.js" in page
        explorers = page.count('class="statetrack-explorer"')
        assert ("_static/vega/vega-embed.min.js" in page) == (explorers > 0)  # Vega on the pages that use it only
        assert not re.search(r'<img alt="[^"]*\.png"', page), f"{claim}: a figure's alt text is its file name"
        cdn = [u for u in re.findall(r'https?://[^"\'\s)]+', page) if "jsdelivr" in u or "cdnjs" in u]
        assert cdn == [], f"scripts must be served by the book, found {cdn}"


def test_launch_buttons_only_with_a_repository(tmp_path, monkeypatch):
    import shutil

    from statetrack.site.book import add_launch_buttons
    from statetrack.runs.store import repo_root

    cfg = tmp_path / "_config.yml"
    shutil.copy2(repo_root() / "_config.yml", cfg)
    monkeypatch.delenv("STATETRACK_REPOSITORY", raising=False)
    add_launch_buttons(cfg)
    assert "mybinder" not in cfg.read_text()
    monkeypatch.setenv("STATETRACK_REPOSITORY", "someone/statetrack")
    add_launch_buttons(cfg)
    text = cfg.read_text()
    assert 'binderhub_url: "https://mybinder.org"' in text and "url: https://github.com/someone/statetrack" in text
    monkeypatch.setenv("STATETRACK_REPOSITORY", "not a repo")
    with pytest.raises(ValueError, match="'not a repo'"):
        add_launch_buttons(cfg)


def test_a_patient_channel_polls_until_the_message_it_waits_for_arrives(monkeypatch):
    """Every wait is split into polls of at most POLL_S, so a reply that a poll's wake-up missed is picked up
    by the next poll (kernel_client's docstring); a finite timeout still ends the wait when it is due."""
    import asyncio
    from queue import Empty

    from jupyter_client.channels import AsyncZMQSocketChannel

    from statetrack.site import kernel_client
    from statetrack.site.kernel_client import PatientChannel, PatientKernelManager

    monkeypatch.setattr(kernel_client, "POLL_S", 0.02)
    polls, arrives = [], [3]

    async def get_msg(self, timeout=None):  # the socket: the reply is seen by the poll number `arrives`
        if timeout is None:
            raise AssertionError("an open-ended poll reached the socket")
        polls.append(timeout)
        if len(polls) >= arrives[0]:
            return {"msg_type": "execute_reply"}
        await asyncio.sleep(timeout)
        raise Empty

    monkeypatch.setattr(AsyncZMQSocketChannel, "get_msg", get_msg)
    channel = PatientChannel.__new__(PatientChannel)
    assert asyncio.run(channel.get_msg())["msg_type"] == "execute_reply"
    assert polls == [0.02] * 3
    polls.clear()
    assert asyncio.run(channel.get_msg(timeout=10))["msg_type"] == "execute_reply"  # not 10 s: the third poll
    assert len(polls) == 3 and all(p <= 0.02 for p in polls)
    polls.clear()
    arrives[0] = 10**6
    t0 = __import__("time").monotonic()
    with pytest.raises(Empty):
        asyncio.run(channel.get_msg(timeout=0.1))
    assert __import__("time").monotonic() - t0 >= 0.1 and len(polls) >= 2 and all(p <= 0.02 for p in polls)
    km = PatientKernelManager()
    assert {type(km.client().shell_channel), type(km.client().iopub_channel)} == {PatientChannel}
