"""The engine protocol: bots in any language play over stdin/stdout.

See ``docs/engine-protocol.md``.  :mod:`.wire` is the line format,
:mod:`.server` serves a built-in bot (``svoi-kozyri engine BOT``), :mod:`.client`
talks to any engine (asyncio protocol, :class:`SimpleEngine`, mock transport),
and :mod:`.conformance` checks a third-party engine (``svoi-kozyri engine-test``).
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
    PROTOCOL_VERSION,
    ProtocolError,
    format_move_token,
    format_position_request,
    parse_move_token,
    parse_position_request,
)

__all__ = [
    "PROTOCOL_VERSION",
    "EngineError",
    "EngineProtocol",
    "EngineTerminatedError",
    "EngineTimeoutError",
    "Limit",
    "MockTransport",
    "PlayResult",
    "ProtocolError",
    "SimpleEngine",
    "format_move_token",
    "format_position_request",
    "parse_move_token",
    "parse_position_request",
    "popen_engine",
]
