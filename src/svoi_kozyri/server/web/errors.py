"""The HTTP API's one error handler, and the answers to requests it refuses
before any route runs.

Every refusal is an :class:`~svoi_kozyri.server.wire.errors.ApiError` (a table's,
an account's, a limit's, a feature's) answered as ``{"code", "message"}`` with its
status and ``Retry-After`` where it has one; a request that does not match its
schema is 422 ``invalid`` with the errors but never the input (it may be
megabytes, NaN or a lone surrogate); a seat token in a URL is refused (it would
land in logs and history).  Each refusal is counted by its code
(``svoi_kozyri_errors_total{where="http"}``, :mod:`..runtime.metrics`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response

from ..runtime.metrics import count_error
from ..wire.errors import ApiError

__all__ = ["install_errors"]


def _plain(text: str) -> str:
    """``text`` with anything that cannot be encoded (lone surrogates) replaced."""
    return text.encode("utf-8", "replace").decode("utf-8")


async def _api_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    count_error("http", exc.code)
    retry = exc.retry_after_header
    headers = {"Retry-After": retry} if retry is not None else None
    return JSONResponse(exc.body(), status_code=exc.status, headers=headers)


async def _invalid(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    count_error("http", "invalid")
    errors = [
        {
            "loc": [str(x) for x in e.get("loc", ())][:8],
            "msg": _plain(str(e.get("msg", "")))[:200],
            "type": _plain(str(e.get("type", "")))[:40],
        }
        for e in list(exc.errors())[:10]
    ]
    return JSONResponse({"code": "invalid", "detail": errors}, status_code=422)


async def _no_token_in_urls(
    request: Request, call_next: Callable[[Request], Awaitable[Response]]
) -> Response:
    if "token" in request.query_params:
        count_error("http", "token_in_url")
        return JSONResponse(
            {
                "code": "token_in_url",
                "message": "send the seat token in the X-Seat-Token header "
                "(downloads: POST /api/tables/{id}/record-link)",
            },
            status_code=400,
        )
    return await call_next(request)


def install_errors(app: FastAPI) -> None:
    """The handler of every :class:`ApiError`, of invalid requests, and the
    refusal of tokens in URLs."""
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.middleware("http")(_no_token_in_urls)
