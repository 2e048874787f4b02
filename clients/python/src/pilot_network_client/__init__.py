"""Typed client of the publisher pilot network API for a publisher's Python server (standard library only).

    from pilot_network_client import NetworkClient
    network = NetworkClient(base_url=os.environ["PILOT_BASE_URL"], api_key=os.environ["PILOT_API_KEY"])
    ad = network.request_ad(language="en")  # an Ad, or None when nothing matches
"""
from .client import CLIENT_VERSION, Ad, AdResult, DeliveryConfirmed, NetworkClient, RetryEvent, RetryPolicy, next_delay_s, parse_retry_after
from .errors import (
    DeliveryOutcomeUnknownError,
    NetworkApiError,
    RateLimitedError,
    ServiceUnavailableError,
    TransportError,
    UnauthorizedError,
    UnexpectedResponseError,
)

__version__ = CLIENT_VERSION
__all__ = [
    "Ad",
    "AdResult",
    "CLIENT_VERSION",
    "DeliveryConfirmed",
    "DeliveryOutcomeUnknownError",
    "NetworkApiError",
    "NetworkClient",
    "RateLimitedError",
    "RetryEvent",
    "RetryPolicy",
    "ServiceUnavailableError",
    "TransportError",
    "UnauthorizedError",
    "UnexpectedResponseError",
    "next_delay_s",
    "parse_retry_after",
]
