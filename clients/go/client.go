// Package networkclient is the typed client of the publisher pilot network API for a publisher's Go server,
// the standard library only, with the behaviour of the TypeScript client the guide describes:
//
//	RequestAd         GET  /api/network/ad        -> *Ad, or nil on 204; 429, 502, 503, 504 retried within bounds
//	RequestAdResult   the same, with the 204's Pilot-No-Fill-Reason
//	ConfirmDelivery   POST /api/network/delivery  -> DeliveryConfirmed; never retried by the client
package networkclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Version is this module's version, sent in the User-Agent.
const Version = "0.3.0"

// Ad is one sponsored creative. Show it labelled as sponsored; keep ClickURL unchanged.
type Ad struct {
	CampaignID    int64   `json:"campaign_id"`
	Title         string  `json:"title"`
	Text          string  `json:"text"`
	ButtonText    string  `json:"button_text"`
	ImageURL      *string `json:"image_url"`
	ClickURL      string  `json:"click_url"`
	DeliveryToken string  `json:"delivery_token"`
	ExpiresIn     int     `json:"expires_in"`
	Sponsored     bool    `json:"sponsored"`
	Billing       string  `json:"billing"`
}

// DeliveryConfirmed is the answer of a confirmation.
type DeliveryConfirmed struct {
	Status            string `json:"status"`
	FirstConfirmation bool   `json:"first_confirmation"`
}

// AdResult is the Ad, or none (Ad nil) with the reason the network gave: no_active_campaign,
// no_campaign_for_format, no_campaign_for_language, own_campaigns_only, a reason added later, or "".
type AdResult struct {
	Ad           *Ad
	NoFillReason string
}

// RetryPolicy bounds the ad request's retries. Retry-After is a floor, never shortened: when it does not
// fit in the budget the client gives up at once.
type RetryPolicy struct {
	MaxAttempts  int           // requests at most, the first included (default 3)
	MaxTotalWait time.Duration // waiting at most, in all (default 10 s)
	BaseDelay    time.Duration // first backoff without Retry-After, doubling, full jitter (default 500 ms)
	MaxDelay     time.Duration // largest backoff without Retry-After (default 5 s)
}

// DefaultRetry is the policy of a client that sets none.
var DefaultRetry = RetryPolicy{MaxAttempts: 3, MaxTotalWait: 10 * time.Second, BaseDelay: 500 * time.Millisecond, MaxDelay: 5 * time.Second}

// RetryEvent is what OnRetry sees before each wait.
type RetryEvent struct {
	Attempt           int
	Status            int
	RetryAfterSeconds int
	Delay             time.Duration
}

// AdRequest is what one ad request asks for.
type AdRequest struct {
	Language   string       // ISO 639-1 code or a tag of one, as the platform gives it; "" leaves it out
	TestAnswer string       // sandbox only: "204", "429" or "503" forces that answer on every attempt
	Retry      *RetryPolicy // this call's policy instead of the client's (MaxAttempts 1: a forced error at once)
}

// Client calls the network API. Build it with New.
type Client struct {
	baseURL         string
	apiKey          string
	Retry           RetryPolicy
	Timeout         time.Duration // one ad request attempt (default 5 s)
	DeliveryTimeout time.Duration // a confirmation (default 10 s)
	HTTPClient      *http.Client
	OnRetry         func(RetryEvent)
	// Sleep waits between attempts; tests may record instead of waiting.
	Sleep     func(ctx context.Context, d time.Duration) error
	UserAgent string
}

// New makes a client. baseURL is the service origin (PUBLIC_BASE_URL), e.g. https://pilot.example; a path
// in it is kept. apiKey is the publisher key: keep it on the server, never in a URL or a log.
func New(baseURL, apiKey string) (*Client, error) {
	if apiKey == "" {
		return nil, errors.New("apiKey is required")
	}
	parsed, err := url.Parse(baseURL)
	if err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" {
		return nil, errors.New("baseURL must be an http or https URL")
	}
	if parsed.RawQuery != "" || parsed.Fragment != "" {
		return nil, errors.New("baseURL must not have a query or a fragment")
	}
	return &Client{
		baseURL:         parsed.Scheme + "://" + parsed.Host + strings.TrimRight(parsed.Path, "/"),
		apiKey:          apiKey,
		Retry:           DefaultRetry,
		Timeout:         5 * time.Second,
		DeliveryTimeout: 10 * time.Second,
		HTTPClient:      &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		Sleep:           sleep,
		UserAgent:       "pilot-network-client-go/" + Version,
	}, nil
}

