"""The HTML shell of the stand-alone pages (learn, analysis, deal, session).

Why one shell: the four pages are the same document but for the module that
builds them (the text comes from the message catalogues, in the browser); four
copies of the head had to be kept in step by hand.
"""

from __future__ import annotations

from typing import Final

from fastapi.responses import HTMLResponse

#: the pages and their modules under /static
PAGES: Final = ("analysis", "deal", "learn", "session")

_SHELL: Final = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Svoi Kozyri</title>
  <link rel="stylesheet" href="/static/pages.css">
  <link rel="icon" href="/cards/AS.svg" type="image/svg+xml">
</head>
<body>
  <div id="page"><main id="app">Loading…</main></div>
  <noscript>This page needs JavaScript.</noscript>
  <script type="module" src="/static/{page}.js"></script>
</body>
</html>
"""
_HTML: Final = {page: _SHELL.replace("{page}", page) for page in PAGES}


def page_shell(page: str) -> HTMLResponse:
    """The document of stand-alone page ``page`` (one of :data:`PAGES`)."""
    return HTMLResponse(_HTML[page])
