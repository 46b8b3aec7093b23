"""The client of the marketplace's REST API."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

from .errors import ServiceAPIError, ServiceConnectionError
from .server_sent_events import server_sent_events
from .transport import Answer, Transport, path_segment

JsonObject = dict[str, Any]

# A run may last the manifest's longest timeout_seconds; past its own limit, the API waits this much
# more for its outcome before it answers 503 with the run id. An execution waits for both.
_LONGEST_RUN_SECONDS = 300
_RUN_ANSWER_GRACE_SECONDS = 120


class ServiceClient:
    """A client of the marketplace's REST API, authenticated with an API key or a wallet's JWT.

    Either is sent as ``Authorization: Bearer …``. ``timeout`` (seconds) bounds every call: its
    connection, each read, and a JSON answer in all; an execution adds its run's time to it.
    ``max_retries`` retries of 500, 503 and failed connections (0 turns them off).
    ``max_response_bytes`` bounds a JSON answer and each event of a stream.
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        token: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 3,
        max_response_bytes: int = 16 * 1024 * 1024,
    ) -> None:
        if api_key is not None and token is not None:
            raise ValueError("give an api_key or a token, not both")
        self._transport = Transport(
            base_url,
            api_key if api_key is not None else token,
            timeout,
            max_retries,
            max_response_bytes,
        )
        self.listings = Listings(self._transport)
        self.credentials = Credentials(self._transport)
        self.runs = Runs(self._transport)

    def execute(
        self,
        agent_id: str,
        task: str,
        *,
        input: str | JsonObject | None = None,
        input_uri: str | None = None,
        priority: str | None = None,
        timeout_seconds: int | None = None,
        max_cost_wei: int | None = None,
        idempotency_key: str | None = None,
    ) -> JsonObject:
        """Runs a task on a rented agent and answers with its result:
        ``run_id``, ``agent_id``, ``status``, ``output``, ``cost_wei`` (an exact int) and
        ``duration_ms``.

        Retries send the same ``idempotency_key`` (a new one per call unless given), so the task is
        run and charged once.
        """
        body = _execute_body(
            agent_id, task, input, input_uri, priority, timeout_seconds, max_cost_wei
        )
        return self._transport.json(
            "POST",
            "/v1/execute",
            body=body,
            idempotency_key=idempotency_key or str(uuid.uuid4()),
            wait=self._execution_wait(timeout_seconds),
        )

    def execute_stream(
        self,
        agent_id: str,
        task: str,
        *,
        input: str | JsonObject | None = None,
        input_uri: str | None = None,
        priority: str | None = None,
        timeout_seconds: int | None = None,
        max_cost_wei: int | None = None,
        idempotency_key: str | None = None,
    ) -> Iterator[JsonObject]:
        """Runs a task and yields its events as the agent produces them:
        ``{"event": "output", "data": {"delta": …}}``, then one
        ``{"event": "done", "data": …}`` with ``run_id``, ``status``, ``cost_wei`` and
        ``duration_ms`` (and the partial ``output`` of a failed run). The request is sent when
        iteration starts.

        An ``error`` event is raised as the error it carries; a stream that ends before ``done``
        as a ``ServiceConnectionError`` (the run may go on: ``runs.get`` tells how it ended).
        Closing the generator closes the connection; the run itself goes on and is charged as usual.
        """
        body = _execute_body(
            agent_id, task, input, input_uri, priority, timeout_seconds, max_cost_wei
        )
        answer = self._transport.send(
            "POST",
            "/v1/execute/stream",
            body=body,
            idempotency_key=idempotency_key or str(uuid.uuid4()),
            wait=self._execution_wait(timeout_seconds),
            accept="text/event-stream",
        )
        try:
            events = server_sent_events(answer.response, self._transport.max_response_bytes)
            for event, data in events:
                if event not in ("output", "done"):
                    continue
                yield {"event": event, "data": _event_data(data, answer)}
                if event == "done":
                    return
            raise ServiceConnectionError(
                "The stream ended before its done event; the run may go on"
            )
        finally:
            answer.close()

    def _execution_wait(self, timeout_seconds: int | None) -> float:
        run_seconds = timeout_seconds or _LONGEST_RUN_SECONDS
        return run_seconds + _RUN_ANSWER_GRACE_SECONDS + self._transport.timeout


