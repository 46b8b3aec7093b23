"""What the client does with a server that misbehaves, which the real API cannot be made to do on
cue: an endless answer, an endless stream line, silence, and 503s that pass."""

import json
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from service_sdk import ServiceAPIError, ServiceClient, ServiceConnectionError

LIMIT = 64 * 1024


class Misbehaving(BaseHTTPRequestHandler):
    """Answers each path its own way; records the Idempotency-Key of each request."""

    keys: list = []

    def do_GET(self):
        if self.path.startswith("/v1/listings"):
            self._endless("application/json", b"[" + b"1," * 1024)
        elif self.path.startswith("/v1/runs/"):
            time.sleep(2)

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        if self.path == "/v1/execute/stream":
            self._endless("text/event-stream", b"data: " + b"x" * 1024)
        elif self.path == "/v1/execute":
            Misbehaving.keys.append(self.headers["Idempotency-Key"])
            if len(Misbehaving.keys) < 3:
                error = {"code": "service_unavailable", "message": "busy", "status": 503}
                self._json(503, {"error": error})
            else:
                self._json(200, {"run_id": "run_1", "status": "completed", "cost_wei": 10**30})

    def _json(self, status, body):
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("Retry-After", "0")
        self.end_headers()
        self.wfile.write(payload)

    def _endless(self, content_type, chunk):
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.end_headers()
        try:
            for _ in range(100_000):
                self.wfile.write(chunk)
        except OSError:
            pass  # The client hung up, as it should.

    def log_message(self, *args):
        pass


class AMisbehavingServer(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = ThreadingHTTPServer(("127.0.0.1", 0), Misbehaving)
        threading.Thread(target=cls.server.serve_forever, daemon=True).start()
        cls.url = f"http://127.0.0.1:{cls.server.server_address[1]}"

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()
        cls.server.server_close()

    def client(self, **options):
        return ServiceClient(self.url, api_key="intl_test_key", max_response_bytes=LIMIT, **options)

    def test_an_answer_past_the_size_bound_is_refused(self):
        with self.assertRaises(ServiceAPIError) as raised:
            self.client().listings.search()
        self.assertEqual(raised.exception.code, "response_too_large")

    def test_a_stream_line_past_the_size_bound_is_refused(self):
        with self.assertRaises(ServiceAPIError) as raised:
            list(self.client().execute_stream("lst_x", "task"))
        self.assertEqual(raised.exception.code, "response_too_large")

    def test_a_silent_server_times_out(self):
        started = time.monotonic()
        with self.assertRaises(ServiceConnectionError) as raised:
            self.client(timeout=0.3).runs.get("run_1")
        self.assertLess(time.monotonic() - started, 1.5)
        self.assertIn("within 0.3 s", str(raised.exception))

    def test_503s_are_retried_with_the_same_idempotency_key(self):
        Misbehaving.keys = []
        result = self.client().execute("lst_x", "task")
        self.assertEqual(result["cost_wei"], 10**30)
        self.assertEqual(len(Misbehaving.keys), 3)
        self.assertEqual(len(set(Misbehaving.keys)), 1)
