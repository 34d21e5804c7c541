"""Structured logs: ``serve --log-format json`` writes one JSON object per line.

Each line has ``time`` (UTC, ISO 8601), ``level``, ``logger`` and ``message``, and
``request_id`` / ``table_id`` where the line was written while a request or a
table's socket or automatic action was being served (the two context variables
below, set by the web app's middleware and the scheduler), and ``exception`` with
the traceback of a logged exception.  A log collector can then filter one table's
or one request's lines without parsing English.

What a line says is what the text format says: the access log's query strings
are still cut off (``edge/guard.py``, ``install_log_redaction``), and no code
logs a seat token, a secret or a hidden card in the first place.
"""

from __future__ import annotations

import json
import logging
import logging.config
import time
from contextvars import ContextVar
from typing import Any

__all__ = ["LOG_FORMATS", "REQUEST_ID", "TABLE_ID", "JsonFormatter", "log_config", "use_json"]

LOG_FORMATS = ("text", "json")

REQUEST_ID: ContextVar[str | None] = ContextVar("svoi_kozyri_request_id", default=None)
"""The id of the HTTP request or WebSocket being served (``X-Request-ID``)."""
TABLE_ID: ContextVar[str | None] = ContextVar("svoi_kozyri_table_id", default=None)
"""The table the request, socket or automatic action is about."""


class JsonFormatter(logging.Formatter):
    """One JSON object per record (see the module's docstring)."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as one line of JSON (never raises for an odd message)."""
        created = time.gmtime(record.created)
        millis = int(record.msecs)
        line: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", created) + f".{millis:03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = REQUEST_ID.get()
        if request_id is not None:
            line["request_id"] = request_id
        table_id = TABLE_ID.get()
        if table_id is not None:
            line["table_id"] = table_id
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def use_json(level: int) -> None:
    """Write this process's logs as JSON lines from now on (before anything logs:
    the migrations do, before uvicorn configures its loggers), Python's warnings
    included, which would otherwise be plain lines among them."""
    logging.config.dictConfig(log_config(level))
    logging.captureWarnings(True)


def log_config(level: int) -> dict[str, Any]:
    """A :func:`logging.config.dictConfig` for uvicorn's ``log_config`` that writes
    every logger (uvicorn's and the server's) as JSON lines to stderr at ``level``.
    uvicorn applies it in each worker process too, so ``--workers N`` logs alike."""
    handler = {"handlers": ["json"], "level": level, "propagate": False}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": f"{__name__}.JsonFormatter"}},
        "handlers": {
            "json": {
                "class": "logging.StreamHandler",
                "formatter": "json",
                "stream": "ext://sys.stderr",
            }
        },
        "loggers": {
            "uvicorn": handler,
            "uvicorn.error": {"level": level},
            "uvicorn.access": handler,
        },
        "root": {"handlers": ["json"], "level": level},
    }
