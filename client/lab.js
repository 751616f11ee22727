// The rollouts lab in the page: takes over the widgets the build pre-rendered.
//
// Every `section.lab[data-lab]` arrives with its recorded results already in
// place and its controls disabled, so readers without JavaScript (or whose
// browser cannot run Python) still see correct numbers. This script starts
// one Web Worker per page running the same Python core (lab-worker.js), then
// enables the controls and re-renders results through the core on each
// change. The markup is described in docs/lab-widgets.md, the worker protocol in docs/workers.md
// (its client, shared with the cells, is client/python/python-worker.mjs).
//
// Python (megabytes: the build counts them, describeDownload) starts only when needed: when a lab comes near the
// viewport or on the first interaction with one — on interaction only when the
// reader asked to save data — and at once when the address carries lab
// settings (the reader came for that lab). Every fact about a control (range,
// address parameter, presets) is read from the markup the build wrote from
// rollout_lab/widgets/; nothing here knows a widget by name.

import { connectCopyButton } from "./common/copy-button.mjs";
import { describeDownload, readRuntimeUrls, readStartBytes, STARTING_TEXT } from "./common/names.mjs";
import { createProgress, updateProgress } from "./common/progress.mjs";
import { PythonWorker } from "./python/python-worker.mjs";

const START_TIMEOUT_SECONDS = 30;
// A pause this long commits what is typed (as Enter and leaving the field
// do): longer than the gap between keys of a slow typist, so "0.25" is never
// checked at "0." and "1, 0.75" never at "1,". Sliders and buttons commit at once.
const TYPING_DELAY_MS = 800;
// Start Python when a lab comes within this distance of the viewport.
const NEAR_VIEWPORT = "50% 0px";

/** A log slider's mapping: position p stands for 2^(p / steps), written to two significant digits, within the range. */
function sliderValue(slider) {
  const exact = 2 ** (Number(slider.value) / Number(slider.dataset.stepsPerDoubling));
  const snapped = Number(exact.toPrecision(2));
  return String(Math.min(Math.max(snapped, Number(slider.dataset.low)), Number(slider.dataset.high)));
}

function sliderPosition(slider, number) {
  const position = Math.round(Number(slider.dataset.stepsPerDoubling) * Math.log2(number));
  return Math.min(Math.max(position, Number(slider.min)), Number(slider.max));
}

/** A whole number as typed ("+6", " 6 "), or null. */
function wholeNumber(text) {
  return /^\s*[+-]?\d{1,15}\s*$/.test(text) ? Number(text) : null;
}

/** One lab widget: its controls, its results, and the renders it asks the runtime for. */
class LabWidget {
  constructor(section, runtime) {
    this.section = section;
    this.runtime = runtime;
    this.name = section.dataset.lab;
    this.status = section.querySelector("[data-lab-status]");
    this.form = section.querySelector("[data-lab-controls]");
    this.results = section.querySelector("[data-lab-results]");
    this.pending = section.querySelector("[data-lab-pending]");
    this.announcer = section.querySelector("[data-lab-announce]");
    this.recordedSettings = readRecordedSettings(section);
    this.fieldNames = Object.keys(this.recordedSettings);
    this.resetButton = this.form.querySelector("[data-lab-reset]");
    // Settings mirrored in the page address, {name: parameter}; only the page's first widget marked for it.
    this.addressParameters = {};
    this.liveStatus = null; // The status line's text once the runtime is live.
    this.copyButton = null; // "Copy link", on the widget whose settings live in the address.
    this.showingRecorded = false; // True while the results are the recorded run standing in for the reader's settings.

    this.inFlight = false;
    this.renderAgain = false;
    this.editedFields = new Set();
    this.typingTimer = null;
    this.committed = null; // The settings last rendered or refused, as JSON: committing them again changes nothing.
    this.shownSettings = this.recordedSettings; // The settings the results on screen are for.
    this.placeErrors();
    this.connectControls();
  }

  /** Each field's error message right after the field (the build puts it last in the field's box). */
  placeErrors() {
    for (const name of this.fieldNames) {
      const input = this.field(name);
      const error = this.form.querySelector(`[data-error-for="${name}"]`);
      if (input !== null && error !== null) {
        (input.closest(".lab-stepper") ?? input).after(error);
      }
    }
  }

