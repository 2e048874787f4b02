package networkclient

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

var testAd = map[string]any{
	"campaign_id": 7, "title": "Learn Turkish", "text": "Short <b>daily</b> lessons", "button_text": "Try it",
	"image_url": nil, "click_url": "https://pilot.example/api/network/click/AkNnFT0xnoFS", "delivery_token": "ArqDxi9sQKjx",
	"expires_in": 3600, "sponsored": true, "billing": "pilot_non_billable",
}

type reply struct {
	status  int
	body    any
	headers map[string]string
}

type seen struct {
	method, uri, body string
	header            http.Header
}

// scripted answers the replies in order and records each request.
func scripted(t *testing.T, replies ...reply) (*httptest.Server, *[]seen) {
	var mutex sync.Mutex
	requests := &[]seen{}
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mutex.Lock()
		defer mutex.Unlock()
		body, _ := io.ReadAll(r.Body)
		*requests = append(*requests, seen{r.Method, r.RequestURI, string(body), r.Header.Clone()})
		if len(replies) == 0 {
			t.Errorf("no more scripted replies")
			w.WriteHeader(500)
			return
		}
		next := replies[0]
		replies = replies[1:]
		for name, value := range next.headers {
			w.Header().Set(name, value)
		}
		if next.body != nil {
			if next.status >= 400 {
				w.Header().Set("Content-Type", "application/problem+json")
			} else {
				w.Header().Set("Content-Type", "application/json")
			}
		}
		w.WriteHeader(next.status)
		if next.body != nil {
			_ = json.NewEncoder(w).Encode(next.body)
		}
	}))
	t.Cleanup(server.Close)
	return server, requests
}

func problem(status int, code string) map[string]any {
	return map[string]any{"type": "https://pilot.example/guide/errors#" + code, "title": code, "status": status, "detail": code, "code": code}
}

func clientOf(t *testing.T, baseURL string) (*Client, *[]time.Duration) {
	client, err := New(baseURL, "pilot_pk_test")
	if err != nil {
		t.Fatal(err)
	}
	waits := &[]time.Duration{}
	client.Sleep = func(_ context.Context, d time.Duration) error { *waits = append(*waits, d); return nil }
	return client, waits
}

func closedPort(t *testing.T) string {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	address := listener.Addr().String()
	listener.Close()
	return address
}

func TestReturnsTheAdOfA200WithTheKeyAndTheLanguage(t *testing.T) {
	withExtra := map[string]any{"added_later": "ignored"}
	for name, value := range testAd {
		withExtra[name] = value
	}
	server, requests := scripted(t, reply{200, withExtra, nil})
	client, _ := clientOf(t, server.URL)
	ad, err := client.RequestAd(context.Background(), AdRequest{Language: "tr"})
	if err != nil || ad == nil || ad.CampaignID != 7 || !ad.Sponsored {
		t.Fatalf("ad %+v, err %v", ad, err)
	}
	if (*requests)[0].uri != "/api/network/ad?language=tr" || (*requests)[0].header.Get("Authorization") != "Bearer pilot_pk_test" {
		t.Fatalf("request %+v", (*requests)[0])
	}
}

func TestGivesTheNoFillReasonAndLeavesAnEmptyLanguageOut(t *testing.T) {
	server, requests := scripted(t, reply{204, nil, map[string]string{"Pilot-No-Fill-Reason": "own_campaigns_only"}})
	client, _ := clientOf(t, server.URL)
	result, err := client.RequestAdResult(context.Background(), AdRequest{Language: ""})
	if err != nil || result.Ad != nil || result.NoFillReason != "own_campaigns_only" {
		t.Fatalf("result %+v, err %v", result, err)
	}
	if (*requests)[0].uri != "/api/network/ad" {
		t.Fatalf("uri %s", (*requests)[0].uri)
	}
}

