"""Server-Sent Events read from a response, each line and event bounded in size."""

from __future__ import annotations

import http.client
from collections.abc import Iterator
from typing import NamedTuple

from .errors import ServiceAPIError, ServiceConnectionError, service_error


class ServerSentEvent(NamedTuple):
    event: str
    data: str


def server_sent_events(
    response: http.client.HTTPResponse, max_event_bytes: int
) -> Iterator[ServerSentEvent]:
    """The events of a stream until it ends. An ``error`` event is raised as the error it carries;
    a line or an event larger than ``max_event_bytes``, as ``response_too_large``."""
    request_id = response.getheader("x-request-id")
    event = ""
    data: list[str] = []
    size = 0
    for line in _lines(response, max_event_bytes):
        if line == "":
            if data:
                if event == "error":
                    raise service_error("\n".join(data), 500, request_id, None)
                yield ServerSentEvent(event or "message", "\n".join(data))
            event, data, size = "", [], 0
            continue
        if line.startswith(":"):
            continue  # A comment: the API's heartbeat.
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "event":
            event = value
        elif field == "data":
            size += len(value)
            if size > max_event_bytes:
                raise _too_large(response, max_event_bytes)
            data.append(value)


def _lines(response: http.client.HTTPResponse, max_bytes: int) -> Iterator[str]:
    while True:
        try:
            line = response.readline(max_bytes + 1)
        except (OSError, http.client.HTTPException) as error:
            raise ServiceConnectionError(f"The stream broke off: {error}") from error
        if not line:
            return
        if not line.endswith(b"\n") and len(line) > max_bytes:
            raise _too_large(response, max_bytes)
        try:
            yield line.rstrip(b"\n").rstrip(b"\r").decode()
        except UnicodeDecodeError as error:
            raise ServiceAPIError(
                "unexpected_response", "The stream is not UTF-8", response.status
            ) from error


def _too_large(response: http.client.HTTPResponse, limit: int) -> ServiceAPIError:
    return ServiceAPIError(
        "response_too_large",
        f"An event of the stream is larger than {limit} bytes",
        response.status,
        response.getheader("x-request-id"),
    )