  /**
   * A "Copy link" button for the widget whose settings live in the address. Like the controls, it waits for
   * Python: until the lab computes live there is no result of the reader's to share (a link's settings are only
   * being loaded, or Python could not start). Meanwhile the status line, which says why, describes it.
   */
  offerCopyLink() {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "lab-copy-link";
    button.textContent = "Copy link";
    button.disabled = true;
    this.status.id ||= `${this.section.id || "lab"}-status`;
    button.setAttribute("aria-describedby", this.status.id);
    this.copyButton = button;
    this.form.append(button);
    connectCopyButton(
      button,
      () => this.linkToLab(),
      (link) => this.offerLinkToCopy(button, link),
    );
  }

  /** When the clipboard refuses: the link in a selected read-only field after the button, for the reader to copy. */
  offerLinkToCopy(button, link) {
    let field = this.form.querySelector(".lab-link-to-copy input");
    if (field === null) {
      const box = document.createElement("div");
      box.className = "lab-field lab-link-to-copy";
      const label = document.createElement("label");
      label.textContent = "Link to these settings";
      field = document.createElement("input");
      field.type = "text";
      field.readOnly = true;
      field.id = `${this.section.id || "lab"}-link-to-copy`;
      label.htmlFor = field.id;
      box.append(label, field);
      button.after(box);
    }
    field.value = link;
    field.focus();
    field.select();
  }

  /** Settings as the reader reads them: "T = 2, K = 8" for the address's widget, else by the fields' labels. */
  describe(settings) {
    return Object.entries(settings)
      .filter(([name]) => this.field(name) !== null)
      .map(([name, value]) => {
        const label = this.form.querySelector(`label[for="${this.field(name).id}"]`).textContent;
        return `${this.addressParameters[name] ?? label.replace(/\s*\(.*\)$/, "").toLowerCase()} = ${value}`;
      })
      .join("; ");
  }

  /** Mark the results as not those of the fields (a field is invalid), and say which settings they are for; or clear that. */
  showStale(stale) {
    this.results.classList.toggle("lab-results-stale", stale);
    if (stale) {
      this.pending.textContent = `Not updated: the results below are for ${this.describe(this.shownSettings)}, the last settings accepted.`;
    }
    this.pending.hidden = !stale;
    if (stale) {
      this.keepInSight(this.pending);
    }
  }

  /**
   * The note's place is under the form; while the form sticks over the results (in use, on a desktop) that place
   * can be under the form itself. Then the note goes to the form's end, where it sticks with it and is seen.
   */
  keepInSight(note) {
    const box = note.getBoundingClientRect();
    const onTop = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    if (onTop !== null && !note.contains(onTop) && this.form.contains(onTop)) {
      this.form.append(note);
    }
  }

  field(name) {
    return this.form.elements.namedItem(name);
  }

  slider(name) {
    return this.form.elements.namedItem(`${name}-slider`);
  }

  /** Set a field as if the reader had typed it, and render at once (sliders, presets and steppers do not wait). */
  choose(name, value, { fromSlider = false } = {}) {
    this.field(name).value = value;
    this.editedFields.add(name);
    // A slider the reader moved stays where it was put (0.05 is nearest the next position up).
    this.syncHelpers(name, { moveSlider: !fromSlider });
    this.renderNow();
  }

