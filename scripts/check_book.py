#!/usr/bin/env python3
"""Check the built book in a real browser (headless Chromium), page by page.

Usage: check_book.py BOOK_DIR SCREENS_DIR [CHROMIUM]

Serves BOOK_DIR (mdbook's output) on 127.0.0.1, opens every chapter in headless Chromium,
and fails on:
  - an image (a timeline, a figure) that did not load or did not decode;
  - a link inside the book that leads to no page, or to no element of that page;
  - a page that lost its code: an `{{#include` left unexpanded, or an empty code block;
  - a stepper (a recorded run beside a timeline) that does not show, as a reader drives it
    with the keyboard and the mouse, exactly the recorded state of the step it is at (the
    book's runs, and one made up to reach what they may not: lists cut short, no state),
    whose status line does not say a traced step in its trace line's words, or whose trace
    panel shows a line cut by its edge;
  - a timeline whose row label is cut short or runs into the plot.
It saves a full-page screenshot of each chapter, and each picture on it in the light and
the dark theme, and each stepper in both, under SCREENS_DIR, for a person to look at.

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

    def key(self, key, code, shift=False):
        """Press and release one key, as a keyboard does (to the focused element)."""
        params = {"key": key, "code": code, "windowsVirtualKeyCode": KEY_CODES[key],
                  "modifiers": 8 if shift else 0}
        self.b.call("Input.dispatchKeyEvent", self.s, type="keyDown", **params)
        self.b.call("Input.dispatchKeyEvent", self.s, type="keyUp", **params)

    def click(self, expression):
        """Click, with the mouse, the middle of the element `expression` names."""
        # After the scroll, two frames: a reader sees the page scrolled (and what a scroll
        # shows, such as the trace lines a stepper hides while they are cut) before clicking.
        box = self.js(f"""(async () => {{
          const e = {expression};
          if (!e) return null;
          e.scrollIntoView({{block: 'center'}});  // not under mdbook's menu bar
          await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
          const r = e.getBoundingClientRect();
          return {{x: r.x + r.width / 2, y: r.y + r.height / 2}};
        }})()""")
        if box is None:
            raise RuntimeError(f"nothing to click: {expression}")
        for kind in ("mousePressed", "mouseReleased"):
            self.b.call("Input.dispatchMouseEvent", self.s, type=kind, x=box["x"], y=box["y"],
                        button="left", clickCount=1)

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


KEY_CODES = {"ArrowRight": 39, "ArrowLeft": 37, "Home": 36, "End": 35}

# What the i-th stepper of a page shows: each panel's lines, the status line, the highlighted
# trace line, and where its cursor stands on the picture.
SHOWN = r"""((i) => {
  const root = document.querySelectorAll('.stepper')[i];
  const lines = name => [...root.querySelectorAll(`.stepper-${name} li .stepper-text`)].map(e => e.textContent);
  const figure = document.getElementById(root.dataset.figure);
  const cursor = figure && figure.querySelector('.stepper-cursor');
  const img = cursor && cursor.parentNode.querySelector('img');
  const current = root.querySelector('.stepper-trace .stepper-current');
  // The trace lines the list shows only in part: cut by its top or bottom edge.
  const list = root.querySelector('.stepper-trace .stepper-list').getBoundingClientRect();
  const cut = [...root.querySelectorAll('.stepper-trace li')].filter(li => {
    const r = li.getBoundingClientRect();
    const seen = getComputedStyle(li).visibility !== 'hidden' && r.bottom > list.top && r.top < list.bottom;
    return seen && (r.top < list.top - 0.5 || r.bottom > list.bottom + 0.5);
  }).map(li => li.textContent);
  return {
    running: lines('running'), ready: lines('ready'), timers: lines('timers'),
    waits: lines('waits'), output: lines('output'),
    status: root.querySelector('.stepper-status').textContent,
    slider: Number(root.querySelector('.stepper-slider').value),
    trace: current ? current.textContent : null,
    cut: cut,
    current_shown: !current || (getComputedStyle(current).visibility !== 'hidden'
      && current.getBoundingClientRect().top >= list.top - 0.5
      && current.getBoundingClientRect().bottom <= list.bottom + 0.5),
    focused: root.contains(document.activeElement),
    cursor: cursor ? cursor.getBoundingClientRect().left + cursor.offsetWidth / 2 - img.getBoundingClientRect().left : null,
    width: img ? img.getBoundingClientRect().width : null,
  };
})"""

NO_STATE = "no state recorded at this step"


def cause_text(why):
    return f"{why['what']} by {why['by'] or 'the program'} at step {why['step']}"


def entry_text(entry):
    return entry["id"] + (": " + cause_text(entry["why"]) if entry["why"] else "")


def state_at(run, k):
    index = run["steps"][k]["state"] if 0 <= k < len(run["steps"]) else None
    return None if index is None else run["states"][index]


def words(run, k):
    """What step k did, as the status line says it: the trace's words (without the `[n] `
    the status already names), or --step's for what the trace does not print."""
    step, state = run["steps"][k], state_at(run, k)
    if step["trace"] is not None:
        return re.sub(r"^\[\d+\] ", "", step["trace"])
    if step["say"] is not None:
        return f"| {step['say']}"
    if step["kind"] == "iteration":
        return f"(iteration {step['iteration']} begins)"
    if step["kind"] == "queues" and state is not None:
        return f"(queues: ready {state['ready_len']}, timers {state['timers_len']})"
    return f"({step['kind']})"


