"""The client against the running system (tests/publishers/clients.test.ts starts it and gives):
PILOT_BASE_URL, PILOT_API_KEY (an approved platform's live key, a campaign in "en" for it),
PILOT_OWN_KEY (a live key whose only match is its own account's campaign), PILOT_TEST_KEY (a test key).
Without them these tests are skipped; the system test that runs them fails on any skip."""
import json
import os
import unittest
import urllib.request

from pilot_network_client import (
    NetworkApiError,
    NetworkClient,
    RateLimitedError,
    RetryPolicy,
    ServiceUnavailableError,
    UnauthorizedError,
)
from pilot_network_client.client import Ad
from pilot_network_client.schemas import AD_SCHEMA, DELIVERY_CONFIRMED_SCHEMA, PROBLEM_SCHEMA

BASE_URL = os.environ.get("PILOT_BASE_URL")


@unittest.skipUnless(BASE_URL, "PILOT_BASE_URL and the keys name the running system")
class ClientSystemTest(unittest.TestCase):
    def client(self, key_variable, **options):
        return NetworkClient(base_url=BASE_URL, api_key=os.environ[key_variable], **options)

    def test_copies_the_schemas_of_the_served_document_unchanged_and_its_ad_has_every_field(self):
        with urllib.request.urlopen(BASE_URL + "/api/network/openapi.json", timeout=10) as response:
            schemas = json.load(response)["components"]["schemas"]
        message = "regenerate: python3 scripts/generate_schemas.py <base>/api/network/openapi.json"
        self.assertEqual(AD_SCHEMA, schemas["Ad"], message)
        self.assertEqual(DELIVERY_CONFIRMED_SCHEMA, schemas["DeliveryConfirmed"], message)
        self.assertEqual(PROBLEM_SCHEMA, schemas["Problem"], message)
        self.assertEqual(sorted(Ad.__dataclass_fields__), sorted(schemas["Ad"]["required"]))

    def test_gets_an_ad_and_confirms_its_delivery_once_and_idempotently(self):
        network = self.client("PILOT_API_KEY")
        ad = network.request_ad(language="en-US")
        self.assertIsNotNone(ad)
        self.assertTrue(ad.sponsored)
        self.assertTrue(ad.click_url.startswith(BASE_URL + "/api/network/click/"))
        self.assertTrue(network.confirm_delivery(ad.delivery_token).first_confirmation)
        self.assertFalse(network.confirm_delivery(ad.delivery_token).first_confirmation)

    def test_says_why_a_204_has_no_ad(self):
        result = self.client("PILOT_OWN_KEY").request_ad_result(language="en")
        self.assertIsNone(result.ad)
        self.assertEqual(result.no_fill_reason, "own_campaigns_only")

    def test_raises_the_documented_errors(self):
        with self.assertRaises(NetworkApiError) as raised:
            self.client("PILOT_API_KEY").request_ad(language="zz")
        self.assertEqual((raised.exception.status, raised.exception.code), (400, "invalid_language"))
        with self.assertRaises(UnauthorizedError) as raised:
            NetworkClient(base_url=BASE_URL, api_key="pilot_pk_not_a_key").request_ad()
        self.assertEqual(raised.exception.code, "invalid_key")
        with self.assertRaises(NetworkApiError) as raised:
            self.client("PILOT_API_KEY").confirm_delivery("not-a-token")
        self.assertEqual(raised.exception.code, "invalid_token")

    def test_works_in_the_sandbox_and_surfaces_forced_answers_at_once_when_asked(self):
        waits = []
        sandbox = self.client("PILOT_TEST_KEY", sleep=waits.append)
        ad = sandbox.request_ad()
        self.assertEqual(ad.campaign_id, 4294967295)
        self.assertTrue(ad.title.startswith("Test ad"))
        self.assertEqual(sandbox.request_ad_result(test_answer="204").no_fill_reason, "no_active_campaign")
        once = RetryPolicy(max_attempts=1)
        with self.assertRaises(RateLimitedError):
            sandbox.request_ad(test_answer="429", retry=once)
        with self.assertRaises(ServiceUnavailableError) as raised:
            sandbox.request_ad(test_answer="503", retry=once)
        self.assertEqual((raised.exception.attempts, waits), (1, []))
        with self.assertRaises(NetworkApiError) as raised:
            sandbox.confirm_delivery(ad.delivery_token, test_answer="404")
        self.assertEqual((raised.exception.status, raised.exception.code), (404, "token_expired"))
        with self.assertRaises(ServiceUnavailableError):
            sandbox.confirm_delivery(ad.delivery_token, test_answer="503")
        self.assertTrue(sandbox.confirm_delivery(ad.delivery_token).first_confirmation)


if __name__ == "__main__":
    unittest.main()