  connectControls() {
    // Enter in a one-field form would submit it; CSP (form-action 'none')
    // would then block the navigation with a console error.
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.renderNow();
    });
    for (const name of this.fieldNames) {
      const input = this.field(name);
      if (input === null) {
        continue;
      }
      input.addEventListener("input", () => {
        this.editedFields.add(name);
        this.syncHelpers(name);
        this.renderSoon();
      });
      // Leaving the field or pressing Enter needs no waiting.
      input.addEventListener("change", () => {
        dropUnlistedValues(input);
        this.renderNow();
      });
      const slider = this.slider(name);
      if (slider !== null) {
        slider.addEventListener("input", () => this.choose(name, sliderValue(slider), { fromSlider: true }));
      }
      const box = input.closest(".lab-field");
      for (const preset of box.querySelectorAll("[data-preset]")) {
        preset.addEventListener("click", () => this.choose(name, preset.dataset.preset));
      }
      for (const stepper of box.querySelectorAll("[data-step]")) {
        stepper.addEventListener("click", () => this.step(name, Number(stepper.dataset.step)));
      }
      if (input.getAttribute("role") === "spinbutton") {
        input.addEventListener("keydown", (event) => {
          const steps = { ArrowUp: 1, ArrowDown: -1, PageUp: 10, PageDown: -10 }[event.key];
          if (steps !== undefined) {
            event.preventDefault();
            this.step(name, steps);
          }
        });
      }
      const newValue = box.querySelector("[data-new-value]");
      if (newValue !== null) {
        newValue.addEventListener("click", () => {
          const [random] = crypto.getRandomValues(new Uint32Array(1));
          const low = Number(input.dataset.low);
          const high = Number(input.dataset.high);
          this.choose(name, String(low + (random % (high - low + 1))));
        });
      }
    }
    if (this.resetButton !== null) {
      this.resetButton.addEventListener("click", () => this.reset());
    }
  }

  /** Move a whole-number field by `steps`, within its range; from the recorded value when the field holds no number. */
  step(name, steps) {
    const input = this.field(name);
    const low = Number(input.dataset.low);
    const high = Number(input.dataset.high);
    const current = wholeNumber(input.value) ?? Number(this.recordedSettings[name]);
    this.choose(name, String(Math.min(Math.max(current + steps, low), high)));
  }

  /** Keep a field's slider, presets and spin-button state in step with its text. */
  syncHelpers(name, { moveSlider = true } = {}) {
    const input = this.field(name);
    const text = input.value.trim();
    const number = Number(text);
    const slider = this.slider(name);
    if (slider !== null && text !== "" && Number.isFinite(number) && number > 0) {
      if (moveSlider) {
        slider.value = String(sliderPosition(slider, number));
      }
      slider.setAttribute("aria-valuetext", text);
    }
    for (const preset of input.closest(".lab-field").querySelectorAll("[data-preset]")) {
      preset.setAttribute("aria-pressed", String(text !== "" && Number(preset.dataset.preset) === number));
    }
    if (input.getAttribute("role") === "spinbutton") {
      const whole = wholeNumber(text);
      if (whole === null) {
        input.removeAttribute("aria-valuenow");
      } else {
        input.setAttribute("aria-valuenow", String(whole));
      }
    }
  }

  enableControls() {
    for (const element of this.form.elements) {
      element.disabled = false;
    }
    this.copyButton?.removeAttribute("aria-describedby");
  }

  readSettings() {
    const settings = {};
    for (const name of this.fieldNames) {
      const input = this.field(name);
      settings[name] = input === null ? this.recordedSettings[name] : input.value;
    }
    return settings;
  }

  writeSettings(settings) {
    for (const [name, value] of Object.entries(settings)) {
      const input = this.field(name);
      if (input !== null) {
        offerValue(input, value);
        input.value = value;
        this.editedFields.add(name);
        this.syncHelpers(name);
      }
    }
  }

  /** Settings this widget finds in the page address, e.g. ?T=2&K=8 → {temperature: "2", group_size: "8"}. */
  readAddress() {
    const query = new URLSearchParams(window.location.search);
    const settings = {};
    for (const [name, parameter] of Object.entries(this.addressParameters)) {
      if (query.has(parameter)) {
        settings[name] = query.get(parameter);
      }
    }
    return settings;
  }

  /** The page's address with this lab as its fragment: a shared link opens scrolled to the lab, not the page's top. */
  linkToLab() {
    const url = new URL(window.location.href);
    url.hash = this.section.id;
    return url.href;
  }

  /** Mirror the settings in the address, with the lab as the fragment; the recorded settings need neither. */
  writeAddress(settings) {
    const url = new URL(window.location.href);
    const names = Object.keys(this.addressParameters);
    const isRecorded = names.every((name) => settings[name] === this.recordedSettings[name]);
    for (const name of names) {
      const parameter = this.addressParameters[name];
      if (isRecorded) {
        url.searchParams.delete(parameter);
      } else {
        url.searchParams.set(parameter, settings[name]);
      }
    }
    if (!isRecorded) {
      url.hash = this.section.id;
    } else if (url.hash === `#${this.section.id}`) {
      url.hash = "";
    }
    if (url.href !== window.location.href) {
      window.history.replaceState(window.history.state, "", url.href);
    }
  }

  /** Until Python is live, say that the reader's settings are on their way and mark the numbers shown as the recorded run. */
  showLoading(settings) {
    const shown = (values) =>
      Object.entries(values)
        .map(([name, value]) => `${this.addressParameters[name]} = ${value}`)
        .join(", ");
    this.writeSettings(settings);
    this.editedFields.clear();
    this.showingRecorded = true;
    this.results.classList.add("lab-results-recorded");
    this.pending.textContent = `Shown until then: the recorded run (${shown(this.recordedSettings)}).`;
    this.pending.hidden = false;
    this.loadingText = `Loading your settings (${shown(settings)})\u2026`;
    this.status.textContent = this.loadingText;
  }

  reset() {
    this.writeSettings(this.recordedSettings);
    this.renderNow();
  }

  renderSoon() {
    clearTimeout(this.typingTimer);
    this.typingTimer = setTimeout(() => this.renderNow(), TYPING_DELAY_MS);
  }

  /** Render the current settings; while a render is running, only the latest change is rendered next. */
  renderNow({ announce = true } = {}) {
    clearTimeout(this.typingTimer);
    if (this.inFlight) {
      this.renderAgain = true;
      return Promise.resolve();
    }
    const settings = this.readSettings();
    if (JSON.stringify(settings) === this.committed) {
      return Promise.resolve(); // Enter, or leaving the field, after a pause already committed these
    }
    this.inFlight = true;
    const edited = new Set(this.editedFields);
    this.editedFields.clear();
    // A shared link's result is announced too: the reader came for it.
    const say = announce || this.showingRecorded;
    return this.runtime.call("render", [this.name, settings]).then(async (response) => {
      await this.showResponse(response, settings, edited, say);
      this.inFlight = false;
      if (this.renderAgain) {
        this.renderAgain = false;
        return this.renderNow();
      }
      return undefined;
    });
  }

  async showResponse(response, settings, edited, announce) {
    if (response.ok) {
      this.committed = JSON.stringify(settings);
      this.shownSettings = response.result.settings;
      this.results.innerHTML = response.result.html;
      this.showingRecorded = false;
      this.results.classList.remove("lab-results-recorded");
      this.showStale(false);
      if (announce) {
        this.announcer.textContent = response.result.announcement;
      }
      if (this.liveStatus !== null && this.status.textContent !== this.liveStatus) {
        this.status.textContent = this.liveStatus; // after an unexpected failure that this render got past
      }
      for (const name of this.fieldNames) {
        this.showError(name, null);
      }
      if (Object.keys(this.addressParameters).length > 0) {
        this.writeAddress(response.result.settings);
      }
      return;
    }
    const { field, message } = response.error;
    if (field !== null && this.fieldNames.includes(field)) {
      this.committed = JSON.stringify(settings);
      this.showError(field, message);
      // The core reports only the first bad setting: every other field edited
      // in this request is checked alone, with the settings on screen, so each
      // bad one is named (a shared link's ?T=abc&K=999 has two); an untouched
      // field keeps any message it already had.
      const messages = [message];
      for (const name of edited) {
        if (name !== field) {
          const alone = await this.runtime.call("render", [this.name, { ...this.shownSettings, [name]: settings[name] }]);
          const own = !alone.ok && alone.error.field === name ? alone.error.message : null;
          this.showError(name, own);
          if (own !== null) {
            messages.push(own);
          }
        }
      }
      // A link's settings that fail leave the recorded run, no longer "until then": it is what is shown.
      this.showingRecorded = false;
      this.results.classList.remove("lab-results-recorded");
      this.showStale(true);
      // The messages sit next to their controls for the eye; the live region
      // tells someone listening that their value was not accepted, once per commit.
      if (announce) {
        this.announcer.textContent = `${messages.join(". ")}. ${this.pending.textContent}`;
      }
    } else {
      this.status.textContent = `The lab could not compute this: ${message}. The last numbers shown are kept.`;
    }
  }

  showError(name, message) {
    const output = this.form.querySelector(`[data-error-for="${name}"]`);
    const input = this.field(name);
    if (output !== null) {
      output.textContent = message ?? "";
      output.hidden = message === null;
    }
    if (input !== null) {
      if (message === null) {
        input.removeAttribute("aria-invalid");
      } else {
        input.setAttribute("aria-invalid", "true");
      }
    }
  }
}

