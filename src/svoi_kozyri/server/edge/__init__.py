"""The edge of the HTTP server: rate limits, body size, security headers, log
hygiene (:mod:`.guard`) and the HTML page shell (:mod:`.pages`).
"""
