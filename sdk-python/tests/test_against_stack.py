"""service_sdk against the real stack: a renter with an API key and a per-task balance on a listing
of the behaving agent (test/support/behavingAgent.ts: a run's task, as JSON, says how it answers)
searches, reads and verifies, runs tasks synchronously and streamed, and meets each typed error."""

import json
import unittest

from service_sdk import (
    ServiceAccessError,
    ServiceAPIError,
    ServiceAuthError,
    ServiceClient,
    ServiceNotFoundError,
    ServiceRateLimitError,
)
from stack import setting

API_URL = setting("SERVICE_API_URL")
LISTING_ID = setting("SERVICE_LISTING_ID")
PRICE_WEI = int(setting("SERVICE_PRICE_WEI"))
renter = ServiceClient(API_URL, api_key=setting("SERVICE_API_KEY"))


class ARenterWithAnApiKey(unittest.TestCase):
    def test_finds_the_listing_by_search_and_by_id(self):
        found = renter.listings.search("answers as its task says", limit=100)
        self.assertIn(LISTING_ID, [listing["id"] for listing in found["listings"]])
        self.assertEqual(found["limit"], 100)

        listing = renter.listings.get(LISTING_ID)
        self.assertEqual(listing["id"], LISTING_ID)
        self.assertEqual(listing["status"], "active")
        self.assertEqual(listing["rental_model"], "per_query")
        self.assertEqual(int(listing["purchase"]["options"][0]["args"][1]), PRICE_WEI)

    def test_verifies_its_credential_on_chain_and_lists_it(self):
        check = renter.credentials.verify(LISTING_ID)
        self.assertEqual(
            (check["listing_id"], check["status"], check["valid"], check["on_chain_verified"]),
            (LISTING_ID, "active", True, True),
        )
        listed = renter.credentials.list(status="active")
        self.assertEqual(
            [(item["listing_id"], item["status"]) for item in listed["credentials"]],
            [(LISTING_ID, "active")],
        )

    def test_executes_a_task_charged_its_exact_price_and_reads_the_run(self):
        result = renter.execute(LISTING_ID, json.dumps({}), input={"topic": "chips"})
        self.assertEqual(result["status"], "completed")
        self.assertEqual(result["output"], {"summary": "done"})
        self.assertEqual(result["cost_wei"], PRICE_WEI)
        self.assertIsInstance(result["cost_wei"], int)

        run = renter.runs.get(result["run_id"])
        self.assertEqual(
            (run["run_id"], run["status"], run["cost_wei"]),
            (result["run_id"], "completed", PRICE_WEI),
        )

        # Debited before it was answered: its receipt is final, its cost an exact decimal string.
        document = renter.runs.receipt(result["run_id"])
        self.assertEqual(
            (document["receipt"]["run_id"], document["receipt"]["cost_wei"]),
            (result["run_id"], str(PRICE_WEI)),
        )
        self.assertRegex(document["signature"], r"^0x[0-9a-f]{130}$")

    def test_starts_a_run_without_waiting_then_finds_it_in_its_run_history(self):
        key = "python-client-async-run"
        started = renter.runs.create(LISTING_ID, json.dumps({}), input={"topic": "async"},
                                     idempotency_key=key)
        again = renter.runs.create(LISTING_ID, json.dumps({}), input={"topic": "async"},
                                   idempotency_key=key)
        self.assertEqual(again["run_id"], started["run_id"])
        listed = list(renter.runs.list(agent_id=LISTING_ID, limit=1))
        run_ids = [run["run_id"] for run in listed]
        self.assertIn(started["run_id"], run_ids)
        self.assertEqual(len(run_ids), len(set(run_ids)))
        self.assertNotIn("output", listed[0])

    def test_streams_a_task_delta_by_delta_then_done(self):
        task = json.dumps({"deltas": ["one ", "two"], "output": {"summary": "one two"}})
        events = list(renter.execute_stream(LISTING_ID, task))
        self.assertEqual(
            events[:2],
            [
                {"event": "output", "data": {"delta": "one "}},
                {"event": "output", "data": {"delta": "two"}},
            ],
        )
        done = events[2]
        self.assertEqual(len(events), 3)
        self.assertEqual(done["event"], "done")
        self.assertRegex(done["data"]["run_id"], r"^run_")
        self.assertEqual(done["data"]["status"], "completed")
        self.assertEqual(done["data"]["cost_wei"], PRICE_WEI)


class FailuresArriveAsTypedErrors(unittest.TestCase):
    def test_an_unknown_api_key_is_an_auth_error(self):
        stranger = ServiceClient(API_URL, api_key="intl_test_" + "x" * 40)
        with self.assertRaises(ServiceAuthError) as raised:
            stranger.listings.search()
        error = raised.exception
        self.assertEqual((error.code, error.status), ("invalid_api_key", 401))

    def test_running_without_a_credential_is_an_access_error_naming_the_contract_error(self):
        # A wallet's JWT, the other way to authenticate: its wallet rented nothing.
        stranger = ServiceClient(API_URL, token=setting("SERVICE_STRANGER_TOKEN"))
        with self.assertRaises(ServiceAccessError) as raised:
            stranger.execute(LISTING_ID, "hi")
        error = raised.exception
        self.assertEqual((error.code, error.status), ("credential_not_found", 403))
        self.assertEqual(
            error.on_chain_error, {"contract": "ServiceMarketplace", "error": "CredentialNotFound"}
        )
        self.assertEqual(stranger.credentials.verify(LISTING_ID)["status"], "not_found")

    def test_a_run_priced_above_its_max_cost_is_an_access_error_and_costs_nothing(self):
        with self.assertRaises(ServiceAccessError) as raised:
            renter.execute(LISTING_ID, json.dumps({}), max_cost_wei=PRICE_WEI - 1)
        error = raised.exception
        self.assertEqual((error.code, error.status), ("max_cost_exceeded", 403))
        within = renter.execute(LISTING_ID, json.dumps({}), max_cost_wei=PRICE_WEI)
        self.assertEqual((within["status"], within["cost_wei"]), ("completed", PRICE_WEI))

    def test_a_missing_listing_is_a_not_found_error_with_its_request_id(self):
        with self.assertRaises(ServiceNotFoundError) as raised:
            renter.listings.get("lst_" + "0" * 64)
        error = raised.exception
        self.assertEqual((error.code, error.status), ("listing_not_found", 404))
        self.assertRegex(error.request_id, r"^req_")

    def test_a_malformed_request_is_the_base_error(self):
        with self.assertRaises(ServiceAPIError) as raised:
            renter.execute("nope", "hi")
        self.assertIs(type(raised.exception), ServiceAPIError)
        error = raised.exception
        self.assertEqual((error.code, error.status), ("invalid_listing_id", 400))

    def test_a_real_rate_limit_is_a_rate_limit_error_with_retry_after(self):
        # An API process that allows three requests a minute per caller.
        limited = ServiceClient(
            setting("SERVICE_RATE_LIMITED_API_URL"), api_key=setting("SERVICE_API_KEY")
        )
        error = None
        for _ in range(10):
            try:
                limited.listings.search(limit=1)
            except ServiceRateLimitError as raised:
                error = raised
                break
        self.assertIsNotNone(error, "ten requests were all let through")
        self.assertEqual((error.code, error.status), ("rate_limit_exceeded", 429))
        self.assertGreater(error.retry_after, 0)
        self.assertLessEqual(error.retry_after, 60)
