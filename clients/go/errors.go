package networkclient

import (
	"errors"
	"fmt"
)

// Sentinels to test an *APIError with errors.Is: its status says which.
var (
	ErrUnauthorized       = errors.New("unauthorized")        // 401: fix the key; do not retry
	ErrRateLimited        = errors.New("rate limited")        // 429, after the allowed retries
	ErrServiceUnavailable = errors.New("service unavailable") // 503, or the entry point's 502 and 504
)

// APIError is an error answer of the API (problem+json): switch on Code.
type APIError struct {
	Status int
	// Code is the problem's stable snake_case code (invalid_language, rate_limited, ...), or http_<status>
	// without a problem body.
	Code    string
	Detail  string
	Problem map[string]any
	// RetryAfterSeconds is the Retry-After header in seconds, or -1 without one.
	RetryAfterSeconds int
	// Attempts is how many requests were made before giving up.
	Attempts int
}

func (e *APIError) Error() string {
	if e.Detail != "" {
		return fmt.Sprintf("HTTP %d %s: %s", e.Status, e.Code, e.Detail)
	}
	return fmt.Sprintf("HTTP %d %s", e.Status, e.Code)
}

// Is makes errors.Is(err, ErrRateLimited) and the other sentinels work on an *APIError.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrUnauthorized:
		return e.Status == 401
	case ErrRateLimited:
		return e.Status == 429
	case ErrServiceUnavailable:
		return e.Status == 502 || e.Status == 503 || e.Status == 504
	}
	return false
}

// UnexpectedResponseError: the answer is not what the API describes.
type UnexpectedResponseError struct {
	Status  int
	Message string
}

func (e *UnexpectedResponseError) Error() string { return e.Message }

// TransportError: the request got no answer. NotSent is true when no connection was made (refused, unknown
// host): nothing reached the network and nothing was recorded.
type TransportError struct {
	Message  string
	TimedOut bool
	NotSent  bool
	Err      error
}

func (e *TransportError) Error() string { return e.Message + ": " + e.Err.Error() }
func (e *TransportError) Unwrap() error { return e.Err }

// DeliveryOutcomeUnknownError: a confirmation got no answer once it may have reached the network (timeout,
// broken connection, the entry point's 504). It may or may not be recorded; the client never sends it again.
// Confirmations are idempotent: sending the same token again later is safe if you decide to.
type DeliveryOutcomeUnknownError struct {
	Token    string
	TimedOut bool
	Err      error
}

func (e *DeliveryOutcomeUnknownError) Error() string {
	return "the delivery confirmation got no answer; it may or may not be recorded: " + e.Err.Error()
}
func (e *DeliveryOutcomeUnknownError) Unwrap() error { return e.Err }