def expected(run, k):
    """What a stepper must show at step k: the same strings stepper.js builds."""
    steps, step = run["steps"], run["steps"][k]
    status = f"step {k} of {len(steps) - 1}, {step['at']:.3f} s"
    if step["iteration"] is not None:
        status += f", iteration {step['iteration']}"
    status += f": {words(run, k)}"
    said = next((s["say"] for s in reversed(steps[:k + 1]) if s["say"] is not None), None)
    trace = next((s["trace"] for s in reversed(steps[:k + 1]) if s["trace"] is not None), None)
    shown = {"status": status, "slider": k, "trace": trace,
             "output": [said if said is not None else "nothing printed yet"]}
    state = state_at(run, k)
    if state is None:
        return dict(shown, running=[NO_STATE], ready=[NO_STATE], timers=[NO_STATE], waits=[NO_STATE])
    ready = [entry_text(e) for e in state["ready"]]
    if state["ready_len"] > len(state["ready"]):
        ready.append(f"+{state['ready_len'] - len(state['ready'])} more")
    if state["ready_len"] == 0:
        ready.append("empty")
    timers = [f"due {t['due']:.3f} s, seq {t['seq']}: {t['id']}" for t in state["timers"]]
    if state["timers_len"] > len(state["timers"]):
        timers.append(f"+{state['timers_len'] - len(state['timers'])} more")
    if state["timers_len"] == 0:
        timers.append("empty")
    waits = [f"{w['id']} waits on {w['on']}" for w in state["waits"]] or ["nobody"]
    running = [entry_text(state["running"]) if state["running"] else "nothing"]
    return dict(shown, running=running, ready=ready, timers=timers, waits=waits)


def empties_after(run, k):
    """The step "run to: the ready queue empties" must stop at, or None."""
    for j in range(k + 1, len(run["steps"])):
        now, before = state_at(run, j), state_at(run, j - 1)
        if now is not None and now["ready_len"] == 0 and (before is None or before["ready_len"] > 0):
            return j
    return None


def unit_after(run, k):
    """The step the "iteration »" button (stage 5) or "run »" button (earlier) goes to."""
    steps = run["steps"]
    if any(s["iteration"] is not None for s in steps):
        j = next((j for j in range(k + 1, len(steps)) if steps[j]["iteration"] != steps[j - 1]["iteration"]), None)
    else:
        j = next((j for j in range(k + 1, len(steps)) if steps[j]["kind"] in ("run", "step")), None)
    return len(steps) - 1 if j is None else j


