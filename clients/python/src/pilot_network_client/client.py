"""The publisher's server-side client of the network API, standard library only:

    request_ad()         GET  /api/network/ad        -> Ad, or None on 204; 429, 502, 503, 504 retried within bounds
    request_ad_result()  the same, with the 204's Pilot-No-Fill-Reason
    confirm_delivery()   POST /api/network/delivery  -> DeliveryConfirmed; never retried by the client

The same behaviour as the TypeScript client (@pilot/network-client), which the guide describes.
"""
import errno
import json
import random
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from http.client import HTTPException
from typing import Any, Callable, Dict, Optional, Union

from .errors import (
    DeliveryOutcomeUnknownError,
    NetworkApiError,
    RateLimitedError,
    ServiceUnavailableError,
    TransportError,
    UnauthorizedError,
    UnexpectedResponseError,
)
from .schemas import AD_SCHEMA, DELIVERY_CONFIRMED_SCHEMA, PROBLEM_SCHEMA
from .validation import checked

CLIENT_VERSION = "0.3.0"
RETRIED_STATUSES = (429, 502, 503, 504)
NOT_CONNECTED_ERRNOS = {errno.ECONNREFUSED, errno.EHOSTUNREACH, errno.ENETUNREACH}


@dataclass(frozen=True)
class Ad:
    """One sponsored creative (the Ad schema). Show it labelled as sponsored; keep click_url unchanged."""

    campaign_id: int
    title: str
    text: str
    button_text: str
    image_url: Optional[str]
    click_url: str
    delivery_token: str
    expires_in: int
    sponsored: bool
    billing: str


@dataclass(frozen=True)
class DeliveryConfirmed:
    status: str
    first_confirmation: bool


@dataclass(frozen=True)
class AdResult:
    """The Ad, or none with the reason the network gave (`no_active_campaign`, `no_campaign_for_format`,
    `no_campaign_for_language`, `own_campaigns_only`, a reason added later, or None when it gave none)."""

    ad: Optional[Ad]
    no_fill_reason: Optional[str] = None


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded backoff of the ad request: at most `max_attempts` requests, at most `max_total_wait_s` of waiting.
    Retry-After is a floor, never shortened: when it does not fit in the budget the client gives up at once."""

    max_attempts: int = 3
    max_total_wait_s: float = 10.0
    base_delay_s: float = 0.5
    max_delay_s: float = 5.0

    def __post_init__(self) -> None:
        if not isinstance(self.max_attempts, int) or self.max_attempts < 1:
            raise ValueError("max_attempts must be an integer >= 1")
        if self.max_total_wait_s < 0:
            raise ValueError("max_total_wait_s must be >= 0")


@dataclass(frozen=True)
class RetryEvent:
    attempt: int
    status: int
    retry_after_seconds: Optional[int]
    delay_s: float


def next_delay_s(policy: RetryPolicy, attempt: int, waited_s: float, retry_after_seconds: Optional[int], draw: Callable[[], float] = random.random) -> Optional[float]:
    """How long to wait after attempt `attempt` (1-based) failed with a retried status, or None to give up."""
    if attempt >= policy.max_attempts:
        return None
    if retry_after_seconds is not None:
        delay = float(retry_after_seconds)
    else:
        delay = draw() * min(policy.max_delay_s, policy.base_delay_s * 2 ** (attempt - 1))
    if waited_s + delay > policy.max_total_wait_s:
        return None
    return delay


def parse_retry_after(value: Optional[str]) -> Optional[int]:
    """Retry-After as seconds (delta-seconds or an HTTP date), None when absent or invalid."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return int(value)
    try:
        from email.utils import parsedate_to_datetime

        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0, int(moment.timestamp() - time.time() + 0.999))


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:  # the API never redirects these calls
        return None


@dataclass
class _Answer:
    status: int
    headers: Dict[str, str]
    body: bytes


