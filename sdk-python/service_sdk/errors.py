"""The typed errors of the client, made from the API's error object."""

from __future__ import annotations

import json
import time
from email.utils import parsedate_to_datetime
from typing import Any


class ServiceAPIError(Exception):
    """Every failure the API answers with (its error object), or a request that got no answer.

    ``code`` is the API's error code (``credential_not_found``…), ``status`` the HTTP status (0
    when nothing answered), ``request_id`` the answer's ``X-Request-Id`` (quote it to support), and
    ``on_chain_error`` the contract failure behind it, ``{"contract": …, "error": …}``, if any.
    """

    def __init__(
        self,
        code: str,
        message: str,
        status: int,
        request_id: str | None = None,
        on_chain_error: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.request_id = request_id
        self.on_chain_error = on_chain_error


class ServiceAuthError(ServiceAPIError):
    """401: no credentials, an invalid or revoked key, an expired token."""


class ServiceAccessError(ServiceAPIError):
    """403: no valid rental credential for the listing, or a key without the scope."""


class ServiceNotFoundError(ServiceAPIError):
    """404: no such listing, run or endpoint."""


class ServiceRateLimitError(ServiceAPIError):
    """429: a rate limit; ``retry_after`` is the seconds to wait (the ``Retry-After`` header)."""

    def __init__(self, *args: Any, retry_after: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.retry_after = retry_after


class ServiceConnectionError(ServiceAPIError):
    """No answer: the network failed, the call timed out, or a stream ended before ``done``."""

    def __init__(self, message: str) -> None:
        super().__init__("connection_error", message, 0)


_CLASS_BY_STATUS: dict[int, type[ServiceAPIError]] = {
    401: ServiceAuthError,
    403: ServiceAccessError,
    404: ServiceNotFoundError,
}


def service_error(
    body: bytes | str, status: int, request_id: str | None, retry_after: str | None
) -> ServiceAPIError:
    """The error a body in the spec's error format stands for, of the class its status calls for."""
    code, message, status, on_chain_error = _described(body, status)
    if status == 429:
        seconds = retry_after_seconds(retry_after)
        return ServiceRateLimitError(
            code,
            message,
            status,
            request_id,
            on_chain_error,
            retry_after=1 if seconds is None else seconds,
        )
    error_class = _CLASS_BY_STATUS.get(status, ServiceAPIError)
    return error_class(code, message, status, request_id, on_chain_error)


def _described(body: bytes | str, status: int) -> tuple[str, str, int, dict[str, str] | None]:
    try:
        error = json.loads(body)["error"]
        if isinstance(error, dict) and isinstance(error.get("code"), str):
            error_status = error.get("status")
            return (
                error["code"],
                str(error.get("message", error["code"])),
                error_status if isinstance(error_status, int) else status,
                error.get("on_chain_error"),
            )
    except (ValueError, TypeError, KeyError):
        pass  # Not the error object: described by its status below.
    code = "internal_error" if status >= 500 else "unexpected_response"
    return code, f"HTTP {status}", status, None


def retry_after_seconds(header: str | None) -> float | None:
    """``Retry-After`` in seconds, sent as seconds or an HTTP date; None if absent or unreadable."""
    if header is None:
        return None
    try:
        seconds = float(header)
        return seconds if seconds >= 0 else None
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(header).timestamp() - time.time())
    except (TypeError, ValueError):
        return None
