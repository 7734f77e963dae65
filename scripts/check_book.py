#!/usr/bin/env python3
"""Check the built book in a real browser (headless Chromium), page by page.

Usage: check_book.py BOOK_DIR SCREENS_DIR [CHROMIUM]

Serves BOOK_DIR (mdbook's output) on 127.0.0.1, opens every chapter in headless Chromium,
and fails on:
  - an image (a timeline, a figure) that did not load or did not decode;
  - a link inside the book that leads to no page, or to no element of that page;
  - a page that lost its code: an `{{#include` left unexpanded, or an empty code block.
It saves a full-page screenshot of each chapter, and each picture on it in the light and
the dark theme, under SCREENS_DIR, for a person to look at.

Chromium is driven through the DevTools protocol over a pipe (--remote-debugging-pipe:
commands on the child's fd 3, answers on its fd 4), so nothing but Python's standard
library is needed. Every wait is bounded; Chromium is stopped by the PID we started.
"""

import base64
import functools
import http.server
import json
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

WAIT = 30.0  # seconds any one browser step may take


class Browser:
    """One headless Chromium, spoken to over its DevTools pipe."""

    def __init__(self, chromium, profile):
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()
        flags = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--hide-scrollbars", "--remote-debugging-pipe", f"--user-data-dir={profile}",
            "about:blank",
        ]
        quoted = " ".join(f"'{a}'" for a in [chromium] + flags)
        # The child sees the pipes as fds 3 and 4, where --remote-debugging-pipe looks.
        self.proc = subprocess.Popen(
            ["bash", "-c", f"exec {quoted} 3<&{to_child_r} 4>&{from_child_w}"],
            pass_fds=(to_child_r, from_child_w),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the browser did not answer in time")
            ready, _, _ = select.select([self.from_child], [], [], left)
            if ready:
                chunk = os.read(self.from_child, 1 << 16)
                if not chunk:
                    raise RuntimeError("the browser closed its pipe")
                self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, session=None, **params):
        """Send one command and return its result (events that arrive meanwhile are kept)."""
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self.to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + WAIT
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def wait_event(self, method, session):
        deadline = time.monotonic() + WAIT
        while True:
            for i, event in enumerate(self.events):
                if event.get("method") == method and event.get("sessionId") == session:
                    del self.events[i]
                    return event
            self.events.append(self._read_message(deadline))

    def close(self):
        try:
            self.call("Browser.close")
        except (RuntimeError, TimeoutError, OSError):
            pass  # it may be gone already; it is killed below in any case
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class Page:
    """One tab."""

    def __init__(self, browser):
        self.b = browser
        target = browser.call("Target.createTarget", url="about:blank")["targetId"]
        self.s = browser.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        browser.call("Page.enable", self.s)
        browser.call("Runtime.enable", self.s)
        browser.call("Emulation.setDeviceMetricsOverride", self.s,
                     width=1000, height=900, deviceScaleFactor=1, mobile=False)

    def open(self, url):
        self.b.events.clear()
        self.b.call("Page.navigate", self.s, url=url)
        self.b.wait_event("Page.loadEventFired", self.s)
        # Pictures decode after the load event at the latest; wait for each to settle.
        self.js("Promise.all([...document.images].map(i => i.decode().catch(() => null)))")

    def js(self, expression):
        result = self.b.call("Runtime.evaluate", self.s, expression=expression,
                             awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def dark(self, on):
        value = "dark" if on else "light"
        self.b.call("Emulation.setEmulatedMedia", self.s,
                    features=[{"name": "prefers-color-scheme", "value": value}])
        # mdBook remembers a theme the reader chose; forget it, so it follows the preference.
        self.js("localStorage.removeItem('mdbook-theme'); true")

    def screenshot(self, path, clip=None):
        params = {"format": "png", "captureBeyondViewport": True}
        if clip is None:
            metrics = self.b.call("Page.getLayoutMetrics", self.s)["cssContentSize"]
            clip = {"x": 0, "y": 0, "width": metrics["width"], "height": min(metrics["height"], 16000)}
        params["clip"] = dict(clip, scale=1)
        data = self.b.call("Page.captureScreenshot", self.s, **params)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))


