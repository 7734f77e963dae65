// The book's steppers: a run recorded step by step (docs/src/steps/*.json, embedded in the
// page by mdbook's include, so it loads from disk too) shown beside its timeline picture.
// How to use one: the introduction, "Watching a run". The text each panel shows is also
// built by scripts/check_book.py, which steps every stepper and compares: change both.
(function () {
  "use strict";

  // The timelines are drawn 750 px wide, and a step's `x` is in those pixels.
  var SVG_WIDTH = 750;
  var NO_STATE = "no state recorded at this step";
  var count = 0;

  // --- The text of an entry (the same strings as check_book.py's) ---

  function causeText(why) {
    return why.what + " by " + (why.by || "the program") + " at step " + why.step;
  }
  function entryText(e) {
    return e.id + (e.why ? ": " + causeText(e.why) : "");
  }
  function timerText(t) {
    return "due " + t.due.toFixed(3) + " s, seq " + t.seq + ": " + t.id;
  }
  function waitText(w) {
    return w.id + " waits on " + w.on;
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function button(text, label, onclick) {
    var b = el("button", "stepper-button", text);
    b.type = "button";
    if (label) b.setAttribute("aria-label", label);
    b.addEventListener("click", onclick);
    return b;
  }

  // A panel: a title and a list the stepper refills at every step. Not a heading, nor a
  // section: seven per stepper would crowd the page's outline and landmarks.
  function panel(parent, name, title) {
    var box = el("div", "stepper-panel stepper-" + name);
    var id = "stepper-" + count + "-" + name;
    var h = el("div", "stepper-title", title);
    h.id = id;
    var list = el("ul", "stepper-list");
    list.setAttribute("aria-labelledby", id);
    box.appendChild(h);
    box.appendChild(list);
    parent.appendChild(box);
    return list;
  }

  function Stepper(script, root, run) {
    var self = this;
    this.run = run;
    this.steps = run.steps;
    this.root = root;
    this.k = 0;
    this.cursor = null;
    // Stage 5 numbers its run_once iterations; the earlier stages have none, and their
    // unit of progress is the next run of a callback or step of a task.
    this.byIteration = this.steps.some(function (s) { return s.iteration !== null; });

    root.tabIndex = 0;
    root.setAttribute("role", "group");
    root.setAttribute("aria-label", "stepper: " + run.title + " (arrow keys step)");
    root.innerHTML = "";

    var unit = this.byIteration ? "iteration" : "run";
    var bar = el("div", "stepper-controls");
    bar.appendChild(button("\u00ab " + unit, "previous " + unit, function () { self.go(self.unit(-1)); }));
    bar.appendChild(button("\u2039 step", "previous step", function () { self.go(self.k - 1); }));
    bar.appendChild(button("step \u203a", "next step", function () { self.go(self.k + 1); }));
    var next = button(unit + " \u00bb", "next " + unit, function () { self.go(self.unit(1)); });
    next.classList.add("stepper-next-unit");
    bar.appendChild(next);
    this.slider = el("input", "stepper-slider");
    this.slider.type = "range";
    this.slider.min = 0;
    this.slider.max = this.steps.length - 1;
    this.slider.value = 0;
    this.slider.setAttribute("aria-label", "step");
    this.slider.addEventListener("input", function () { self.go(Number(self.slider.value)); });
    bar.appendChild(this.slider);
    root.appendChild(bar);

    var runTo = el("div", "stepper-controls");
    var label = el("label", "stepper-label", "run to: ");
    this.target = el("select", "stepper-select");
    this.targets().forEach(function (t) {
      var o = el("option", null, t[1]);
      o.value = t[0];
      self.target.appendChild(o);
    });
    label.appendChild(this.target);
    runTo.appendChild(label);
    var go = button("go \u203a", "run to the chosen event", function () { self.runTo(self.target.value); });
    go.classList.add("stepper-go");
    runTo.appendChild(go);
    root.appendChild(runTo);

    // The current step, said aloud by screen readers as it changes.
    this.status = el("p", "stepper-status");
    this.status.setAttribute("aria-live", "polite");
    root.appendChild(this.status);

    var grid = el("div", "stepper-grid");
    var left = el("div", "stepper-column");
    var right = el("div", "stepper-column");
    grid.appendChild(left);
    grid.appendChild(right);
    root.appendChild(grid);
    this.running = panel(left, "running", "running");
    this.ready = panel(left, "ready", "ready queue");
    this.timers = panel(left, "timers", "timer heap");
    this.waits = panel(left, "waits", "waiting");
    this.output = panel(right, "output", "output");
    this.trace = panel(right, "trace", "trace");
    this.trace.tabIndex = 0; // scrollable by keyboard
    this.trace.addEventListener("scroll", function () { self.hideCut(); });
    this.why = panel(right, "why", "why?");
    this.why.appendChild(el("li", "stepper-hint", "choose why? beside an entry"));
    this.fillTrace();
    this.attachCursor(script);

    root.appendChild(el("p", "stepper-hint stepper-help",
      "keys, once the stepper has the focus: \u2190 \u2192 a step, Shift+\u2190 \u2192 " +
      (this.byIteration ? "an iteration" : "a run") + ", Home End the ends"));

    root.addEventListener("keydown", function (e) { self.key(e); });
    this.go(0);
  }

  // The choices of "run to": each task or callback that runs, and the loop's events.
  Stepper.prototype.targets = function () {
    var labels = {};
    this.run.lanes.forEach(function (l) { labels[l.name] = l.label; });
    var out = [["empty", "the ready queue empties"], ["timer", "a timer fires"]];
    if (this.steps.some(function (s) { return s.kind === "io_ready"; })) {
      out.push(["io", "a descriptor becomes ready"]);
    }
    var seen = {};
    this.steps.forEach(function (s) {
      if ((s.kind === "run" || s.kind === "step") && s.who && !seen[s.who]) {
        seen[s.who] = true;
        out.push(["who:" + s.who, s.who + (labels[s.who] ? " (" + labels[s.who] + ")" : "") + " runs"]);
      }
    });
    return out;
  };

  Stepper.prototype.state = function (k) {
    var s = this.steps[k];
    return s && s.state !== null ? this.run.states[s.state] : null;
  };

  // Does step j match the "run to" target? "empty" is the moment the queue becomes empty,
  // not every step it stays so, or the button would only ever move one step.
  Stepper.prototype.matches = function (target, j) {
    var s = this.steps[j];
    if (target === "timer") return s.kind === "timer_due" || s.kind === "wait_timer";
    if (target === "io") return s.kind === "io_ready";
    if (target === "empty") {
      var now = this.state(j), before = this.state(j - 1);
      return now !== null && now.ready_len === 0 && (before === null || before.ready_len > 0);
    }
    return (s.kind === "run" || s.kind === "step") && "who:" + s.who === target;
  };

  Stepper.prototype.runTo = function (target) {
    for (var j = this.k + 1; j < this.steps.length; j++) {
      if (this.matches(target, j)) return this.go(j);
    }
    var chosen = this.target.options[this.target.selectedIndex];
    this.say("not found after step " + this.k + ": " + (chosen ? chosen.text : target));
  };

  // The step `dir` units away: the first step of the next (previous) iteration, or the next
  // (previous) run.
  Stepper.prototype.unit = function (dir) {
    var steps = this.steps, k = this.k, j;
    if (!this.byIteration) {
      for (j = k + dir; j >= 0 && j < steps.length; j += dir) {
        if (steps[j].kind === "run" || steps[j].kind === "step") return j;
      }
      return dir > 0 ? steps.length - 1 : 0;
    }
    var starts = function (i) { return i === 0 || steps[i].iteration !== steps[i - 1].iteration; };
    if (dir > 0) {
      for (j = k + 1; j < steps.length && !starts(j); j++);
      return Math.min(j, steps.length - 1);
    }
    // Back: to the start of this iteration, or from there to the start of the one before.
    for (j = k - 1; j > 0 && !starts(j); j--);
    return Math.max(j, 0);
  };

  Stepper.prototype.key = function (e) {
    var tag = e.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || e.altKey || e.ctrlKey || e.metaKey) return;
    var to = null;
    if (e.key === "ArrowRight") to = e.shiftKey ? this.unit(1) : this.k + 1;
    else if (e.key === "ArrowLeft") to = e.shiftKey ? this.unit(-1) : this.k - 1;
    else if (e.key === "PageDown") to = this.unit(1);
    else if (e.key === "PageUp") to = this.unit(-1);
    else if (e.key === "Home") to = 0;
    else if (e.key === "End") to = this.steps.length - 1;
    if (to === null) return;
    // The page must not scroll, nor mdbook turn the page (its arrow keys), under the reader.
    e.preventDefault();
    e.stopPropagation();
    this.go(to);
  };

  Stepper.prototype.go = function (k) {
    this.k = Math.max(0, Math.min(this.steps.length - 1, k));
    var s = this.steps[this.k];
    this.slider.value = this.k;
    var text = "step " + this.k + " of " + (this.steps.length - 1) + ", " + s.at.toFixed(3) + " s" +
      (s.iteration !== null ? ", iteration " + s.iteration : "") + ": " + this.words(this.k);
    this.slider.setAttribute("aria-valuetext", text);
    this.say(text);
    this.showState();
    this.showTrace();
    if (this.cursor) this.cursor.style.left = (s.x / SVG_WIDTH * 100) + "%";
  };

  // What step k did, in the trace's words (its `[n] ` left out: the status names the
  // iteration), or, for what the trace does not print, in --step's: the program's line
  // marked `|`, the bookkeeping in brackets.
  Stepper.prototype.words = function (k) {
    var s = this.steps[k], st = this.state(k);
    if (s.trace !== null) return s.trace.replace(/^\[\d+\] /, "");
    if (s.say !== null) return "| " + s.say;
    if (s.kind === "iteration") return "(iteration " + s.iteration + " begins)";
    if (s.kind === "queues" && st) return "(queues: ready " + st.ready_len + ", timers " + st.timers_len + ")";
    return "(" + s.kind + ")";
  };

  Stepper.prototype.say = function (text) {
    this.status.textContent = text;
  };

  // One list item: its text (what the check compares), and a why? button if it has a cause.
  Stepper.prototype.item = function (list, text, why, what) {
    var self = this;
    var li = el("li");
    li.appendChild(el("span", "stepper-text", text));
    if (why) {
      li.appendChild(document.createTextNode(" "));
      var b = button("why?", "why is " + what + "?", function () { self.explain(what, why); });
      b.classList.add("stepper-why");
      li.appendChild(b);
    }
    list.appendChild(li);
  };

  Stepper.prototype.showState = function () {
    var self = this, st = this.state(this.k);
    [this.running, this.ready, this.timers, this.waits].forEach(function (l) { l.innerHTML = ""; });
    if (!st) {
      [this.running, this.ready, this.timers, this.waits].forEach(function (l) {
        self.item(l, NO_STATE);
        l.lastChild.className = "stepper-hint";
      });
      return;
    }
    if (st.running) this.item(this.running, entryText(st.running), st.running.why, st.running.id + " running");
    else this.item(this.running, "nothing");
    st.ready.forEach(function (e) { self.item(self.ready, entryText(e), e.why, e.id + " ready"); });
    if (st.ready_len > st.ready.length) this.item(this.ready, "+" + (st.ready_len - st.ready.length) + " more");
    if (st.ready_len === 0) this.item(this.ready, "empty");
    st.timers.forEach(function (t) { self.item(self.timers, timerText(t), t.why, "the timer for " + t.id + " there"); });
    if (st.timers_len > st.timers.length) this.item(this.timers, "+" + (st.timers_len - st.timers.length) + " more");
    if (st.timers_len === 0) this.item(this.timers, "empty");
    st.waits.forEach(function (w) { self.item(self.waits, waitText(w)); });
    if (st.waits.length === 0) this.item(this.waits, "nobody");
  };

  // Every trace line, once; a click on one jumps to its step.
  Stepper.prototype.fillTrace = function () {
    var self = this;
    this.traceItems = [];
    this.steps.forEach(function (s, j) {
      if (s.trace === null) return;
      var li = el("li", "stepper-line", s.trace);
      li.setAttribute("data-step", j);
      li.addEventListener("click", function () { self.go(j); });
      self.trace.appendChild(li);
      self.traceItems.push(li);
    });
  };

  // The current trace line is the last printed at or before this step; the output the same.
  Stepper.prototype.showTrace = function () {
    var k = this.k, current = null, said = null, j;
    for (j = k; j >= 0 && (current === null || said === null); j--) {
      if (current === null && this.steps[j].trace !== null) current = j;
      if (said === null && this.steps[j].say !== null) said = j;
    }
    this.output.innerHTML = "";
    var out = el("li", said === k ? "stepper-fresh" : null);
    out.appendChild(el("span", "stepper-text", said === null ? "nothing printed yet" : this.steps[said].say));
    this.output.appendChild(out);
    var list = this.trace, middle = null;
    this.traceItems.forEach(function (li) {
      var on = Number(li.getAttribute("data-step")) === current;
      li.classList.toggle("stepper-current", on);
      if (on) {
        li.setAttribute("aria-current", "step");
        middle = li.offsetTop - list.clientHeight / 2;
      } else {
        li.removeAttribute("aria-current");
      }
    });
    if (middle !== null) {
      // Scroll the list, never the page (scrollIntoView would move the reader's page): the
      // current line near the middle, and at the top the start of a line, never the end of
      // one that wraps.
      var top = 0;
      this.traceItems.forEach(function (li) { if (li.offsetTop <= middle) top = li.offsetTop; });
      list.scrollTop = top;
    }
    this.hideCut();
  };

  // A line the list's edge cuts (one that wraps, at the bottom; at the top when the list
  // is scrolled to its end, or by hand) is hidden rather than shown in part, as a lone
  // "1" or a "seq" without its number.
  Stepper.prototype.hideCut = function () {
    var top = this.trace.scrollTop, bottom = top + this.trace.clientHeight;
    this.traceItems.forEach(function (li) {
      var whole = li.offsetTop >= top - 0.5 && li.offsetTop + li.offsetHeight <= bottom + 0.5;
      li.classList.toggle("stepper-cut", !whole);
    });
  };

  // The chain of causes: why this entry is there, why the one who caused it ran, and so on
  // back to the program's start (a cause by nobody) or to a step with no state recorded.
  Stepper.prototype.chain = function (why) {
    var out = [], seen = {};
    while (why && !seen[why.step]) {
      seen[why.step] = true;
      out.push(why);
      if (!why.by) break;
      var st = this.state(why.step);
      why = st && st.running && st.running.id === why.by ? st.running.why : null;
    }
    return out;
  };

  Stepper.prototype.explain = function (what, why) {
    var self = this, chain = this.chain(why);
    this.why.innerHTML = "";
    this.why.appendChild(el("li", "stepper-hint", "why is " + what + "? (from step " + this.k + ")"));
    chain.forEach(function (c) {
      var li = el("li");
      li.appendChild(button("step " + c.step + ": " + c.what + " by " + (c.by || "the program"), null,
        function () { self.go(c.step); }));
      self.why.appendChild(li);
    });
    var last = chain[chain.length - 1];
    this.why.appendChild(el("li", "stepper-hint", last && !last.by ? "(the start)" : "(no earlier cause recorded)"));
    this.go(why.step);
    // The entry's button is gone with the old state: keep the keyboard in the chain.
    var first = this.why.querySelector("button");
    if (first) first.focus();
  };

  // A vertical line over the timeline picture, at the step's time.
  Stepper.prototype.attachCursor = function (script) {
    var src = script.getAttribute("data-timeline"), img = null, node;
    for (node = script.previousElementSibling; node && !img; node = node.previousElementSibling) {
      img = node.matches("img") ? node : node.querySelector("img");
      if (img && (img.getAttribute("src") || "").indexOf(src) === -1) img = null;
    }
    if (!img) return;
    var wrap = el("span", "stepper-figure");
    // The picture and its stepper may be apart on the page: say which is whose.
    wrap.id = "stepper-" + count + "-figure";
    this.root.setAttribute("data-figure", wrap.id);
    img.parentNode.insertBefore(wrap, img);
    wrap.appendChild(img);
    this.cursor = el("span", "stepper-cursor");
    this.cursor.setAttribute("aria-hidden", "true");
    wrap.appendChild(this.cursor);
  };

  function start() {
    var scripts = document.querySelectorAll("script.stepper-run");
    Array.prototype.forEach.call(scripts, function (script) {
      count += 1;
      var root = script.nextElementSibling;
      if (!root || !root.classList.contains("stepper")) {
        root = el("div", "stepper");
        script.parentNode.insertBefore(root, script.nextSibling);
      }
      try {
        var run = JSON.parse(script.textContent);
        if (!run.steps || !run.steps.length) throw new Error("no steps recorded");
        root.stepper = new Stepper(script, root, run);
      } catch (err) {
        root.textContent = "this run could not be shown: " + err.message;
      }
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
