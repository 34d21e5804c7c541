"""The web game server: FastAPI app, WebSocket protocol, persistence, per-viewer views.

Import :func:`svoi_kozyri.server.web.app.create_app` to build the application.

The server is a stack of packages; each imports only from the packages below it
(``tests/test_architecture.py`` checks it), lowest first:

``runtime`` -> ``wire`` -> ``storage`` -> ``table`` -> ``edge`` -> ``platform``
-> ``features`` -> ``cluster`` -> ``web``

and the modules of this package itself (``__main__``) sit on top.
"""