func TestKeepsAPathOfTheBaseURL(t *testing.T) {
	server, requests := scripted(t, reply{204, nil, nil}, reply{200, map[string]any{"status": "confirmed", "first_confirmation": true}, nil})
	client, _ := clientOf(t, server.URL+"/pilot/")
	if _, err := client.RequestAd(context.Background(), AdRequest{Language: "en"}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.ConfirmDelivery(context.Background(), "t", ""); err != nil {
		t.Fatal(err)
	}
	if (*requests)[0].uri != "/pilot/api/network/ad?language=en" || (*requests)[1].uri != "/pilot/api/network/delivery" {
		t.Fatalf("requests %+v", *requests)
	}
	if _, err := New("ftp://example.org", "k"); err == nil {
		t.Fatal("an ftp base URL was accepted")
	}
}

func TestRefusesAnAdThatIsNotOneOfTheSchema(t *testing.T) {
	broken := map[string]any{}
	for name, value := range testAd {
		broken[name] = value
	}
	broken["sponsored"] = false
	server, _ := scripted(t, reply{200, broken, nil})
	client, _ := clientOf(t, server.URL)
	_, err := client.RequestAd(context.Background(), AdRequest{})
	var unexpected *UnexpectedResponseError
	if !errors.As(err, &unexpected) || !strings.Contains(unexpected.Message, "sponsored") {
		t.Fatalf("err %v", err)
	}
}

func TestWaitsRetryAfterAndRetries502And504Like503(t *testing.T) {
	server, requests := scripted(t,
		reply{429, problem(429, "rate_limited"), map[string]string{"Retry-After": "2"}},
		reply{503, problem(503, "service_unavailable"), map[string]string{"Retry-After": "1"}},
		reply{200, testAd, nil},
	)
	client, waits := clientOf(t, server.URL)
	if ad, err := client.RequestAd(context.Background(), AdRequest{}); err != nil || ad == nil {
		t.Fatalf("ad %v err %v", ad, err)
	}
	if len(*waits) != 2 || (*waits)[0] != 2*time.Second || (*waits)[1] != time.Second || len(*requests) != 3 {
		t.Fatalf("waits %v", *waits)
	}
	gateway, _ := scripted(t, reply{502, problem(502, "bad_gateway"), nil}, reply{504, problem(504, "gateway_timeout"), nil}, reply{502, problem(502, "bad_gateway"), nil})
	client, _ = clientOf(t, gateway.URL)
	_, err := client.RequestAd(context.Background(), AdRequest{})
	var apiErr *APIError
	if !errors.Is(err, ErrServiceUnavailable) || !errors.As(err, &apiErr) || apiErr.Status != 502 || apiErr.Attempts != 3 {
		t.Fatalf("err %v", err)
	}
}

func TestGivesUpAtOnceWhenRetryAfterIsBeyondTheBudgetAndNeverRetries400Or401(t *testing.T) {
	server, requests := scripted(t,
		reply{429, problem(429, "rate_limited"), map[string]string{"Retry-After": "45"}},
		reply{400, problem(400, "invalid_language"), nil},
		reply{401, problem(401, "invalid_key"), nil},
	)
	client, waits := clientOf(t, server.URL)
	_, err := client.RequestAd(context.Background(), AdRequest{})
	var apiErr *APIError
	if !errors.Is(err, ErrRateLimited) || !errors.As(err, &apiErr) || apiErr.RetryAfterSeconds != 45 || len(*waits) != 0 {
		t.Fatalf("err %v waits %v", err, *waits)
	}
	if _, err := client.RequestAd(context.Background(), AdRequest{Language: "zz"}); !errors.As(err, &apiErr) || apiErr.Code != "invalid_language" {
		t.Fatalf("err %v", err)
	}
	if _, err := client.RequestAd(context.Background(), AdRequest{}); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("err %v", err)
	}
	if len(*requests) != 3 {
		t.Fatalf("%d requests", len(*requests))
	}
}