/**
 * A drop-down list can only hold one of its options: a link's unknown value
 * (?rule=median) becomes an extra option, so the core can say what is wrong
 * with it and the field shows what the link asked for.
 */
function offerValue(input, value) {
  if (input.tagName === "SELECT" && !Array.from(input.options).some((option) => option.value === value)) {
    const option = new Option(value, value);
    option.dataset.unlisted = "";
    input.add(option);
  }
}

/** Once the reader picks a listed option, the link's unknown value leaves the list. */
function dropUnlistedValues(input) {
  if (input.tagName === "SELECT") {
    for (const option of Array.from(input.querySelectorAll("option[data-unlisted]"))) {
      if (!option.selected) {
        option.remove();
      }
    }
  }
}

function readRecordedSettings(section) {
  const script = section.querySelector("script[data-lab-settings]");
  return script === null ? {} : JSON.parse(script.textContent);
}

/** The page's one status announcer: "Python is ready" and failures are said once, not once per lab. */
function createStatusAnnouncer() {
  const region = document.createElement("p");
  region.className = "visually-hidden";
  region.setAttribute("role", "status");
  region.dataset.labPageStatus = "";
  document.body.append(region);
  return (text) => {
    region.textContent = text;
  };
}

function showStarting(widgets) {
  for (const widget of widgets) {
    const text = widget.showingRecorded ? widget.loadingText : STARTING_TEXT;
    widget.status.replaceChildren(document.createTextNode(`${text} `), createProgress(readStartBytes("rollouts-lab")));
  }
}

