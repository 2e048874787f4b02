"""Serve one sponsored message from a Python bot: ask the network for an ad, send it by the rendering rules,
confirm it only after the platform reported the send as successful. Standard library only (Python 3.8+).

    PILOT_BASE_URL=https://pilot.example PILOT_API_KEY=pilot_pk_... BOT_TOKEN=123:abc \
      python3 serve_ad.py <chat_id> [language_code]

In an aiogram or python-telegram-bot handler, call serve_ad(chat_id, language_code) through
asyncio.to_thread (these calls block), or send render(ad) with your library's send_message.
"""
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

PILOT_BASE_URL = os.environ["PILOT_BASE_URL"]  # e.g. https://pilot.example
PILOT_API_KEY = os.environ["PILOT_API_KEY"]  # keep it on your server
BOT_API = "{}/bot{}".format(os.environ.get("TELEGRAM_API_ROOT", "https://api.telegram.org"), os.environ["BOT_TOKEN"])


class PilotError(Exception):
    """An error answer of the network: switch on code (the publishers guide, section 3: {base_url}/guide)."""

    def __init__(self, status, code, retry_after):
        super().__init__("{} {}".format(status, code))
        self.status, self.code, self.retry_after = status, code, retry_after


def pilot(method, path, body=None):
    """One call to the network API: the JSON body of a 200, None for a 204, PilotError otherwise."""
    request = urllib.request.Request(
        PILOT_BASE_URL + path,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": "Bearer " + PILOT_API_KEY, "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response) if response.status == 200 else None
    except urllib.error.HTTPError as error:
        problem = json.load(error) if "json" in error.headers.get("Content-Type", "") else {}
        raise PilotError(error.code, problem.get("code"), error.headers.get("Retry-After")) from None


def request_ad(language_code):
    """An Ad (dict), or None when nothing matches. language_code as the platform gives it (en, pt-br)."""
    return pilot("GET", "/api/network/ad?" + urllib.parse.urlencode({"language": language_code or "en"}))


def confirm_delivery(delivery_token):
    return pilot("POST", "/api/network/delivery", {"token": delivery_token})


def render(ad, chat_id):
    """sendMessage parameters: a Sponsored label, title and text as plain text (no parse_mode), click_url unchanged."""
    return {
        "chat_id": chat_id,
        "text": "Sponsored\n{}\n\n{}".format(ad["title"], ad["text"]),
        "reply_markup": {"inline_keyboard": [[{"text": ad["button_text"], "url": ad["click_url"]}]]},
    }


def telegram(method, params):
    """A Bot API call: the result, or urllib.error.HTTPError for an error answer (nothing was sent)."""
    request = urllib.request.Request(
        "{}/{}".format(BOT_API, method), data=json.dumps(params).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)["result"]


def serve_ad(chat_id, language_code):
    ad = request_ad(language_code)
    if ad is None:
        return "no_ad"  # 204: send nothing
    try:
        telegram("sendMessage", render(ad, chat_id))
    except urllib.error.HTTPError:
        return "send_failed"  # an error answer: not sent, never confirm
    except OSError:
        return "send_unknown"  # no answer: it may have arrived; neither confirm nor send again
    confirm_delivery(ad["delivery_token"])  # the platform said ok
    return "delivered"


if __name__ == "__main__":
    print(serve_ad(int(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "en"))
