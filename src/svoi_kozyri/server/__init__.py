"""The web game server: FastAPI app, WebSocket protocol, persistence, per-viewer views.

Import :func:`svoi_kozyri.server.app.create_app` to build the application.
"""
