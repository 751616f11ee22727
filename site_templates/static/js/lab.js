// The rollouts lab in the page: takes over the widgets the build pre-rendered.
//
// Every `section.lab[data-lab]` arrives with its recorded results already in
// place and its controls disabled, so readers without JavaScript (or whose
// browser cannot run Python) still see correct numbers. This script starts
// one Web Worker per page running the same Python core (lab-worker.js), then
// enables the controls and re-renders results through the core on each
// change. The markup and the worker protocol are described in docs/lab-widgets.md.

const STARTING_TEXT = "Starting Python in your browser\u2026";
const START_TIMEOUT_SECONDS = 30;
// Long enough that typing "0.25" does not flash an error at "0.", short
// enough to feel immediate. Sliders and buttons are not delayed.
const TYPING_DELAY_MS = 150;
// The sampler's settings in the page address (?T=2&K=8&seed=20260903).
const URL_PARAMETERS = { temperature: "T", group_size: "K", seed: "seed" };

/** Read the runtime's URLs from the page's JSON data block, resolved against the page (the site may live under any path). */
function readRuntimeUrls() {
  const block = document.getElementById("rollouts-lab");
  if (block === null) {
    return null;
  }
  const urls = JSON.parse(block.textContent);
  const resolve = (value) => new URL(value, document.baseURI).href;
  return {
    worker: resolve(urls.worker),
    pyodide: resolve(urls.pyodide),
    core: resolve(urls.core),
  };
}

/** The page's one Python worker: starts it, times its start out, and matches responses to requests. */
class LabRuntime {
  constructor(urls) {
    this.urls = urls;
    this.worker = null;
    this.failure = null; // Why the worker can no longer answer, once it cannot.
    this.nextId = 1;
    this.pending = new Map();
  }

  /** Start a fresh worker; resolves to the Python version, rejects with a reader-facing reason. */
  start() {
    this.stop();
    this.failure = null;
    this.worker = new Worker(this.urls.worker, { type: "module" });
    this.worker.addEventListener("message", (event) => this.settle(event.data));
    // A worker that cannot even load (404, syntax error) only fires "error".
    this.worker.addEventListener("error", (event) => {
      event.preventDefault();
      this.failAll(`the lab's worker script could not run${event.message ? ` (${event.message})` : ""}`);
    });
    this.worker.addEventListener("messageerror", () => this.failAll("the lab's worker sent an unreadable message"));

    const worker = this.worker;
    return this.call("init", [this.urls.pyodide, this.urls.core]).then((response) => {
      if (!response.ok) {
        if (this.worker === worker) {
          this.stop(); // a worker whose start failed is of no further use
        }
        throw new Error(response.error.message);
      }
      return response.result.version;
    });
  }