@dataclass
class NetworkClient:
    """base_url: the service origin (PUBLIC_BASE_URL), e.g. https://pilot.example; a path in it is kept.
    api_key: the publisher key. Keep it on the server: never in browser code, URLs or logs."""

    base_url: str
    api_key: str
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    timeout_s: float = 5.0
    delivery_timeout_s: float = 10.0
    on_retry: Optional[Callable[[RetryEvent], None]] = None
    sleep: Callable[[float], None] = time.sleep
    user_agent: str = "pilot-network-client-python/" + CLIENT_VERSION

    def __post_init__(self) -> None:
        if not self.api_key:
            raise ValueError("api_key is required")
        parts = urllib.parse.urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError("base_url must be an http or https URL")
        if parts.query or parts.fragment:
            raise ValueError("base_url must not have a query or a fragment")
        self.base_url = "%s://%s%s" % (parts.scheme, parts.netloc, parts.path.rstrip("/"))
        self._opener = urllib.request.build_opener(_NoRedirect)

    def request_ad(self, language: Optional[str] = None, test_answer: Optional[str] = None, retry: Optional[RetryPolicy] = None) -> Optional[Ad]:
        """One creative for an immediate placement, or None when none matches (204: send nothing, carry on).
        429, 503 and the entry point's 502 and 504 are retried after Retry-After (or a jittered backoff without
        it) within the policy (`retry` for this call, else the client's); then RateLimitedError or
        ServiceUnavailableError. Every other error is raised at once. With a test key, `test_answer`
        ('204', '429', '503') forces that answer on every attempt (the sandbox)."""
        return self.request_ad_result(language, test_answer, retry).ad

    def request_ad_result(self, language: Optional[str] = None, test_answer: Optional[str] = None, retry: Optional[RetryPolicy] = None) -> AdResult:
        """As request_ad, with why a 204 had no ad (its Pilot-No-Fill-Reason)."""
        query = "?" + urllib.parse.urlencode({"language": language}) if language else ""
        headers = {"X-Pilot-Test-Answer": test_answer} if test_answer else {}
        policy = retry or self.retry
        waited = 0.0
        attempt = 1
        while True:
            try:
                answer = self._send("GET", "/api/network/ad" + query, None, headers, self.timeout_s)
            except _NoAnswer as failure:
                raise TransportError("the ad request " + ("timed out" if failure.timed_out else "got no answer"), failure.timed_out, failure.not_sent) from failure.cause
            if answer.status == 200:
                return AdResult(Ad(**self._checked(AD_SCHEMA, answer, "an Ad")), None)
            if answer.status == 204:
                return AdResult(None, answer.headers.get("pilot-no-fill-reason"))
            error = _api_error(answer, attempt)
            if answer.status not in RETRIED_STATUSES:
                raise error
            delay = next_delay_s(policy, attempt, waited, error.retry_after_seconds)
            if delay is None:
                raise error
            if self.on_retry:
                self.on_retry(RetryEvent(attempt, answer.status, error.retry_after_seconds, delay))
            self.sleep(delay)
            waited += delay
            attempt += 1

    def confirm_delivery(self, token: str, test_answer: Optional[str] = None) -> DeliveryConfirmed:
        """Confirms the delivery of an ad: call it only after the messaging platform reported a successful send.
        Sent once. No answer once it may have reached the network (timeout, broken connection, a 504):
        DeliveryOutcomeUnknownError, never sent again. A connection never made (refused, unknown host):
        TransportError with not_sent. A 502 or 503: ServiceUnavailableError (confirming again is safe).
        With a test key, `test_answer` ('404', '503') forces that answer (the sandbox)."""
        headers = {"Content-Type": "application/json"}
        if test_answer:
            headers["X-Pilot-Test-Answer"] = test_answer
        body = json.dumps({"token": token}).encode("utf-8")
        try:
            answer = self._send("POST", "/api/network/delivery", body, headers, self.delivery_timeout_s)
        except _NoAnswer as failure:
            if failure.not_sent:
                raise TransportError("the delivery confirmation was not sent: no connection to the network", False, True) from failure.cause
            raise DeliveryOutcomeUnknownError(token, failure.timed_out) from failure.cause
        if answer.status == 504:
            raise DeliveryOutcomeUnknownError(token, True)
        if answer.status != 200:
            raise _api_error(answer, 1)
        return DeliveryConfirmed(**self._checked(DELIVERY_CONFIRMED_SCHEMA, answer, "a DeliveryConfirmed object"))

    def _checked(self, schema: Dict[str, Any], answer: _Answer, what: str) -> Dict[str, Any]:
        value, problem = checked(schema, _json_of(answer))
        if value is None:
            raise UnexpectedResponseError(answer.status, "the answer is not %s: %s" % (what, problem))
        return value

    def _send(self, method: str, path: str, body: Optional[bytes], headers: Dict[str, str], timeout_s: float) -> _Answer:
        request = urllib.request.Request(self.base_url + path, data=body, method=method)
        request.add_header("Accept", "application/json, application/problem+json")
        request.add_header("Authorization", "Bearer " + self.api_key)
        request.add_header("User-Agent", self.user_agent)
        for name, value in headers.items():
            request.add_header(name, value)
        try:
            with self._opener.open(request, timeout=timeout_s) as response:
                return _Answer(response.status, _lower(response.headers), response.read())
        except urllib.error.HTTPError as error:
            with error:
                return _Answer(error.code, _lower(error.headers), error.read())
        except (urllib.error.URLError, OSError, HTTPException) as error:
            raise _NoAnswer(error) from error


class _NoAnswer(Exception):
    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause
        reason: Union[BaseException, str, None] = getattr(cause, "reason", cause)
        self.timed_out = isinstance(reason, (socket.timeout, TimeoutError))
        self.not_sent = isinstance(reason, (ConnectionRefusedError, socket.gaierror)) or (
            isinstance(reason, OSError) and reason.errno in NOT_CONNECTED_ERRNOS
        )


def _lower(headers: Any) -> Dict[str, str]:
    return {name.lower(): value for name, value in headers.items()} if headers else {}


def _json_of(answer: _Answer) -> Any:
    if "json" not in answer.headers.get("content-type", ""):
        raise UnexpectedResponseError(answer.status, "expected JSON, got %s" % answer.headers.get("content-type", "no content type"))
    try:
        return json.loads(answer.body.decode("utf-8"))
    except ValueError:
        raise UnexpectedResponseError(answer.status, "the body is not valid JSON") from None


def _api_error(answer: _Answer, attempts: int) -> NetworkApiError:
    problem: Optional[Dict[str, Any]] = None
    try:
        problem, _ = checked(PROBLEM_SCHEMA, json.loads(answer.body.decode("utf-8")))
    except ValueError:
        pass  # not a problem body (a proxy's page): the status alone says what happened
    status = answer.status
    code = problem["code"] if problem else "http_%d" % status
    message = "HTTP %d %s%s" % (status, code, ": " + problem["detail"] if problem and problem.get("detail") else "")
    retry_after = parse_retry_after(answer.headers.get("retry-after"))
    kind = {401: UnauthorizedError, 429: RateLimitedError, 502: ServiceUnavailableError, 503: ServiceUnavailableError, 504: ServiceUnavailableError}.get(status, NetworkApiError)
    return kind(status, code, message, problem, retry_after, attempts)


__all__ = ["Ad", "AdResult", "DeliveryConfirmed", "NetworkClient", "RetryEvent", "RetryPolicy", "next_delay_s", "parse_retry_after"]
