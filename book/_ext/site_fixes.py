"""A local Sphinx extension: fixes to the pages Jupyter Book 1 emits, each found by the browser test.

- JB1 registers sphinx-thebe's inline configuration script twice, so every page threw
  "Identifier 'THEBE_JS_URL' has already been declared" in the console: identical inline scripts are
  kept once.
- Explorers (Vega-Lite, ``statetrack.display.explorers``) need Vega, Vega-Lite, vega-embed and
  ``static/explorers.js``: they are registered for the pages that hold an explorer only, so no other page loads
  them (Jupyter Book 1 would add every script in the book's ``_static`` to every page).
- Jupyter Book 1 numbers figures book-wide ("Fig. 9" on ne4's second figure) whatever ``numfig`` says in
  _config.yml; the numbers read like the papers' figures, so captions carry none.
- Wide tables ran past the article (bl3's verdict table cut its last column at 1,400 px) and printed tables ran many
  screens tall: ``static/tables.css`` makes each scroll inside its own box.

- A figure's image had its file name for alt text: an image without one gets its figure's caption (up to its
  first 300 characters), so a screen reader reads what the figure shows.

Used in: _config.yml (``sphinx.local_extensions``); tested by tests/test_browser.py.
"""

import os


def _dedupe_scripts(app, pagename, templatename, context, doctree):
    seen, kept = set(), []
    for js in context.get("script_files", []):
        # The two copies differ only in filename None versus "" (both mean an inline script).
        key = (getattr(js, "filename", None) or "", tuple(sorted((getattr(js, "attributes", None) or {}).items())))
        if key not in seen:
            seen.add(key)
            kept.append(js)
    # In place: it is the builder's own list, to which page-level scripts (MathJax, the widget embedder) are
    # added by handlers that run after this one; a new list would lose them.
    context["script_files"][:] = kept


#: The scripts a page with an explorer loads, in order (the first three are copied into _assets/vega by `make assets`).
EXPLORER_SCRIPTS = ("vega/vega.min.js", "vega/vega-lite.min.js", "vega/vega-embed.min.js", "explorers.js")


def _explorer_scripts(app, pagename, templatename, context, doctree):
    if 'class="statetrack-explorer"' in context.get("body", ""):
        for i, script in enumerate(EXPLORER_SCRIPTS):
            app.add_js_file(script, priority=600 + i)  # called here, Sphinx adds it to this page only


def _alt_from_captions(app, doctree, docname):
    from docutils import nodes

    for figure in doctree.findall(nodes.figure):
        captions = list(figure.findall(nodes.caption))
        if not captions:
            continue
        text = " ".join(captions[0].astext().split())
        for image in figure.findall(nodes.image):
            if not image.get("alt"):
                image["alt"] = text if len(text) <= 300 else text[:299].rsplit(" ", 1)[0] + "…"


def _no_figure_numbers(app, config):
    config.numfig = False  # Jupyter Book 1 turns it on after reading _config.yml


def _static_path(app):
    app.config.html_static_path.append(os.path.join(os.path.dirname(__file__), "static"))


def setup(app):
    app.connect("builder-inited", _static_path)
    app.connect("config-inited", _no_figure_numbers, priority=900)
    app.add_css_file("tables.css")
    # Early: html-page-context is emitted with emit_firstresult, so a theme handler that returns a value
    # would stop the chain before a late handler; the duplicates are app-level, present from the start.
    app.connect("html-page-context", _dedupe_scripts, priority=100)
    app.connect("html-page-context", _explorer_scripts, priority=200)
    app.connect("doctree-resolved", _alt_from_captions)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