def check_steppers(page, name, stem, screens, theme):
    """Drive each stepper on the page as a reader does; return what went wrong."""
    problems = []
    runs = page.js("""[...document.querySelectorAll('script.stepper-run')].map(s =>
        ({text: s.textContent, timeline: s.dataset.timeline}))""")
    roots = page.js("document.querySelectorAll('.stepper .stepper-status').length")
    if roots != len(runs):
        return [f"{name}: {len(runs)} recorded runs but {roots} steppers shown"]
    for i, embedded in enumerate(runs):
        run = json.loads(embedded["text"])
        where = f"{name}: the stepper of {embedded['timeline']}"
        root = f"document.querySelectorAll('.stepper')[{i}]"
        last = len(run["steps"]) - 1

        def check(k, what, status=None):
            shown = page.js(f"{SHOWN}({i})")
            want = expected(run, k)
            if status is not None:
                want["status"] = status
            for panel, value in want.items():
                if shown[panel] != value:
                    problems.append(f"{where}, {what}: {panel} shows {shown[panel]!r}, not {value!r}")
            # A traced step's status says what its trace line says, not the code's name for it.
            traced = run["steps"][k]["trace"]
            if traced is not None and not shown["status"].endswith(re.sub(r"^\[\d+\] ", "", traced)):
                problems.append(f"{where}, {what}: the status {shown['status']!r} is not in the trace's words")
            for line in shown["cut"]:
                problems.append(f"{where}, {what}: the trace panel shows {line!r} cut by its edge")
            if not shown["current_shown"]:
                problems.append(f"{where}, {what}: the current trace line is not shown whole")
            if shown["cursor"] is None:
                problems.append(f"{where}: no cursor on the picture")
            else:
                x = run["steps"][k]["x"] * shown["width"] / 750
                if abs(shown["cursor"] - x) > 1.5:
                    problems.append(f"{where}, {what}: the cursor is at {shown['cursor']:.1f} px, not {x:.1f}")
            return shown

        def press(key, times=1):
            for _ in range(times):
                page.key(key, key)

        page.js(f"{root}.scrollIntoView(); {root}.focus(); true")
        small, large = min(5, last), min(last, max(6, len(run["steps"]) // 2))
        press("ArrowRight", small)
        if not check(small, f"after {small} right arrows")["focused"]:
            problems.append(f"{where}: the stepper lost the keyboard focus")
        press("ArrowRight", large - small)
        check(large, f"after {large} right arrows")
        press("ArrowLeft")
        check(large - 1, "after a left arrow")
        # The next iteration (or run), with the mouse; then the last key back.
        page.click(f"{root}.querySelector('.stepper-next-unit')")
        check(unit_after(run, large - 1), "after the next iteration (or run) button")
        page.js(f"{root}.focus(); true")
        press("ArrowLeft", unit_after(run, large - 1) - (large - 1))
        # Screenshot: the picture with its cursor, and the stepper beneath it (from the top of
        # the page, where mdbook's menu bar covers neither).
        box = page.js(f"""(() => {{
          scrollTo(0, 0);
          const root = {root};
          const top = document.getElementById(root.dataset.figure) || root;
          const a = top.getBoundingClientRect(), b = root.getBoundingClientRect();
          return {{x: b.x + scrollX - 4, y: a.y + scrollY - 4, width: b.width + 8, height: b.bottom - a.y + 8}};
        }})()""")
        page.screenshot(os.path.join(screens, f"{stem}-stepper{i + 1}-{theme}.png"), box)
        if theme != "light":
            continue  # the rest does not depend on the colours
        # "run to: the ready queue empties", with the mouse: from here, and from the start.
        for start in (large - 1, 0):
            if start == 0:
                page.js(f"{root}.focus(); true")
                press("Home")
            page.js(f"{root}.querySelector('.stepper-select').value = 'empty'; true")
            page.click(f"{root}.querySelector('.stepper-go')")
            target = empties_after(run, start)
            what = f"after run to: the ready queue empties, from step {start}"
            if target is None:
                check(start, what, f"not found after step {start}: the ready queue empties")
            else:
                check(target, what)
                if state_at(run, target)["ready_len"] != 0:
                    problems.append(f"{where}: run to: the ready queue empties stopped at step {target}")
        # "run to: a timer fires", from the start.
        page.js(f"{root}.focus(); true")
        press("Home")
        page.js(f"{root}.querySelector('.stepper-select').value = 'timer'; true")
        page.click(f"{root}.querySelector('.stepper-go')")
        timer = next((j for j, s in enumerate(run["steps"]) if s["kind"] in ("timer_due", "wait_timer")), None)
        if timer is None:
            check(0, "after run to: a timer fires", "not found after step 0: a timer fires")
        else:
            check(timer, "after run to: a timer fires")
        # A click on a trace line jumps to its step.
        traced = [j for j, s in enumerate(run["steps"]) if s["trace"] is not None]
        if traced:
            j = traced[min(2, len(traced) - 1)]
            page.click(f"{root}.querySelector('.stepper-line[data-step=\"{j}\"]')")
            check(j, f"after a click on the trace line of step {j}")
        # why?: at the first step with a cause to explain, a click jumps to the cause's step.
        for j in range(len(run["steps"])):
            state = state_at(run, j)
            entries = [e for e in ([state["running"]] if state and state["running"] else [])
                       + (state["ready"] if state else []) if e["why"]]
            if entries:
                page.js(f"{root}.focus(); true")
                press("Home")
                press("ArrowRight", j)
                page.click(f"{root}.querySelector('.stepper-running .stepper-why, .stepper-ready .stepper-why')")
                check(entries[0]["why"]["step"], f"after why? on {entries[0]['id']} at step {j}")
                break
    return problems


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


# A run made up to reach what the book's runs may not (yet): a state cut short ("+N more"),
# steps with no state, a wait on a descriptor, a cause chain that ends where no state was
# recorded, and one back to the program's start.
WHY_START = {"what": "call_soon", "by": None, "step": 0}
WHY_C1 = {"what": "call_soon", "by": "c1", "step": 3}
MADE_UP = {
    "title": "made up", "dropped": 0, "states_dropped": 0,
    "lanes": [{"name": "c1", "label": "first"}, {"name": "c9", "label": "reader"}],
    "steps": [
        {"at": 0.0, "x": 170.0, "iteration": None, "kind": "call_soon", "who": "c1",
         "trace": "call_soon c1", "say": None, "state": 0},
        {"at": 0.0, "x": 170.0, "iteration": None, "kind": "say", "who": None,
         "trace": None, "say": "hello", "state": None},
        {"at": 0.0, "x": 170.0, "iteration": None, "kind": "run", "who": "c1",
         "trace": "run c1", "say": None, "state": 1},
        {"at": 0.0, "x": 170.0, "iteration": None, "kind": "call_soon", "who": "c2",
         "trace": "call_soon c2", "say": None, "state": 2},
        {"at": 1.5, "x": 300.5, "iteration": None, "kind": "io_ready", "who": "c9",
         "trace": "fd 3 readable: c9", "say": None, "state": 3},
        {"at": 2.0, "x": 420.0, "iteration": None, "kind": "run", "who": "c2",
         "trace": "run c2", "say": None, "state": 4},
    ],
    "states": [
        {"running": None, "ready": [{"id": "c1", "why": WHY_START}], "ready_len": 1,
         "timers": [], "timers_len": 0, "waits": []},
        {"running": {"id": "c1", "why": WHY_START}, "ready": [], "ready_len": 0,
         "timers": [{"due": 1.25, "seq": 1, "id": "c5", "why": None}], "timers_len": 4,
         "waits": [{"id": "c9", "on": "fd 3 read"}]},
        {"running": {"id": "c1", "why": WHY_START}, "ready": [{"id": "c2", "why": WHY_C1}],
         "ready_len": 3, "timers": [], "timers_len": 0, "waits": []},
        {"running": None, "ready": [{"id": "c2", "why": WHY_C1}], "ready_len": 1,
         "timers": [], "timers_len": 0, "waits": []},
        {"running": {"id": "c2", "why": {"what": "wake", "by": "c7", "step": 1}}, "ready": [],
         "ready_len": 0, "timers": [], "timers_len": 0, "waits": []},
    ],
}


def chain_text(run, why):
    """The why? list, as stepper.js writes it: a link per cause, then where it ends."""
    lines, seen = [], set()
    while why and why["step"] not in seen:
        seen.add(why["step"])
        lines.append(f"step {why['step']}: {why['what']} by {why['by'] or 'the program'}")
        if not why["by"]:
            return lines + ["(the start)"]
        state = state_at(run, why["step"])
        running = state and state["running"]
        why = running["why"] if running and running["id"] == why["by"] else None
    return lines + ["(no earlier cause recorded)"]


def check_made_up(page, book, folder):
    """Step through MADE_UP, opened from disk, and compare every step; return what went wrong."""
    theme = os.path.abspath(os.path.join(book, "theme"))
    js = [f for f in os.listdir(theme) if re.fullmatch(r"stepper(-[0-9a-f]+)?\.js", f)]
    css = [f for f in os.listdir(theme) if re.fullmatch(r"stepper(-[0-9a-f]+)?\.css", f)]
    if not js or not css:
        return ["the book has no stepper.js or stepper.css in its theme folder"]
    picture = os.path.abspath(os.path.join(book, "timelines", "stage1-countdown.svg"))
    path = os.path.join(folder, "made-up.html")
    with open(path, "w") as f:
        f.write(f"""<!DOCTYPE html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="file://{theme}/{css[0]}"></head><body><main>
<p><img src="file://{picture}" alt="a timeline"></p>
<script type="application/json" class="stepper-run" data-timeline="stage1-countdown.svg">
{json.dumps(MADE_UP)}
</script>
<div class="stepper"></div>
<script src="file://{theme}/{js[0]}"></script></main></body></html>""")
    page.open("file://" + path)
    problems, run = [], MADE_UP
    page.js("document.querySelector('.stepper').focus(); true")
    for k in range(len(run["steps"])):
        if k:
            page.key("ArrowRight", "ArrowRight")
        shown = page.js(f"{SHOWN}(0)")
        for panel, value in expected(run, k).items():
            if shown[panel] != value:
                problems.append(f"made-up run, step {k}: {panel} shows {shown[panel]!r}, not {value!r}")
    # Shift with the right arrow: to the next run (this run has no iterations).
    page.js("document.querySelector('.stepper').focus(); true")
    page.key("Home", "Home")
    page.key("ArrowRight", "ArrowRight", shift=True)
    status = page.js("document.querySelector('.stepper-status').textContent")
    if status != expected(run, 2)["status"]:
        problems.append(f"made-up run, Shift+right arrow: went to {status!r}, not step 2")
    # run to: a descriptor becomes ready, then c2 runs, from the start.
    page.key("Home", "Home")
    for target, k in (("io", 4), ("who:c2", 5)):
        page.js(f"document.querySelector('.stepper-select').value = '{target}'; true")
        page.click("document.querySelector('.stepper-go')")
        status = page.js("document.querySelector('.stepper-status').textContent")
        if status != expected(run, k)["status"]:
            problems.append(f"made-up run, run to {target}: went to {status!r}, not step {k}")
    # At the last step, why? on the running c2 ends where no state was recorded; at step 3,
    # why? on the ready c2 goes back through c1 to the start.
    for k, selector, why in ((5, ".stepper-running .stepper-why", run["states"][4]["running"]["why"]),
                             (3, ".stepper-ready .stepper-why", WHY_C1)):
        page.js("document.querySelector('.stepper').focus(); true")
        page.key("Home", "Home")
        for _ in range(k):
            page.key("ArrowRight", "ArrowRight")
        page.click(f"document.querySelector('{selector}')")
        shown = page.js("""[...document.querySelectorAll('.stepper-why li')]
            .filter(li => !li.matches('.stepper-hint:first-child')).map(li => li.textContent)""")
        want = chain_text(run, why)
        if shown != want:
            problems.append(f"made-up run, why? at step {k}: the chain shows {shown!r}, not {want!r}")
        status = page.js("document.querySelector('.stepper-status').textContent")
        if status != expected(run, why["step"])["status"]:
            problems.append(f"made-up run, why? at step {k}: went to {status!r}, not step {why['step']}")
    return problems


# Each row label of an SVG timeline opened on its own: its text, whether it was cut short
# (an ellipsis), and how far its right end reaches past where the plot begins (the lanes'
# grid lines start there).
ROW_LABELS = r"""(() => {
  const lines = [...document.querySelectorAll('line.grid')].filter(l => l.getAttribute('y1') === l.getAttribute('y2'));
  const plot = Math.min(...lines.map(l => Number(l.getAttribute('x1'))));
  return [...document.querySelectorAll('text.muted[x="44"]')].map(t => ({
    text: t.textContent, over: t.getBBox().x + t.getBBox().width - plot,
  }));
})()"""


def check_row_labels(page, base, book):
    """Every row label of every timeline whole, and clear of the plot."""
    problems = []
    folder = os.path.join(book, "timelines")
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".svg"):
            continue
        page.open(base + "timelines/" + name)
        for label in page.js(ROW_LABELS):
            if label["text"].endswith("\u2026"):
                problems.append(f"timelines/{name}: the row label {label['text']!r} is cut short")
            elif label["over"] > -2:
                problems.append(f"timelines/{name}: the row label {label['text']!r} runs into the plot")
    return problems


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
    problems, pages, pictures, steppers = [], {}, 0, 0
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
                problems += check_steppers(page, name, stem, screens, "light")
                steppers += page.js("document.querySelectorAll('.stepper').length")
                page.open(base + name)
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
                    problems += check_steppers(page, name, stem, screens, "dark")
                    page.dark(False)
            # A reader may open the book from disk: the runs are in the pages, nothing fetched.
            with_steppers = [n for n in names if "stepper-run" in open(os.path.join(book, n)).read()]
            if with_steppers:
                page.open("file://" + os.path.abspath(os.path.join(book, with_steppers[0])))
                if not page.js("document.querySelectorAll('.stepper .stepper-status').length"):
                    problems.append(f"{with_steppers[0]}: no stepper shows when the page is opened from disk")
            with tempfile.TemporaryDirectory() as folder:
                problems += check_made_up(page, book, folder)
            problems += check_row_labels(page, base, book)
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
    print(f"book: {len(pages)} pages, {pictures} pictures, {steppers} steppers checked in Chromium; "
          f"screenshots in {screens}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
