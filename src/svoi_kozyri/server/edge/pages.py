"""The HTML documents of the web game: the game itself (``/``) and the stand-alone
pages (learn, analysis, deal, session).

Why one template: the five documents differ only in their stylesheet, the module
that builds them and the placeholder shown until it has (the text comes from the
message catalogues, in the browser); five copies of the same head had to be kept
in step by hand.  Every document links ``header.css``, the style of the site's one
header (``static/header.js``), before its own stylesheet, and the web app manifest
(``/manifest.webmanifest``, server/web/routes_site.py) that makes the site installable.
"""

from __future__ import annotations

from typing import Final

from fastapi.responses import HTMLResponse

_TEMPLATE: Final = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1{viewport}">
  <title>Svoi Kozyri</title>
  <link rel="stylesheet" href="/static/header.css">
  <link rel="stylesheet" href="/static/{css}">
  <link rel="icon" href="/cards/AS.svg" type="image/svg+xml">
  <link rel="manifest" href="/manifest.webmanifest">
  <meta name="theme-color" content="#0d3a21">
  <link rel="apple-touch-icon" href="/static/icons/icon-192.png">
</head>
<body>
  {body}
  <noscript>{noscript}</noscript>
  <script type="module" src="/static/{page}.js"></script>
</body>
</html>
"""
_GAME: Final = {
    "viewport": ", viewport-fit=cover",  # the table runs to a phone's rounded edges
    "css": "style.css",
    "body": '<div id="root"><p class="loading">Svoi Kozyri…</p></div>',
    "noscript": "This game needs JavaScript.",
}
_PAGE: Final = {
    "viewport": "",
    "css": "pages.css",
    "body": '<div id="page"><main id="app">Loading…</main></div>',
    "noscript": "This page needs JavaScript.",
}
#: the documents by the module that builds them (``/static/<name>.js``)
DOCUMENTS: Final = {
    page: _TEMPLATE.format(page=page, **(_GAME if page == "app" else _PAGE))
    for page in ("app", "analysis", "deal", "learn", "session")
}


def page_shell(page: str) -> HTMLResponse:
    """The document of ``page`` (a key of :data:`DOCUMENTS`)."""
    return HTMLResponse(DOCUMENTS[page])
