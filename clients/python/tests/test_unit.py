"""The client against scripted local servers (standard library only): retries, the no-fill reason, the base
URL's path, what a refused connection and a 504 mean for a confirmation."""
import json
import socket
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from pilot_network_client import (
    DeliveryOutcomeUnknownError,
    NetworkApiError,
    NetworkClient,
    RateLimitedError,
    RetryPolicy,
    ServiceUnavailableError,
    TransportError,
    UnauthorizedError,
    UnexpectedResponseError,
    next_delay_s,
    parse_retry_after,
)

AD = {
    "campaign_id": 7,
    "title": "Learn Turkish",
    "text": "Short <b>daily</b> lessons & more",
    "button_text": "Try it",
    "image_url": None,
    "click_url": "https://pilot.example/api/network/click/AkNnFT0xnoFS",
    "delivery_token": "ArqDxi9sQKjx",
    "expires_in": 3600,
    "sponsored": True,
    "billing": "pilot_non_billable",
}


def problem(status, code):
    return {"type": "https://pilot.example/guide/errors#" + code, "title": code, "status": status, "detail": code, "code": code}


class Scripted:
    """A local server answering scripted replies in order, recording each request."""

    def __init__(self, replies):
        self.replies = list(replies)
        self.requests = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                owner.requests.append({"method": self.command, "path": self.path, "headers": dict(self.headers), "body": self.rfile.read(length)})
                status, body, headers = owner.replies.pop(0)
                data = b"" if body is None else json.dumps(body).encode()
                self.send_response(status)
                if body is not None:
                    self.send_header("Content-Type", "application/problem+json" if status >= 400 else "application/json")
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = answer
            do_POST = answer

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # A short poll: shutdown() waits for the loop's next look, half a second at the default.
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def closed_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ClientUnitTest(unittest.TestCase):
    def serve(self, *replies, **options):
        server = Scripted(replies)
        self.addCleanup(server.close)
        waits = []
        client = NetworkClient(base_url=options.pop("base_url", server.url), api_key="pilot_pk_test", sleep=waits.append, **options)
        return client, server, waits

    def test_returns_the_ad_of_a_200_sending_the_key_and_the_language(self):
        client, server, _ = self.serve((200, dict(AD, added_later="ignored"), {}))
        ad = client.request_ad(language="tr")
        self.assertEqual(ad.campaign_id, 7)
        self.assertFalse(hasattr(ad, "added_later"))
        self.assertEqual(server.requests[0]["path"], "/api/network/ad?language=tr")
        self.assertEqual(server.requests[0]["headers"]["Authorization"], "Bearer pilot_pk_test")

    def test_gives_the_no_fill_reason_of_a_204_and_leaves_an_empty_language_out(self):
        client, server, _ = self.serve((204, None, {"Pilot-No-Fill-Reason": "own_campaigns_only"}), (204, None, {}))
        self.assertEqual(client.request_ad_result(language="").no_fill_reason, "own_campaigns_only")
        self.assertIsNone(client.request_ad())
        self.assertEqual(server.requests[0]["path"], "/api/network/ad")

    def test_keeps_a_path_of_the_base_url(self):
        server = Scripted([(204, None, {}), (200, {"status": "confirmed", "first_confirmation": True}, {})])
        self.addCleanup(server.close)
        client = NetworkClient(base_url=server.url + "/pilot/", api_key="k")
        client.request_ad(language="en")
        client.confirm_delivery("t")
        self.assertEqual([r["path"] for r in server.requests], ["/pilot/api/network/ad?language=en", "/pilot/api/network/delivery"])

    def test_refuses_an_ad_that_is_not_one_of_the_schema(self):
        client, _, _ = self.serve((200, dict(AD, sponsored=False), {}))
        with self.assertRaises(UnexpectedResponseError) as raised:
            client.request_ad()
        self.assertIn("sponsored", str(raised.exception))

    def test_waits_retry_after_on_429_and_503_and_retries_502_and_504(self):
        client, server, waits = self.serve(
            (429, problem(429, "rate_limited"), {"Retry-After": "2"}),
            (503, problem(503, "service_unavailable"), {"Retry-After": "1"}),
            (200, AD, {}),
        )
        self.assertEqual(client.request_ad().campaign_id, 7)
        self.assertEqual(waits, [2.0, 1.0])
        client, server, waits = self.serve((502, problem(502, "bad_gateway"), {}), (504, problem(504, "gateway_timeout"), {}), (200, AD, {}))
        self.assertEqual(client.request_ad().campaign_id, 7)
        self.assertEqual(len(waits), 2)

    def test_gives_up_with_the_last_error_and_at_once_when_retry_after_is_beyond_the_budget(self):
        client, server, waits = self.serve((429, problem(429, "rate_limited"), {"Retry-After": "45"}))
        with self.assertRaises(RateLimitedError) as raised:
            client.request_ad()
        self.assertEqual((raised.exception.retry_after_seconds, raised.exception.attempts, waits), (45, 1, []))
        client, server, waits = self.serve(*[(502, problem(502, "bad_gateway"), {})] * 3, retry=RetryPolicy(base_delay_s=0.01))
        with self.assertRaises(ServiceUnavailableError) as raised:
            client.request_ad()
        self.assertEqual((raised.exception.status, raised.exception.attempts), (502, 3))

    def test_surfaces_a_forced_503_at_once_when_the_call_asks_for_one_attempt(self):
        forced = (503, problem(503, "service_unavailable"), {"Retry-After": "5"})
        client, server, waits = self.serve(forced, forced, forced, forced)
        with self.assertRaises(ServiceUnavailableError):
            client.request_ad(test_answer="503", retry=RetryPolicy(max_attempts=1))
        self.assertEqual(waits, [])
        self.assertEqual(server.requests[0]["headers"]["X-Pilot-Test-Answer"], "503")
        with self.assertRaises(ServiceUnavailableError):
            client.request_ad(test_answer="503")
        self.assertEqual(waits, [5.0, 5.0])

    def test_never_retries_400_or_401(self):
        client, server, _ = self.serve((400, problem(400, "invalid_language"), {}), (401, problem(401, "invalid_key"), {}))
        with self.assertRaises(NetworkApiError) as raised:
            client.request_ad(language="zz")
        self.assertEqual(raised.exception.code, "invalid_language")
        with self.assertRaises(UnauthorizedError):
            client.request_ad()
        self.assertEqual(len(server.requests), 2)

    def test_posts_the_token_once_and_returns_the_confirmation(self):
        client, server, _ = self.serve((200, {"status": "confirmed", "first_confirmation": True}, {}))
        self.assertTrue(client.confirm_delivery("tok").first_confirmation)
        self.assertEqual(json.loads(server.requests[0]["body"]), {"token": "tok"})

    def test_a_504_on_a_confirmation_is_an_unknown_outcome_and_a_503_is_not_retried(self):
        client, server, waits = self.serve((504, problem(504, "gateway_timeout"), {}), (503, problem(503, "service_unavailable"), {"Retry-After": "1"}))
        with self.assertRaises(DeliveryOutcomeUnknownError) as raised:
            client.confirm_delivery("tok")
        self.assertEqual((raised.exception.token, raised.exception.timed_out, raised.exception.not_sent), ("tok", True, False))
        with self.assertRaises(ServiceUnavailableError):
            client.confirm_delivery("tok")
        self.assertEqual((len(server.requests), waits), (2, []))

    def test_a_refused_connection_was_not_sent_never_an_unknown_outcome(self):
        client = NetworkClient(base_url="http://127.0.0.1:%d" % closed_port(), api_key="k")
        with self.assertRaises(TransportError) as raised:
            client.confirm_delivery("tok")
        self.assertNotIsInstance(raised.exception, DeliveryOutcomeUnknownError)
        self.assertTrue(raised.exception.not_sent)
        with self.assertRaises(TransportError) as raised:
            client.request_ad()
        self.assertTrue(raised.exception.not_sent)

    def test_a_confirmation_without_an_answer_is_an_unknown_outcome(self):
        with socket.socket() as silent:
            silent.bind(("127.0.0.1", 0))
            silent.listen()
            client = NetworkClient(base_url="http://127.0.0.1:%d" % silent.getsockname()[1], api_key="k", delivery_timeout_s=0.2)
            with self.assertRaises(DeliveryOutcomeUnknownError) as raised:
                client.confirm_delivery("tok")
        self.assertTrue(raised.exception.timed_out)

    def test_retry_arithmetic(self):
        policy = RetryPolicy(max_attempts=3, max_total_wait_s=5)
        self.assertEqual(next_delay_s(policy, 1, 0, 3), 3.0)
        self.assertIsNone(next_delay_s(policy, 2, 3, 3))
        self.assertIsNone(next_delay_s(policy, 3, 0, 0))
        self.assertEqual(next_delay_s(policy, 2, 0, None, lambda: 1.0), 1.0)
        self.assertEqual(parse_retry_after("17"), 17)
        self.assertIsNone(parse_retry_after("soon"))
        with self.assertRaises(ValueError):
            RetryPolicy(max_attempts=0)
        with self.assertRaises(ValueError):
            NetworkClient(base_url="ftp://example.org", api_key="k")


if __name__ == "__main__":
    unittest.main()