/** Show the runtime's download in each lab's progress bar (shown silently: only the start and the end are announced). */
function showProgress(widgets, progress) {
  for (const widget of widgets) {
    const bar = widget.status.querySelector(".start-progress");
    if (bar !== null) {
      updateProgress(bar, progress);
    }
  }
}

function showLive(widgets, version) {
  const [major, minor] = version.split(".");
  for (const widget of widgets) {
    widget.liveStatus = `Computed in your browser by Python ${major}.${minor} (Pyodide).`;
    widget.status.textContent = widget.liveStatus;
  }
}

/** Replace each status line with `message` and a Retry button. */
function offerRetry(widgets, message, retry) {
  for (const widget of widgets) {
    widget.liveStatus = null;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "lab-retry";
    button.textContent = "Retry";
    button.addEventListener("click", () => retry(widget));
    widget.status.replaceChildren(document.createTextNode(`${message} `), button);
  }
}

let currentStart = 0; // Which start is the page's own; an abandoned one's outcome is ignored.

function goLive(runtime, widgets, announceStatus) {
  const thisStart = ++currentStart;
  const retry = (widgetAsking) => {
    const focusWasOnRetry = widgetAsking.status.contains(document.activeElement);
    goLive(runtime, widgets, announceStatus);
    if (focusWasOnRetry) {
      // The Retry button is gone; keep keyboard users where they were.
      widgetAsking.status.setAttribute("tabindex", "-1");
      widgetAsking.status.focus();
    }
  };
  showStarting(widgets);
  announceStatus("Starting Python in your browser.");
  runtime.onProgress = (progress) => {
    if (thisStart === currentStart) {
      showProgress(widgets, progress);
    }
  };
  // Pyodide can wait forever instead of failing (a wrongly typed .wasm is
  // the known case, which the worker detects), but a slow connection also
  // takes long to bring those megabytes. So a long start is reported, with a Retry,
  // while it goes on: if it does finish, the lab still goes live.
  const stalled = setTimeout(() => {
    if (thisStart === currentStart) {
      const message = `Python has not started in your browser after ${START_TIMEOUT_SECONDS} seconds, so the numbers shown are the ones recorded at build time.`;
      offerRetry(widgets, message, retry);
      announceStatus(message);
    }
  }, START_TIMEOUT_SECONDS * 1000);
  // A fresh worker each time: a retry gives up on a start that stalled.
  runtime.end("the lab's runtime was stopped");
  runtime.start().then(
    (version) => {
      clearTimeout(stalled);
      if (thisStart !== currentStart) {
        return;
      }
      showLive(widgets, version);
      announceStatus("Python is ready: the lab now computes in your browser.");
      for (const widget of widgets) {
        widget.enableControls();
        widget.writeSettings(widget.readAddress());
        // Re-render even the recorded settings, so the numbers on screen are
        // the ones the status line says were computed in this browser.
        widget.renderNow({ announce: false });
      }
    },
    (error) => {
      clearTimeout(stalled);
      if (thisStart !== currentStart) {
        return;
      }
      const message = `Python could not start in your browser (${error.message}), so the numbers shown are the ones recorded at build time.`;
      offerRetry(widgets, message, retry);
      announceStatus(message);
    },
  );
}

