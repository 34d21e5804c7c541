"""The engine protocol: bots in any language play over stdin/stdout.

See ``docs/engine-protocol.md``.  :mod:`.wire` is the line format, :mod:`.client`
talks to any engine (asyncio protocol, :class:`SimpleEngine`, mock transport),
and :mod:`.conformance` checks a third-party engine (``svoi-kozyri engine-test``).

This package sits below the bots (it imports only ``core`` and ``notation``), so
:mod:`svoi_kozyri.bots.external` plays engines through it; serving a built-in bot
needs the bots and is therefore a surface above them,
:mod:`svoi_kozyri.engine_server` (``svoi-kozyri engine BOT``).
"""

from .client import (
    EngineError,
    EngineProtocol,
    EngineTerminatedError,
    EngineTimeoutError,
    Limit,
    MockTransport,
    PlayResult,
    SimpleEngine,
    popen_engine,
)
from .wire import (
    MAX_REQUEST_LINE_BYTES,
    PROTOCOL_VERSION,
    ProtocolError,
    RequestTooLongError,
    format_move_token,
    format_position_request,
    parse_move_token,
    parse_position_request,
)

__all__ = [
    "MAX_REQUEST_LINE_BYTES",
    "PROTOCOL_VERSION",
    "EngineError",
    "EngineProtocol",
    "EngineTerminatedError",
    "EngineTimeoutError",
    "Limit",
    "MockTransport",
    "PlayResult",
    "ProtocolError",
    "RequestTooLongError",
    "SimpleEngine",
    "format_move_token",
    "format_position_request",
    "parse_move_token",
    "parse_position_request",
    "popen_engine",
]
