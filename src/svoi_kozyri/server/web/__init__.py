"""The web application: the hub and its socket loop, the FastAPI app that assembles
the routers, the uvicorn runner and a scripted client.
"""
