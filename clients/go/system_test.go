package networkclient

// The client against the running system (tests/publishers/clients.test.ts starts it and gives):
// PILOT_BASE_URL, PILOT_API_KEY (an approved platform's live key, a campaign in "en" for it), PILOT_OWN_KEY
// (a live key whose only match is its own account's campaign), PILOT_TEST_KEY (a test key). Without them
// these tests are skipped; the system test that runs them fails on any skip.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func systemClient(t *testing.T, keyVariable string) *Client {
	t.Helper()
	base := os.Getenv("PILOT_BASE_URL")
	if base == "" {
		t.Skip("PILOT_BASE_URL and the keys name the running system")
	}
	client, err := New(base, os.Getenv(keyVariable))
	if err != nil {
		t.Fatal(err)
	}
	return client
}

func TestSystemCopiesTheSchemasOfTheServedDocumentUnchanged(t *testing.T) {
	systemClient(t, "PILOT_API_KEY")
	response, err := http.Get(os.Getenv("PILOT_BASE_URL") + "/api/network/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer response.Body.Close()
	var document struct {
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.NewDecoder(response.Body).Decode(&document); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Ad", "DeliveryConfirmed", "Problem"} {
		if !reflect.DeepEqual(Schemas[name], document.Components.Schemas[name]) {
			t.Errorf("schemas.json's %s differs from the served document: copy components.schemas again", name)
		}
	}
	var fields []string
	for i := 0; i < reflect.TypeOf(Ad{}).NumField(); i++ {
		fields = append(fields, reflect.TypeOf(Ad{}).Field(i).Tag.Get("json"))
	}
	var required []string
	for _, name := range Schemas["Ad"]["required"].([]any) {
		required = append(required, name.(string))
	}
	sort.Strings(fields)
	sort.Strings(required)
	if !reflect.DeepEqual(fields, required) {
		t.Errorf("Ad's fields %v, the schema's %v", fields, required)
	}
}

func TestSystemGetsAnAdAndConfirmsItOnceAndIdempotently(t *testing.T) {
	client := systemClient(t, "PILOT_API_KEY")
	ad, err := client.RequestAd(context.Background(), AdRequest{Language: "en-US"})
	if err != nil || ad == nil || !ad.Sponsored || !strings.HasPrefix(ad.ClickURL, os.Getenv("PILOT_BASE_URL")+"/api/network/click/") {
		t.Fatalf("ad %+v err %v", ad, err)
	}
	for _, first := range []bool{true, false} {
		confirmed, err := client.ConfirmDelivery(context.Background(), ad.DeliveryToken, "")
		if err != nil || confirmed.FirstConfirmation != first {
			t.Fatalf("confirmed %+v err %v", confirmed, err)
		}
	}
}

func TestSystemSaysWhyA204HasNoAd(t *testing.T) {
	result, err := systemClient(t, "PILOT_OWN_KEY").RequestAdResult(context.Background(), AdRequest{Language: "en"})
	if err != nil || result.Ad != nil || result.NoFillReason != "own_campaigns_only" {
		t.Fatalf("result %+v err %v", result, err)
	}
}

func TestSystemAnswersTheDocumentedErrors(t *testing.T) {
	client := systemClient(t, "PILOT_API_KEY")
	var apiErr *APIError
	if _, err := client.RequestAd(context.Background(), AdRequest{Language: "zz"}); !errors.As(err, &apiErr) || apiErr.Status != 400 || apiErr.Code != "invalid_language" {
		t.Fatalf("err %v", err)
	}
	if _, err := client.ConfirmDelivery(context.Background(), "not-a-token", ""); !errors.As(err, &apiErr) || apiErr.Code != "invalid_token" {
		t.Fatalf("err %v", err)
	}
	wrong, _ := New(os.Getenv("PILOT_BASE_URL"), "pilot_pk_not_a_key")
	if _, err := wrong.RequestAd(context.Background(), AdRequest{}); !errors.Is(err, ErrUnauthorized) || !errors.As(err, &apiErr) || apiErr.Code != "invalid_key" {
		t.Fatalf("err %v", err)
	}
}

func TestSystemWorksInTheSandboxAndSurfacesForcedAnswersAtOnceWhenAsked(t *testing.T) {
	client := systemClient(t, "PILOT_TEST_KEY")
	var waits int
	client.OnRetry = func(RetryEvent) { waits++ }
	ctx := context.Background()
	ad, err := client.RequestAd(ctx, AdRequest{})
	if err != nil || ad == nil || ad.CampaignID != 4294967295 || !strings.HasPrefix(ad.Title, "Test ad") {
		t.Fatalf("ad %+v err %v", ad, err)
	}
	if result, err := client.RequestAdResult(ctx, AdRequest{TestAnswer: "204"}); err != nil || result.NoFillReason != "no_active_campaign" {
		t.Fatalf("result %+v err %v", result, err)
	}
	once := &RetryPolicy{MaxAttempts: 1}
	if _, err := client.RequestAd(ctx, AdRequest{TestAnswer: "429", Retry: once}); !errors.Is(err, ErrRateLimited) {
		t.Fatalf("err %v", err)
	}
	if _, err := client.RequestAd(ctx, AdRequest{TestAnswer: "503", Retry: once}); !errors.Is(err, ErrServiceUnavailable) || waits != 0 {
		t.Fatalf("err %v, %d waits", err, waits)
	}
	var apiErr *APIError
	if _, err := client.ConfirmDelivery(ctx, ad.DeliveryToken, "404"); !errors.As(err, &apiErr) || apiErr.Status != 404 || apiErr.Code != "token_expired" {
		t.Fatalf("err %v", err)
	}
	if _, err := client.ConfirmDelivery(ctx, ad.DeliveryToken, "503"); !errors.Is(err, ErrServiceUnavailable) {
		t.Fatalf("err %v", err)
	}
	if confirmed, err := client.ConfirmDelivery(ctx, ad.DeliveryToken, ""); err != nil || !confirmed.FirstConfirmation {
		t.Fatalf("confirmed %+v err %v", confirmed, err)
	}
}
