#!/usr/bin/env bash
# Installs Debian's chromium for the web service's browser tests when it is missing (idempotent, quiet).
# Playwright's own browser download does not work here; the tests drive /usr/bin/chromium with playwright-core.
set -euo pipefail
if [[ -x /usr/bin/chromium ]]; then exit 0; fi
export DEBIAN_FRONTEND=noninteractive
SUDO=""
if [[ "$(id -u)" != "0" ]]; then SUDO="sudo"; fi
if ! $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1; then
  $SUDO apt-get update -qq >/dev/null
  $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
test -x /usr/bin/chromium
