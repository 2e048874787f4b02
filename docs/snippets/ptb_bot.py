"""A python-telegram-bot bot that answers /ad with one sponsored message: ask the network (serve_ad.py, beside
this file), send the ad by the rendering rules, confirm it only after the platform reported the send as
successful. Written for python-telegram-bot 13 (Debian's python3-python-telegram-bot).

    PILOT_BASE_URL=https://pilot.example PILOT_API_KEY=pilot_pk_... BOT_TOKEN=123:abc python3 ptb_bot.py
"""
import logging
import os

from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import TelegramError
from telegram.ext import CommandHandler, Updater

from serve_ad import PilotError, confirm_delivery, request_ad

log = logging.getLogger("ptb_bot")


def ad_command(update, context):
    try:
        ad = request_ad(update.effective_user.language_code)  # as the platform gives it: en, pt-br
    except PilotError as error:
        log.warning("no ad: %s", error)  # 429/503: try again after error.retry_after; 401: check the key
        return
    if ad is None:
        log.info("no_ad")  # 204: send nothing
        return
    try:
        context.bot.send_message(
            chat_id=update.effective_chat.id,
            text="Sponsored\n{}\n\n{}".format(ad["title"], ad["text"]),  # plain text: no parse_mode
            reply_markup=InlineKeyboardMarkup([[InlineKeyboardButton(ad["button_text"], url=ad["click_url"])]]),
        )
    except TelegramError as error:
        # An error answer (nothing was sent) or no answer (TimedOut: it may have arrived):
        # either way, never confirm and never send it again.
        log.warning("send_failed: %s", error)
        return
    confirm_delivery(ad["delivery_token"])  # the platform said ok
    log.info("delivered")


def main():
    api_root = os.environ.get("TELEGRAM_API_ROOT", "https://api.telegram.org")
    updater = Updater(os.environ["BOT_TOKEN"], base_url=api_root + "/bot", use_context=True)
    updater.dispatcher.add_handler(CommandHandler("ad", ad_command))
    updater.start_polling()
    log.info("polling")
    updater.idle()  # until SIGINT or SIGTERM


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(name)s %(levelname)s %(message)s")
    main()
