#!/usr/bin/env bash
# The book, checked in a real browser: build it, open every page in headless Chromium, and
# fail on a picture that does not load, a link inside the book that leads nowhere, or a page
# that lost its included code. Screenshots of every chapter, and of every picture in the
# light and the dark theme, go to target/book-screens/ for a person to look at.
# Installs what it needs: mdbook (cargo) and Debian's chromium (apt-get), if missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v mdbook >/dev/null; then
    cargo install --locked mdbook
fi
chromium=$(command -v chromium || true)
if [ -z "$chromium" ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    chromium=$(command -v chromium)
fi

mdbook build docs >/dev/null 2>&1 || mdbook build docs # a failed build shows its log
screens=target/book-screens
rm -rf "$screens"
# Bounded: a browser that hangs is stopped after fifteen minutes, whatever the driver waits
# for: a bound only, long enough that a slow, loaded two-core runner is not taken for a hang.
timeout 900 python3 scripts/check_book.py docs/book "$screens" "$chromium"