// RequestAd returns one creative for an immediate placement, or nil when none matches (204: send nothing).
func (c *Client) RequestAd(ctx context.Context, request AdRequest) (*Ad, error) {
	result, err := c.RequestAdResult(ctx, request)
	return result.Ad, err
}

// RequestAdResult is RequestAd with why a 204 had no ad (its Pilot-No-Fill-Reason). 429, 503 and the entry
// point's 502 and 504 are retried after Retry-After (or a jittered backoff without it) within the policy;
// then the *APIError (errors.Is ErrRateLimited or ErrServiceUnavailable). Other errors return at once.
func (c *Client) RequestAdResult(ctx context.Context, request AdRequest) (AdResult, error) {
	path := "/api/network/ad"
	if request.Language != "" {
		path += "?" + url.Values{"language": {request.Language}}.Encode()
	}
	headers := map[string]string{}
	if request.TestAnswer != "" {
		headers["X-Pilot-Test-Answer"] = request.TestAnswer
	}
	policy := c.Retry
	if request.Retry != nil {
		policy = *request.Retry
	}
	if policy.MaxAttempts < 1 {
		return AdResult{}, errors.New("retry.MaxAttempts must be >= 1")
	}
	var waited time.Duration
	for attempt := 1; ; attempt++ {
		status, header, body, err := c.send(ctx, http.MethodGet, path, nil, headers, c.Timeout)
		if err != nil {
			if ctx.Err() != nil {
				return AdResult{}, ctx.Err()
			}
			timedOut := isTimeout(err)
			message := "the ad request got no answer"
			if timedOut {
				message = "the ad request timed out"
			}
			return AdResult{}, &TransportError{Message: message, TimedOut: timedOut, NotSent: neverConnected(err), Err: err}
		}
		switch status {
		case http.StatusOK:
			var ad Ad
			if err := expectJSON(status, header); err != nil {
				return AdResult{}, err
			}
			if err := decodeChecked("Ad", status, body, &ad); err != nil {
				return AdResult{}, err
			}
			return AdResult{Ad: &ad}, nil
		case http.StatusNoContent:
			return AdResult{NoFillReason: header.Get("Pilot-No-Fill-Reason")}, nil
		}
		apiErr := apiErrorOf(status, header, body, attempt)
		if status != 429 && status != 502 && status != 503 && status != 504 {
			return AdResult{}, apiErr
		}
		delay, ok := NextDelay(policy, attempt, waited, apiErr.RetryAfterSeconds, rand.Float64)
		if !ok {
			return AdResult{}, apiErr
		}
		if c.OnRetry != nil {
			c.OnRetry(RetryEvent{Attempt: attempt, Status: status, RetryAfterSeconds: apiErr.RetryAfterSeconds, Delay: delay})
		}
		if err := c.Sleep(ctx, delay); err != nil {
			return AdResult{}, err
		}
		waited += delay
	}
}

// ConfirmDelivery confirms the delivery of an ad: call it only after the messaging platform reported a
// successful send. Sent once: no answer once it may have reached the network (timeout, broken connection,
// a 504) is a *DeliveryOutcomeUnknownError, never sent again; a connection never made (refused, unknown
// host) is a *TransportError with NotSent. A 502 or 503 is an *APIError (confirming again is safe).
// testAnswer ("404" or "503", a test key only) forces that answer (the sandbox); "" sends none.
func (c *Client) ConfirmDelivery(ctx context.Context, token string, testAnswer string) (DeliveryConfirmed, error) {
	payload, _ := json.Marshal(map[string]string{"token": token})
	headers := map[string]string{"Content-Type": "application/json"}
	if testAnswer != "" {
		headers["X-Pilot-Test-Answer"] = testAnswer
	}
	status, header, body, err := c.send(ctx, http.MethodPost, "/api/network/delivery", payload, headers, c.DeliveryTimeout)
	if err != nil {
		if ctx.Err() != nil && !isTimeout(err) {
			return DeliveryConfirmed{}, ctx.Err()
		}
		if neverConnected(err) {
			return DeliveryConfirmed{}, &TransportError{Message: "the delivery confirmation was not sent: no connection to the network", NotSent: true, Err: err}
		}
		return DeliveryConfirmed{}, &DeliveryOutcomeUnknownError{Token: token, TimedOut: isTimeout(err), Err: err}
	}
	if status == http.StatusGatewayTimeout {
		return DeliveryConfirmed{}, &DeliveryOutcomeUnknownError{Token: token, TimedOut: true, Err: errors.New("HTTP 504 gateway_timeout")}
	}
	if status != http.StatusOK {
		return DeliveryConfirmed{}, apiErrorOf(status, header, body, 1)
	}
	var confirmed DeliveryConfirmed
	if err := expectJSON(status, header); err != nil {
		return DeliveryConfirmed{}, err
	}
	if err := decodeChecked("DeliveryConfirmed", status, body, &confirmed); err != nil {
		return DeliveryConfirmed{}, err
	}
	return confirmed, nil
}

