"""What the client raises. Every error answer of the API (problem+json) is a NetworkApiError with its status
and its stable code: switch on `code`."""
from typing import Any, Dict, Optional


class NetworkApiError(Exception):
    """An error answer: `status` (400, 401, 404, 429, 503, ...), the problem's `code` (`invalid_language`,
    `rate_limited`, ...; `http_<status>` without a problem body), `retry_after_seconds` from Retry-After,
    and how many requests were made before giving up (`attempts`)."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        problem: Optional[Dict[str, Any]] = None,
        retry_after_seconds: Optional[int] = None,
        attempts: int = 1,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.problem = problem
        self.retry_after_seconds = retry_after_seconds
        self.attempts = attempts


class UnauthorizedError(NetworkApiError):
    """401: the key is missing, invalid or revoked, or the platform is not approved. Do not retry: fix the key."""


class RateLimitedError(NetworkApiError):
    """429 on the ad request, after the allowed retries (or Retry-After beyond the wait budget)."""


class ServiceUnavailableError(NetworkApiError):
    """503, or the entry point's 502 and 504: the service could not complete; retry later with bounded backoff."""


class UnexpectedResponseError(Exception):
    """The answer is not what the API describes (a wrong content type, a body that is not the schema's)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class TransportError(Exception):
    """The request got no answer. `not_sent` is True when no connection was made (refused, unknown host):
    nothing reached the network and nothing was recorded."""

    def __init__(self, message: str, timed_out: bool = False, not_sent: bool = False) -> None:
        super().__init__(message)
        self.timed_out = timed_out
        self.not_sent = not_sent


class DeliveryOutcomeUnknownError(TransportError):
    """A confirmation got no answer once it may have reached the network (timeout, broken connection, the
    entry point's 504): it may or may not be recorded. The client never sends it again on its own;
    confirmations are idempotent, so sending the same token again later is safe if you decide to."""

    def __init__(self, token: str, timed_out: bool) -> None:
        super().__init__(
            "the delivery confirmation got no answer (%s); it may or may not be recorded" % ("timeout" if timed_out else "connection failed"),
            timed_out=timed_out,
        )
        self.token = token