INSPECT = r"""(() => {
  const main = document.querySelector('main') || document.body;
  const images = [...main.querySelectorAll('img')].map(i => ({
    src: i.getAttribute('src'), ok: i.complete && i.naturalWidth > 0,
    box: (r => ({x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height}))(i.getBoundingClientRect()),
  }));
  const links = [...document.querySelectorAll('a[href]')].map(a => a.href);
  const ids = [...document.querySelectorAll('[id]')].map(e => e.id);
  const code = [...main.querySelectorAll('pre code')].map(c => c.textContent);
  const prose = main.cloneNode(true);
  prose.querySelectorAll('code').forEach(c => c.remove());  // text *about* includes is code
  return {images, links, ids, code, text: prose.textContent, title: document.title};
})()"""


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass  # one line per request would drown the findings


def serve(root):
    handler = functools.partial(Quiet, directory=root)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def chapters(book):
    """The pages of the book, in the order of its table of contents."""
    tocs = [f for f in os.listdir(book) if re.fullmatch(r"toc(-[0-9a-f]+)?\.js", f)] or ["index.html"]
    toc = open(os.path.join(book, tocs[0])).read()
    names = []
    for name in re.findall(r'href="([a-z0-9_-]+\.html)"', toc):
        if name not in names and name not in ("print.html", "404.html"):
            names.append(name)
    if not names:
        raise SystemExit("no chapters found in the table of contents")
    return names


def main():
    # A `timeout` that stops us must not orphan the browser: exit through `finally`.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(124))
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    book, screens = sys.argv[1], sys.argv[2]
    chromium = sys.argv[3] if len(sys.argv) > 3 else "chromium"
    os.makedirs(screens, exist_ok=True)
    names = chapters(book)
    server = serve(book)
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    problems, pages, pictures = [], {}, 0
    with tempfile.TemporaryDirectory() as profile:
        browser = Browser(chromium, profile)
        try:
            page = Page(browser)
            for name in names:
                page.open(base + name)
                page.dark(False)
                page.open(base + name)
                seen = page.js(INSPECT)
                pages[name] = seen
                stem = name[:-len(".html")]
                if "{{#" in seen["text"] or any("{{#include" in c for c in seen["code"]):
                    problems.append(f"{name}: an include was left unexpanded")
                empty = sum(1 for c in seen["code"] if not c.strip())
                if empty:
                    problems.append(f"{name}: {empty} empty code block(s)")
                for image in seen["images"]:
                    if not image["ok"]:
                        problems.append(f"{name}: the picture {image['src']} did not load")
                page.screenshot(os.path.join(screens, f"{stem}.png"))
                shown = [im for im in seen["images"] if im["ok"] and im["box"]["width"] > 0]
                for i, image in enumerate(shown):
                    pictures += 1
                    page.screenshot(os.path.join(screens, f"{stem}-picture{i + 1}-light.png"), image["box"])
                if shown:
                    page.dark(True)
                    page.open(base + name)
                    theme = page.js("document.documentElement.className")
                    dark = [im for im in page.js(INSPECT)["images"] if im["ok"] and im["box"]["width"] > 0]
                    for i, image in enumerate(dark):
                        page.screenshot(os.path.join(screens, f"{stem}-picture{i + 1}-dark.png"), image["box"])
                    if "light" in theme.split():
                        problems.append(f"{name}: the dark preference did not give a dark theme ({theme})")
                    page.dark(False)
        finally:
            browser.close()
            server.shutdown()
    # Links inside the book: to a page that exists, and to an element of it.
    for name, seen in pages.items():
        for link in seen["links"]:
            if not link.startswith(base):
                continue  # outside the book: not this script's business
            parsed = urllib.parse.urlparse(link)
            target = parsed.path.lstrip("/") or "index.html"
            if not os.path.exists(os.path.join(book, urllib.parse.unquote(target))):
                problems.append(f"{name}: a link to {target}, which does not exist")
            elif parsed.fragment and target in pages:
                if urllib.parse.unquote(parsed.fragment) not in pages[target]["ids"]:
                    problems.append(f"{name}: a link to {target}#{parsed.fragment}, no such place")
    for problem in problems:
        print(f"book: {problem}")
    print(f"book: {len(pages)} pages, {pictures} pictures checked in Chromium; screenshots in {screens}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