func TestSurfacesAForced503AtOnceWhenTheCallAsksForOneAttempt(t *testing.T) {
	forced := reply{503, problem(503, "service_unavailable"), map[string]string{"Retry-After": "5"}}
	server, requests := scripted(t, forced, forced, forced, forced)
	client, waits := clientOf(t, server.URL)
	_, err := client.RequestAd(context.Background(), AdRequest{TestAnswer: "503", Retry: &RetryPolicy{MaxAttempts: 1}})
	if !errors.Is(err, ErrServiceUnavailable) || len(*waits) != 0 || (*requests)[0].header.Get("X-Pilot-Test-Answer") != "503" {
		t.Fatalf("err %v waits %v", err, *waits)
	}
	if _, err := client.RequestAd(context.Background(), AdRequest{TestAnswer: "503"}); !errors.Is(err, ErrServiceUnavailable) {
		t.Fatalf("err %v", err)
	}
	if len(*waits) != 2 || (*waits)[0] != 5*time.Second {
		t.Fatalf("the default policy's waits: %v", *waits)
	}
}

func TestConfirmsOnceAndA504IsAnUnknownOutcomeAndA503IsNotRetried(t *testing.T) {
	server, requests := scripted(t,
		reply{200, map[string]any{"status": "confirmed", "first_confirmation": true}, nil},
		reply{504, problem(504, "gateway_timeout"), nil},
		reply{503, problem(503, "service_unavailable"), map[string]string{"Retry-After": "1"}},
	)
	client, waits := clientOf(t, server.URL)
	confirmed, err := client.ConfirmDelivery(context.Background(), "tok", "")
	if err != nil || !confirmed.FirstConfirmation || (*requests)[0].body != `{"token":"tok"}` {
		t.Fatalf("confirmed %+v err %v", confirmed, err)
	}
	_, err = client.ConfirmDelivery(context.Background(), "tok", "")
	var unknown *DeliveryOutcomeUnknownError
	if !errors.As(err, &unknown) || unknown.Token != "tok" || !unknown.TimedOut {
		t.Fatalf("err %v", err)
	}
	if _, err := client.ConfirmDelivery(context.Background(), "tok", ""); !errors.Is(err, ErrServiceUnavailable) {
		t.Fatalf("err %v", err)
	}
	if len(*requests) != 3 || len(*waits) != 0 {
		t.Fatalf("%d requests, waits %v", len(*requests), *waits)
	}
}

func TestARefusedConnectionWasNotSentNeverAnUnknownOutcome(t *testing.T) {
	client, _ := clientOf(t, "http://"+closedPort(t))
	_, err := client.ConfirmDelivery(context.Background(), "tok", "")
	var transport *TransportError
	var unknown *DeliveryOutcomeUnknownError
	if !errors.As(err, &transport) || !transport.NotSent || errors.As(err, &unknown) {
		t.Fatalf("err %v", err)
	}
	if _, err := client.RequestAd(context.Background(), AdRequest{}); !errors.As(err, &transport) || !transport.NotSent {
		t.Fatalf("err %v", err)
	}
}

func TestAConfirmationWithoutAnAnswerIsAnUnknownOutcome(t *testing.T) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Close()
	client, _ := clientOf(t, "http://"+listener.Addr().String())
	client.DeliveryTimeout = 200 * time.Millisecond
	_, err = client.ConfirmDelivery(context.Background(), "tok", "")
	var unknown *DeliveryOutcomeUnknownError
	if !errors.As(err, &unknown) || !unknown.TimedOut {
		t.Fatalf("err %v", err)
	}
}

func TestRetryArithmetic(t *testing.T) {
	policy := RetryPolicy{MaxAttempts: 3, MaxTotalWait: 5 * time.Second, BaseDelay: 500 * time.Millisecond, MaxDelay: 5 * time.Second}
	if delay, ok := NextDelay(policy, 1, 0, 3, nil); !ok || delay != 3*time.Second {
		t.Fatal(delay, ok)
	}
	if _, ok := NextDelay(policy, 2, 3*time.Second, 3, nil); ok {
		t.Fatal("past the budget")
	}
	if _, ok := NextDelay(policy, 3, 0, 0, nil); ok {
		t.Fatal("past the attempts")
	}
	if delay, ok := NextDelay(policy, 2, 0, -1, func() float64 { return 1 }); !ok || delay != time.Second {
		t.Fatal(delay, ok)
	}
	if ParseRetryAfter("17", time.Now()) != 17 || ParseRetryAfter("soon", time.Now()) != -1 || ParseRetryAfter("", time.Now()) != -1 {
		t.Fatal("Retry-After")
	}
}
