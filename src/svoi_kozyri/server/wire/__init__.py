"""What crosses the wire: the protocol's message and request schemas, the socket
transport, seat tokens and signed links, and the checks on players' names.
"""
