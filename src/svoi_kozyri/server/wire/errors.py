"""The one error type of the HTTP API.

Every refused request, whatever part of the server refuses it (a table, an
account, a rate limit, a feature), raises an :class:`ApiError` or a subclass and
is answered by one handler (:func:`svoi_kozyri.server.web.errors.install`) as
``{"code": ..., "message": ...}`` with the error's status and, for 429 and 503,
a ``Retry-After``.  The client words an error by its ``code`` from its catalogue
(``error.<code>``); the message is the English fallback.
"""

from __future__ import annotations

import math

__all__ = ["ApiError"]


class ApiError(ValueError):
    """A refused request: a stable machine-readable ``code``, the HTTP ``status``,
    and for a limit the seconds to wait (``retry_after``)."""

    def __init__(
        self, code: str, message: str, status: int = 400, retry_after: float = 0.0
    ) -> None:
        super().__init__(message)
        self.code = code
        self.status = status
        self.retry_after = retry_after

    @property
    def retry_after_header(self) -> str | None:
        """Whole seconds to wait, at least 1 (the header takes integers); every
        429 says when to come back, other errors only when they know."""
        if self.retry_after > 0 or self.status == 429:
            return str(max(1, math.ceil(self.retry_after)))
        return None

    def body(self) -> dict[str, str]:
        """The JSON answer."""
        return {"code": self.code, "message": str(self)}