class Listings:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def search(
        self,
        q: str | None = None,
        *,
        category: str | None = None,
        rental_model: str | None = None,
        min_price: float | None = None,
        max_price: float | None = None,
        min_rating: float | None = None,
        sort: str | None = None,
        limit: int | None = None,
        offset: int | None = None,
    ) -> JsonObject:
        """Searches the catalogue: ``{"listings": […], "total", "limit", "offset"}``; prices in
        ETH."""
        query = {
            "q": q,
            "category": category,
            "rental_model": rental_model,
            "min_price": min_price,
            "max_price": max_price,
            "min_rating": min_rating,
            "sort": sort,
            "limit": limit,
            "offset": offset,
        }
        return self._transport.json("GET", "/v1/listings", query=query)

    def get(self, listing_id: str) -> JsonObject:
        """One listing with every detail field, ``purchase`` (what a wallet calls to rent it)
        included."""
        return self._transport.json("GET", f"/v1/listings/{path_segment(listing_id)}")


class Credentials:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def list(
        self, *, status: str | None = None, limit: int | None = None, offset: int | None = None
    ) -> JsonObject:
        """The caller's rental credentials: ``{"credentials": […], "total"}``."""
        query = {"status": status, "limit": limit, "offset": offset}
        return self._transport.json("GET", "/v1/credentials", query=query)

    def verify(self, listing_id: str) -> JsonObject:
        """The caller's credential for a listing, checked on-chain at the latest block."""
        return self._transport.json("GET", f"/v1/credentials/{path_segment(listing_id)}")


class Runs:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def create(
        self,
        agent_id: str,
        task: str,
        *,
        input: str | JsonObject | None = None,
        input_uri: str | None = None,
        priority: str | None = None,
        timeout_seconds: int | None = None,
        max_cost_wei: int | None = None,
        idempotency_key: str | None = None,
    ) -> JsonObject:
        """Starts a task without waiting for it: ``{"run_id", "status"}``; ``get`` reads its
        result. Retries send the same ``idempotency_key``, so it is run and charged once."""
        body = _execute_body(
            agent_id, task, input, input_uri, priority, timeout_seconds, max_cost_wei
        )
        return self._transport.json(
            "POST", "/v1/runs", body=body, idempotency_key=idempotency_key or str(uuid.uuid4())
        )

    def get(self, run_id: str) -> JsonObject:
        """One of the caller's runs: its result once final, else how far it got."""
        return self._transport.json("GET", f"/v1/runs/{path_segment(run_id)}")

    def receipt(self, run_id: str) -> JsonObject:
        """A finished run's signed receipt document (docs/receipts.md): ``receipt``,
        ``signature``, ``anchor`` (None until its batch is anchored on-chain) and the rest. Check
        it with the TypeScript SDK's ``verifyReceipt`` or ``npm run verify-receipt``. A run whose
        cost is not final yet is a ``ServiceAPIError`` of status 409 (``receipt_pending``)."""
        return self._transport.json("GET", f"/v1/runs/{path_segment(run_id)}/receipt")

    def list(
        self,
        *,
        agent_id: str | None = None,
        status: str | None = None,
        since: str | None = None,
        until: str | None = None,
        limit: int | None = None,
    ) -> Iterator[JsonObject]:
        """The caller's runs, newest first, each ``run_id``, ``agent_id``, ``status``,
        ``cost_wei``, ``duration_ms`` and ``created_at``; page after page as iteration goes on."""
        query: dict[str, Any] = {
            "agent_id": agent_id,
            "status": status,
            "since": since,
            "until": until,
            "limit": limit,
        }
        while True:
            page = self._transport.json("GET", "/v1/runs", query=query)
            yield from page["runs"]
            if page["next_cursor"] is None:
                return
            query["cursor"] = page["next_cursor"]


def _event_data(data: str, answer: Answer) -> JsonObject:
    try:
        return json.loads(data)
    except ValueError as error:
        raise ServiceAPIError(
            "unexpected_response", f"An event is not JSON: {error}", 200, answer.request_id
        ) from error


def _execute_body(
    agent_id: str,
    task: str,
    input: str | JsonObject | None,
    input_uri: str | None,
    priority: str | None,
    timeout_seconds: int | None,
    max_cost_wei: int | None,
) -> JsonObject:
    optional = {
        "input": input,
        "input_uri": input_uri,
        "priority": priority,
        "timeout_seconds": timeout_seconds,
        # A decimal string: exact at any size, as the API reads it.
        "max_cost_wei": None if max_cost_wei is None else str(max_cost_wei),
    }
    present = {name: value for name, value in optional.items() if value is not None}
    return {"agent_id": agent_id, "task": task, **present}