// NextDelay is how long to wait after attempt (1-based) failed with a retried status, or false to give up.
// retryAfterSeconds is -1 when the answer had no Retry-After.
func NextDelay(policy RetryPolicy, attempt int, waited time.Duration, retryAfterSeconds int, draw func() float64) (time.Duration, bool) {
	if attempt >= policy.MaxAttempts {
		return 0, false
	}
	var delay time.Duration
	if retryAfterSeconds >= 0 {
		delay = time.Duration(retryAfterSeconds) * time.Second
	} else {
		ceiling := policy.BaseDelay << (attempt - 1)
		if ceiling > policy.MaxDelay || ceiling <= 0 {
			ceiling = policy.MaxDelay
		}
		delay = time.Duration(draw() * float64(ceiling))
	}
	if waited+delay > policy.MaxTotalWait {
		return 0, false
	}
	return delay, true
}

// ParseRetryAfter reads Retry-After as seconds (delta-seconds or an HTTP date); -1 when absent or invalid.
func ParseRetryAfter(value string, now time.Time) int {
	value = strings.TrimSpace(value)
	if value == "" {
		return -1
	}
	if seconds, err := strconv.Atoi(value); err == nil && seconds >= 0 {
		return seconds
	}
	if moment, err := http.ParseTime(value); err == nil {
		if seconds := int(moment.Sub(now).Seconds() + 0.999); seconds > 0 {
			return seconds
		}
		return 0
	}
	return -1
}

func (c *Client) send(ctx context.Context, method, path string, body []byte, headers map[string]string, timeout time.Duration) (int, http.Header, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	request, err := http.NewRequestWithContext(ctx, method, c.baseURL+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	request.Header.Set("Accept", "application/json, application/problem+json")
	request.Header.Set("Authorization", "Bearer "+c.apiKey)
	request.Header.Set("User-Agent", c.UserAgent)
	for name, value := range headers {
		request.Header.Set(name, value)
	}
	response, err := c.HTTPClient.Do(request)
	if err != nil {
		return 0, nil, nil, err
	}
	defer response.Body.Close()
	data, err := io.ReadAll(response.Body) // read to the end, so the connection goes back to the pool
	if err != nil {
		return 0, nil, nil, err
	}
	return response.StatusCode, response.Header, data, nil
}

func expectJSON(status int, header http.Header) error {
	if !strings.Contains(header.Get("Content-Type"), "json") {
		return &UnexpectedResponseError{Status: status, Message: "expected JSON, got " + header.Get("Content-Type")}
	}
	return nil
}

func apiErrorOf(status int, header http.Header, body []byte, attempts int) *APIError {
	apiErr := &APIError{Status: status, Code: fmt.Sprintf("http_%d", status), RetryAfterSeconds: ParseRetryAfter(header.Get("Retry-After"), time.Now()), Attempts: attempts}
	var problem map[string]any
	if json.Unmarshal(body, &problem) == nil && problemOf(Schemas["Problem"], problem, "the body") == "" {
		apiErr.Problem = problem
		apiErr.Code, _ = problem["code"].(string)
		apiErr.Detail, _ = problem["detail"].(string)
	}
	return apiErr
}

func isTimeout(err error) bool {
	var netErr net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout())
}

// neverConnected: the error happened before a request could be sent (refused, unknown host, unreachable).
func neverConnected(err error) bool {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return true
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH)
	}
	return false
}

func sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
