// Serve one sponsored message from a Go bot: ask the network for an ad, send it by the rendering rules,
// confirm it only after the platform reported the send as successful. Standard library only.
//
//	PILOT_BASE_URL=https://pilot.example PILOT_API_KEY=pilot_pk_... BOT_TOKEN=123:abc \
//	  go run serve_ad.go <chat_id> [language_code]
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"time"
)

var (
	pilotBaseURL = os.Getenv("PILOT_BASE_URL") // e.g. https://pilot.example
	pilotAPIKey  = os.Getenv("PILOT_API_KEY")  // keep it on your server
	httpClient   = &http.Client{Timeout: 10 * time.Second}
)

type Ad struct {
	CampaignID    int     `json:"campaign_id"`
	Title         string  `json:"title"`
	Text          string  `json:"text"`
	ButtonText    string  `json:"button_text"`
	ImageURL      *string `json:"image_url"`
	ClickURL      string  `json:"click_url"`
	DeliveryToken string  `json:"delivery_token"`
	ExpiresIn     int     `json:"expires_in"`
}

// PilotError is an error answer of the network: switch on Code (the publishers guide, section 3: {base_url}/guide).
type PilotError struct {
	Status     int
	Code       string `json:"code"`
	RetryAfter string
}

func (e *PilotError) Error() string { return fmt.Sprintf("%d %s", e.Status, e.Code) }

// pilot makes one call to the network API: it decodes a 200 into out, reports a 204 as false.
func pilot(method, path string, body any, out any) (bool, error) {
	var payload bytes.Buffer
	if body != nil {
		if err := json.NewEncoder(&payload).Encode(body); err != nil {
			return false, err
		}
	}
	req, err := http.NewRequest(method, pilotBaseURL+path, &payload)
	if err != nil {
		return false, err
	}
	req.Header.Set("Authorization", "Bearer "+pilotAPIKey)
	req.Header.Set("Content-Type", "application/json")
	res, err := httpClient.Do(req)
	if err != nil {
		return false, err
	}
	defer res.Body.Close()
	switch res.StatusCode {
	case http.StatusOK:
		return true, json.NewDecoder(res.Body).Decode(out)
	case http.StatusNoContent:
		return false, nil
	default:
		problem := &PilotError{Status: res.StatusCode, RetryAfter: res.Header.Get("Retry-After")}
		_ = json.NewDecoder(res.Body).Decode(problem)
		return false, problem
	}
}

// RequestAd returns an Ad, or nil when nothing matches. languageCode as the platform gives it (en, pt-br).
func RequestAd(languageCode string) (*Ad, error) {
	if languageCode == "" {
		languageCode = "en"
	}
	var ad Ad
	found, err := pilot("GET", "/api/network/ad?"+url.Values{"language": {languageCode}}.Encode(), nil, &ad)
	if err != nil || !found {
		return nil, err
	}
	return &ad, nil
}

func ConfirmDelivery(deliveryToken string) error {
	var confirmed struct {
		Status            string `json:"status"`
		FirstConfirmation bool   `json:"first_confirmation"`
	}
	_, err := pilot("POST", "/api/network/delivery", map[string]string{"token": deliveryToken}, &confirmed)
	return err
}

// Render gives sendMessage parameters: a Sponsored label, title and text as plain text (no parse_mode),
// click_url unchanged as the button's URL.
func Render(ad *Ad, chatID int64) map[string]any {
	return map[string]any{
		"chat_id": chatID,
		"text":    "Sponsored\n" + ad.Title + "\n\n" + ad.Text,
		"reply_markup": map[string]any{
			"inline_keyboard": [][]map[string]string{{{"text": ad.ButtonText, "url": ad.ClickURL}}},
		},
	}
}

// errRefused: the platform answered with an error, so nothing was sent.
var errRefused = errors.New("the platform refused the send")

// Telegram makes a Bot API call: nil once the platform answered ok, errRefused for an error answer,
// any other error when there was no answer (the message may have arrived).
func Telegram(method string, params any) error {
	root := os.Getenv("TELEGRAM_API_ROOT")
	if root == "" {
		root = "https://api.telegram.org"
	}
	body, err := json.Marshal(params)
	if err != nil {
		return err
	}
	res, err := httpClient.Post(root+"/bot"+os.Getenv("BOT_TOKEN")+"/"+method, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer res.Body.Close()
	var answer struct {
		OK bool `json:"ok"`
	}
	if err := json.NewDecoder(res.Body).Decode(&answer); err != nil {
		return err
	}
	if !answer.OK {
		return errRefused
	}
	return nil
}

func ServeAd(chatID int64, languageCode string) (string, error) {
	ad, err := RequestAd(languageCode)
	if err != nil {
		return "", err
	}
	if ad == nil {
		return "no_ad", nil // 204: send nothing
	}
	if err := Telegram("sendMessage", Render(ad, chatID)); errors.Is(err, errRefused) {
		return "send_failed", nil // an error answer: not sent, never confirm
	} else if err != nil {
		return "send_unknown", nil // no answer: it may have arrived; neither confirm nor send again
	}
	if err := ConfirmDelivery(ad.DeliveryToken); err != nil { // the platform said ok
		return "", err
	}
	return "delivered", nil
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: serve_ad <chat_id> [language_code]")
		os.Exit(2)
	}
	chatID, err := strconv.ParseInt(os.Args[1], 10, 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "usage: serve_ad <chat_id> [language_code]")
		os.Exit(2)
	}
	languageCode := "en"
	if len(os.Args) > 2 {
		languageCode = os.Args[2]
	}
	outcome, err := ServeAd(chatID, languageCode)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(outcome)
}
