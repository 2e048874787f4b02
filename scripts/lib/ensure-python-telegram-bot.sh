#!/usr/bin/env bash
# Installs Debian's python-telegram-bot for the guide's Python bot snippet (docs/snippets/ptb_bot.py) when
# it is missing (idempotent, quiet). PyPI is not reachable from the project's machines; Debian's package
# (version 13, for Debian's own /usr/bin/python3, not a pyenv or venv interpreter) is what can be installed.
set -euo pipefail
if /usr/bin/python3 -c 'import telegram.ext' >/dev/null 2>&1; then exit 0; fi
export DEBIAN_FRONTEND=noninteractive
SUDO=""
if [[ "$(id -u)" != "0" ]]; then SUDO="sudo"; fi
if ! $SUDO apt-get install -y -qq --no-install-recommends python3-python-telegram-bot >/dev/null 2>&1; then
  $SUDO apt-get update -qq >/dev/null
  $SUDO apt-get install -y -qq --no-install-recommends python3-python-telegram-bot >/dev/null
fi
/usr/bin/python3 -c 'import telegram.ext'
