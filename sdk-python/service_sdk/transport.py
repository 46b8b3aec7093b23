"""Sends requests to the API over ``http.client``, with a timeout, bounded reads and retries."""

from __future__ import annotations

import http.client
import json
import platform
import random
import ssl
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from . import __version__
from .errors import ServiceAPIError, ServiceConnectionError, retry_after_seconds, service_error

# The spec's "retry 500 and 503 with exponential backoff".
_RETRIED_STATUSES = frozenset({500, 503})
_FIRST_DELAY_CEILING = 0.5
_MAX_DELAY = 8.0
_READ_CHUNK = 64 * 1024
USER_AGENT = f"service-sdk-python/{__version__} (Python {platform.python_version()})"


class Answer:
    """A response, its body unread, the connection it came on, and when reading it must be done by
    (``time.monotonic()``); close it when done."""

    def __init__(
        self,
        connection: http.client.HTTPConnection,
        response: http.client.HTTPResponse,
        deadline: float,
    ) -> None:
        self.connection = connection
        self.response = response
        self.deadline = deadline

    @property
    def request_id(self) -> str | None:
        return self.response.getheader("x-request-id")

    def close(self) -> None:
        # Both: a response that ends its connection holds the socket without the connection.
        self.response.close()
        self.connection.close()


class Transport:
    """Sends a request and gives its answer, or raises the typed error of a failure.

    Every request waits at most ``timeout`` seconds, or ``wait`` when a call gives its own (an
    execution waits for its run), for each network operation and for a JSON answer in all. Retries
    of 500, 503 and failed connections back off with full jitter; a POST is retried only with an
    ``Idempotency-Key``, which makes repeating it safe. A timed-out call is not retried: its time is
    spent.
    """

    def __init__(
        self,
        base_url: str,
        bearer: str | None,
        timeout: float,
        max_retries: int,
        max_response_bytes: int,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"base_url must be an http(s) URL, not {base_url!r}")
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._prefix = parts.path.rstrip("/")
        self._bearer = bearer
        self.timeout = timeout
        self._max_retries = max_retries
        self.max_response_bytes = max_response_bytes

    def json(self, method: str, path: str, **request: Any) -> Any:
        """Sends a request and reads its JSON answer (wei amounts come as exact ``int``)."""
        answer = self.send(method, path, **request)
        try:
            body = read_bounded(answer.response, self.max_response_bytes, answer.deadline)
            try:
                return json.loads(body)
            except ValueError as error:
                raise ServiceAPIError(
                    "unexpected_response",
                    f"The answer is not JSON: {error}",
                    answer.response.status,
                    answer.request_id,
                ) from error
        finally:
            answer.close()

    def send(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, Any] | None = None,
        body: Any = None,
        idempotency_key: str | None = None,
        wait: float | None = None,
        accept: str = "application/json",
    ) -> Answer:
        """Sends a request and gives its successful answer, its body unread."""
        wait = wait or self.timeout
        target = self._target(path, query)
        payload = None if body is None else json.dumps(body).encode()
        headers = {"Accept": accept, "User-Agent": USER_AGENT}
        if self._bearer is not None:
            headers["Authorization"] = f"Bearer {self._bearer}"
        if idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
        if payload is not None:
            headers["Content-Type"] = "application/json"
        may_retry = method != "POST" or idempotency_key is not None

        retries = 0
        while True:
            outcome = self._attempt(method, target, payload, headers, wait)
            if isinstance(outcome, Answer):
                return outcome
            failure, retry_after = outcome
            if not may_retry or retries >= self._max_retries:
                raise failure
            retries += 1
            time.sleep(retry_delay(retries, retry_after))

    def _attempt(
        self, method: str, target: str, payload: bytes | None, headers: dict[str, str], wait: float
    ) -> Answer | tuple[ServiceAPIError, float | None]:
        """One request: its successful answer, or a failure worth retrying (500, 503, a failed
        connection) with its ``Retry-After``; any other failure is raised."""
        deadline = time.monotonic() + wait
        connection = self._connection(wait)
        try:
            connection.request(method, target, body=payload, headers=headers)
            response = connection.getresponse()
        except TimeoutError as error:
            connection.close()
            raise ServiceConnectionError(f"No answer from {self._host} within {wait} s") from error
        except (OSError, http.client.HTTPException) as error:
            connection.close()
            failure = ServiceConnectionError(f"No answer from {self._host}: {error}")
            failure.__cause__ = error
            return failure, None
        answer = Answer(connection, response, deadline)
        if 200 <= response.status < 300:
            return answer
        try:
            body = read_bounded(response, self.max_response_bytes, deadline)
        finally:
            answer.close()
        retry_after = response.getheader("retry-after")
        failure = service_error(
            body, response.status, response.getheader("x-request-id"), retry_after
        )
        if failure.status not in _RETRIED_STATUSES:
            raise failure
        return failure, retry_after_seconds(retry_after)

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        if self._https:
            context = ssl.create_default_context()
            return http.client.HTTPSConnection(
                self._host, self._port, timeout=timeout, context=context
            )
        return http.client.HTTPConnection(self._host, self._port, timeout=timeout)

    def _target(self, path: str, query: Mapping[str, Any] | None) -> str:
        present = {name: value for name, value in (query or {}).items() if value is not None}
        return self._prefix + path + (f"?{urlencode(present)}" if present else "")


def path_segment(value: str) -> str:
    """An id as one path segment: nothing in it can reach another path."""
    return quote(value, safe="")


def retry_delay(attempt: int, retry_after: float | None) -> float:
    """Full jitter under a ceiling doubling per attempt; ``Retry-After`` is a floor within it."""
    ceiling = min(_MAX_DELAY, _FIRST_DELAY_CEILING * 2 ** (attempt - 1))
    return min(_MAX_DELAY, max(retry_after or 0.0, random.uniform(0, ceiling)))


def read_bounded(response: http.client.HTTPResponse, limit: int, deadline: float) -> bytes:
    """The whole body, refused once it passes ``limit`` bytes or reading it passes ``deadline``."""
    chunks: list[bytes] = []
    size = 0
    while chunk := _read_chunk(response):
        size += len(chunk)
        if size > limit:
            raise ServiceAPIError(
                "response_too_large",
                f"The answer is larger than {limit} bytes",
                response.status,
                response.getheader("x-request-id"),
            )
        if time.monotonic() > deadline:
            raise ServiceConnectionError("The answer did not arrive in time")
        chunks.append(chunk)
    return b"".join(chunks)


def _read_chunk(response: http.client.HTTPResponse) -> bytes:
    try:
        return response.read1(_READ_CHUNK)
    except (OSError, http.client.HTTPException) as error:
        raise ServiceConnectionError(f"The answer broke off: {error}") from error