  /** Ask the worker to run one function; resolves to its {ok, result | error} response, never rejects. */
  call(fn, args) {
    if (this.worker === null || this.failure !== null) {
      return Promise.resolve({ ok: false, error: { field: null, message: this.failure ?? "the lab's runtime is not running" } });
    }
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.worker.postMessage({ id, fn, args });
    });
  }

  settle(response) {
    const resolve = this.pending.get(response && response.id);
    if (resolve !== undefined) {
      this.pending.delete(response.id);
      resolve(response);
    }
  }

  /** Answer every waiting request, and every later one, with `message`: the worker will not. */
  failAll(message) {
    this.failure = message;
    for (const resolve of this.pending.values()) {
      resolve({ ok: false, error: { field: null, message } });
    }
    this.pending.clear();
  }

  stop() {
    if (this.worker !== null) {
      this.worker.terminate();
      this.worker = null;
      this.failAll("the lab's runtime was stopped");
    }
  }
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
    this.announcer = section.querySelector("[data-lab-announce]");
    this.recordedSettings = readRecordedSettings(section);
    this.fieldNames = Object.keys(this.recordedSettings);
    this.slider = this.form.querySelector('input[name="temperature-slider"]');
    this.resetButton = this.form.querySelector("[data-lab-reset]");
    this.ownsAddress = false; // Set for the page's first sampler, which mirrors its settings in the URL.
    this.liveStatus = null; // The status line's text once the runtime is live.

    this.inFlight = false;
    this.renderAgain = false;
    this.editedFields = new Set();
    this.typingTimer = null;
    this.connectControls();
  }

  field(name) {
    return this.form.elements.namedItem(name);
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
        if (name === "temperature") {
          this.moveSliderTo(input.value);
        }
        this.renderSoon();
      });
      // Leaving the field or pressing Enter needs no waiting.
      input.addEventListener("change", () => this.renderNow());
    }
    if (this.slider !== null) {
      this.slider.addEventListener("input", () => {
        this.field("temperature").value = this.slider.value;
        this.editedFields.add("temperature");
        this.renderNow();
      });
    }
    if (this.resetButton !== null) {
      this.resetButton.addEventListener("click", () => this.reset());
    }
  }

  moveSliderTo(text) {
    const number = Number(text);
    if (this.slider !== null && text.trim() !== "" && Number.isFinite(number)) {
      this.slider.value = String(number);
    }
  }

  enableControls() {
    for (const element of this.form.elements) {
      element.disabled = false;
    }
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
        input.value = value;
        this.editedFields.add(name);
      }
    }
    if ("temperature" in settings) {
      this.moveSliderTo(settings.temperature);
    }
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
    this.inFlight = true;
    const settings = this.readSettings();
    const edited = new Set(this.editedFields);
    this.editedFields.clear();
    return this.runtime.call("render", [this.name, settings]).then((response) => {
      this.showResponse(response, edited, announce);
      this.inFlight = false;
      if (this.renderAgain) {
        this.renderAgain = false;
        return this.renderNow();
      }
      return undefined;
    });
  }

  showResponse(response, edited, announce) {
    if (response.ok) {
      this.results.innerHTML = response.result.html;
      if (announce) {
        this.announcer.textContent = response.result.announcement;
      }
      if (this.liveStatus !== null && this.status.textContent !== this.liveStatus) {
        this.status.textContent = this.liveStatus; // after an unexpected failure that this render got past
      }
      for (const name of this.fieldNames) {
        this.showError(name, null);
      }
      if (this.ownsAddress) {
        writeAddress(response.result.settings, this.recordedSettings);
      }
      return;
    }
    const { field, message } = response.error;
    if (field !== null && this.fieldNames.includes(field)) {
      // A field edited in this request that is not the one at fault is now
      // fine; an untouched field keeps any message it already had (the core
      // reports only the first bad setting).
      for (const name of edited) {
        if (name !== field) {
          this.showError(name, null);
        }
      }
      this.showError(field, message);
      // The message sits next to the control for the eye; the live region
      // tells someone listening that their value was not accepted.
      if (announce) {
        this.announcer.textContent = message;
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

function readRecordedSettings(section) {
  const script = section.querySelector("script[data-lab-settings]");
  return script === null ? {} : JSON.parse(script.textContent);
}

/** Settings named in the page address, e.g. ?T=2&K=8 → {temperature: "2", group_size: "8"}. */
function readAddress() {
  const query = new URLSearchParams(window.location.search);
  const settings = {};
  for (const [name, parameter] of Object.entries(URL_PARAMETERS)) {
    if (query.has(parameter)) {
      settings[name] = query.get(parameter);
    }
  }
  return settings;
}

/** Mirror the sampler's settings in the address; the recorded settings need none. */
function writeAddress(settings, recordedSettings) {
  const url = new URL(window.location.href);
  const isRecorded = Object.keys(URL_PARAMETERS).every((name) => settings[name] === recordedSettings[name]);
  for (const [name, parameter] of Object.entries(URL_PARAMETERS)) {
    if (isRecorded) {
      url.searchParams.delete(parameter);
    } else {
      url.searchParams.set(parameter, settings[name]);
    }
  }
  if (url.href !== window.location.href) {
    window.history.replaceState(window.history.state, "", url.href);
  }
}

function showStarting(widgets) {
  for (const widget of widgets) {
    const progress = document.createElement("progress");
    progress.setAttribute("aria-label", "Starting Python");
    widget.status.replaceChildren(document.createTextNode(STARTING_TEXT + " "), progress);
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

function goLive(runtime, widgets) {
  const thisStart = ++currentStart;
  const retry = (widgetAsking) => {
    const focusWasOnRetry = widgetAsking.status.contains(document.activeElement);
    goLive(runtime, widgets);
    if (focusWasOnRetry) {
      // The Retry button is gone; keep keyboard users where they were.
      widgetAsking.status.setAttribute("tabindex", "-1");
      widgetAsking.status.focus();
    }
  };
  showStarting(widgets);
  // Pyodide can wait forever instead of failing (a wrongly typed .wasm is
  // the known case, which the worker detects), but a slow connection also
  // takes long to bring 12 MB. So a long start is reported, with a Retry,
  // while it goes on: if it does finish, the lab still goes live.
  const stalled = setTimeout(() => {
    if (thisStart === currentStart) {
      offerRetry(
        widgets,
        `Python has not started in your browser after ${START_TIMEOUT_SECONDS} seconds, so the numbers shown are the ones recorded at build time.`,
        retry,
      );
    }
  }, START_TIMEOUT_SECONDS * 1000);
  runtime.start().then(
    (version) => {
      clearTimeout(stalled);
      if (thisStart !== currentStart) {
        return;
      }
      showLive(widgets, version);
      for (const widget of widgets) {
        widget.enableControls();
        const fromAddress = widget.ownsAddress ? readAddress() : {};
        widget.writeSettings(fromAddress);
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
      offerRetry(
        widgets,
        `Python could not start in your browser (${error.message}), so the numbers shown are the ones recorded at build time.`,
        retry,
      );
    },
  );
}

function startLab() {
  const sections = Array.from(document.querySelectorAll("section.lab[data-lab]"));
  const urls = readRuntimeUrls();
  if (sections.length === 0 || urls === null) {
    return;
  }
  const runtime = new LabRuntime(urls);
  const widgets = sections.map((section) => new LabWidget(section, runtime));
  const firstSampler = widgets.find((widget) => widget.name === "sampler");
  if (firstSampler !== undefined) {
    firstSampler.ownsAddress = true;
  }
  goLive(runtime, widgets);
}

startLab();