/** Call `start` once: when a lab nears the viewport (unless saving data) or on the first interaction with one. */
function startWhenNeeded(widgets, start) {
  let started = false;
  const observer = "IntersectionObserver" in window ? new IntersectionObserver(onSeen, { rootMargin: NEAR_VIEWPORT }) : null;
  const interactions = ["pointerdown", "focusin", "keydown"];
  function startOnce() {
    if (started) {
      return;
    }
    started = true;
    observer?.disconnect();
    for (const widget of widgets) {
      for (const type of interactions) {
        widget.section.removeEventListener(type, startOnce);
      }
    }
    start();
  }
  function onSeen(entries) {
    if (entries.some((entry) => entry.isIntersecting)) {
      startOnce();
    }
  }
  const saveData = navigator.connection?.saveData === true;
  for (const widget of widgets) {
    for (const type of interactions) {
      widget.section.addEventListener(type, startOnce);
    }
    if (saveData) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "lab-start";
      const size = describeDownload("rollouts-lab");
      button.textContent = size ? `Run it live in your browser (downloads ${size})` : "Run it live in your browser";
      widget.status.append(" ", button);
    } else {
      observer?.observe(widget.section);
    }
  }
  if (observer === null && !saveData) {
    startOnce();
  }
}

/** Scroll to a lab a link was about, unless the reader has scrolled already; again once late layout (fonts, figures) settles. */
function bringIntoView(section) {
  const scrollTo = () => section.scrollIntoView({ block: "start" });
  scrollTo();
  const startY = window.scrollY;
  window.addEventListener(
    "load",
    () => {
      if (Math.abs(window.scrollY - startY) < 2) {
        scrollTo();
      }
    },
    { once: true },
  );
}

function startLab() {
  const sections = Array.from(document.querySelectorAll("section.lab[data-lab]"));
  const urls = readRuntimeUrls("rollouts-lab");
  if (sections.length === 0 || urls === null) {
    return;
  }
  const runtime = new PythonWorker(urls, {
    cannotRun: "the lab's worker script could not run",
    unreadable: "the lab's worker sent an unreadable message",
    notRunning: "the lab's runtime is not running",
  });
  const widgets = sections.map((section) => new LabWidget(section, runtime));
  const inAddress = widgets.find((widget) => widget.section.hasAttribute("data-lab-address"));
  if (inAddress !== undefined) {
    for (const box of inAddress.form.querySelectorAll("[data-url-parameter]")) {
      inAddress.addressParameters[box.dataset.control] = box.dataset.urlParameter;
    }
    inAddress.offerCopyLink();
  }
  const announceStatus = createStatusAnnouncer();
  const start = () => goLive(runtime, widgets, announceStatus);
  const fromAddress = inAddress === undefined ? {} : inAddress.readAddress();
  if (Object.keys(fromAddress).length > 0) {
    // The reader followed a link to this lab's settings: start at once, and show the lab they were sent to
    // (an old link has no fragment, and the page would open at its top, screens above it).
    inAddress.showLoading(fromAddress);
    bringIntoView(inAddress.section);
    start();
  } else {
    startWhenNeeded(widgets, start);
  }
}

startLab();
