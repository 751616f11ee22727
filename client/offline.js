// Offline reading, the page's side: registers the site's service worker
// (sw.js at the site's root, written by the build: pysrc/sitegen/publish/offline.py),
// says in the footer what is kept, offers to keep Python's runtime, and offers
// a reload when a new build is ready. Nothing here runs under the dev server
// (its reload script carries data-rollouts-dev): pages must never come from a
// cache while an author edits them. (The dev server builds the same files as
// `build`, sw.js included, so that an edit gives exactly the full build's bytes.)
//
// Kept quietly: pages, styles, search, figures, fonts (the worker installs them).
// Kept when the reader has started Python once, or presses "Keep for offline
// reading": the runtime. With Save-Data on, nothing is downloaded ahead: the
// worker is registered only when the reader presses the button.
//
// Nothing is downloaded while Python starts (on a phone's link every byte would
// delay it): the worker is registered once the page's first start is over and
// the page is idle, or once the page is idle with no start under way (a page
// with a lab gives it a few seconds to begin). What the page fetched of the
// runtime is handed to the worker rather than downloaded again
// (client/python/runtime-handoff.mjs).

import { describeStartError } from "./common/offline-text.mjs";

const box = /** @type {HTMLElement | null} */ (document.querySelector("[data-offline]"));
const banner = document.querySelector("[data-update-banner]");
const workerUrl = new URL("../sw.js", import.meta.url);

const megabytes = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
// The page's Python starts under way, counted by client/python/python-worker.mjs (the lab's or the cells' script may have
// begun one before this script ran).
const startsUnderWay = () => globalThis[Symbol.for("rollouts:python-starts-under-way")] ?? 0;
const startedLive = () => globalThis[Symbol.for("rollouts:python-started-live")] === true;
const callsUnderWay = () => globalThis[Symbol.for("rollouts:python-calls-under-way")] ?? 0;
// How long a page with a lab waits, once idle, for its lab to start Python before the keep begins without it.
const LAB_START_GRACE_MS = 5000;

/** Resolve when the page is idle (or after two seconds at most). */
function idle() {
  return new Promise((resolve) =>
    "requestIdleCallback" in window ? window.requestIdleCallback(resolve, { timeout: 2000 }) : setTimeout(resolve, 200),
  );
}

/**
 * Resolve once the page is idle with no Python start under way and no request to Python awaiting its answer: a
 * lab is live and has drawn what Python computed (client/python/python-worker.mjs counts both, both bundles').
 */
async function pythonAtRest() {
  for (;;) {
    await idle();
    if (startsUnderWay() === 0 && callsUnderWay() === 0) {
      return;
    }
    await new Promise((resolve) => document.addEventListener("rollouts:python-idle", resolve, { once: true }));
  }
}

/** Say in the banner that a new version is available, with a Reload button that calls `reload`. */
function showUpdateBanner(reload) {
  const text = document.createElement("p");
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = "Reload";
  button.addEventListener("click", reload);
  text.append("A new version is available. ", button);
  banner.replaceChildren(text);
}

class OfflineReading {
  constructor() {
    this.status = box.querySelector("[data-offline-status]");
    this.keepButton = /** @type {HTMLButtonElement} */ (box.querySelector("[data-offline-keep]"));
    this.progress = /** @type {HTMLProgressElement} */ (box.querySelector("[data-offline-progress]"));
    this.saveData = navigator.connection?.saveData === true;
    this.pythonStarted = false;
    this.reloading = false;
    this.registered = null; // Promise of the active registration, once registered.
    // Only this site's worker is heard: another tutorial under the same origin has a worker of its own.
    navigator.serviceWorker.addEventListener("message", (event) => {
      if (/** @type {ServiceWorker | null} */ (event.source)?.scriptURL === workerUrl.href) {
        this.hear(event.data ?? {});
      }
    });
    navigator.serviceWorker.addEventListener("controllerchange", () => {
      if (this.reloading) {
        window.location.reload();
      }
    });
    // Sent by the lab and the cells once Python has started in this page.
    document.addEventListener("rollouts:python-started", () => {
      this.pythonStarted = true;
      if (!this.saveData) {
        // Once the lab has drawn what Python computed (the cells' start, if it follows, is over too).
        pythonAtRest().then(() => this.keepRuntime());
      }
    });
    this.keepButton.addEventListener("click", () => this.keepRuntime());
    // Keeping Python downloads it: offline, the offer waits, and comes back with the network.
    /** @type {string | null} the offer's label while one stands */
    this.keepLabel = null;
    this.keepNote = ""; // the footer's text that goes with it
    window.addEventListener("offline", () => this.showKeepOffer());
    window.addEventListener("online", () => this.showKeepOffer());
    // A cell that could not start offline offers the same keep (cells.js).
    document.addEventListener("rollouts:keep-python", () => this.keepRuntime());
  }

  async begin() {
    // Shown only once there is something to say (an empty footer note would be read out as nothing).
    await this.quietMoment();
    box.hidden = false;
    const existing = await navigator.serviceWorker.getRegistration(new URL("./", workerUrl).href);
    if (this.saveData && existing === undefined) {
      const sizes = await fetch(new URL("offline.json", workerUrl)).then((response) => response.json());
      this.say("Save-Data is on, so nothing is downloaded ahead of time.");
      this.offerKeep(`Keep for offline reading (${megabytes(sizes.shellBytes + sizes.runtimeBytes)})`);
      return;
    }
    await this.register();
  }

  /**
   * Resolve once the page has loaded and is idle with no Python start under way (waiting for the first to finish,
   * then for the page to be idle again): nothing but the runtime is fetched before the lab is live (issue 59).
   */
  async quietMoment() {
    if (document.readyState !== "complete") {
      await new Promise((resolve) => window.addEventListener("load", resolve, { once: true }));
    }
    // A lab in view (or settings in the address) starts Python as the page loads; idle, the page has started what it will.
    await idle();
    // A lab further down starts when it nears the viewport, often just after: a reader scrolling to it. Its start is
    // waited for a little while, so that the keep's download (every page, 1 MB and more) does not share the link with
    // it. With Save-Data on, a lab starts only when the reader asks.
    const lab = document.getElementById("rollouts-lab") !== null;
    if (lab && !this.saveData && startsUnderWay() === 0 && !startedLive()) {
      await new Promise((resolve) => {
        document.addEventListener("rollouts:python-starting", resolve, { once: true });
        setTimeout(resolve, LAB_START_GRACE_MS);
      });
    }
    await pythonAtRest();
  }

  register() {
    this.registered ??= navigator.serviceWorker.register(workerUrl, { updateViaCache: "none" }).then((registration) => {
      if (!registration) {
        // Not a registration (an automated browser that blocks workers): no offline reading, and nothing to show.
        box.hidden = true;
        return new Promise(() => {});
      }
      this.watchForUpdates(registration);
      return navigator.serviceWorker.ready.then((ready) => {
        ready.active.postMessage({ op: "status" });
        return ready;
      });
    });
    return this.registered;
  }

  async keepRuntime() {
    this.keepLabel = null;
    this.keepButton.hidden = true;
    const registration = await this.register();
    registration.active.postMessage({ op: "keep-runtime" });
  }

  hear(message) {
    if (message.op === "status") {
      this.runtimeBytes = message.runtimeBytes;
      if (message.runtimeKept) {
        this.say(`This tutorial is kept for offline reading, Python included (${megabytes(message.runtimeBytes)}).`);
      } else if (this.pythonStarted && !this.saveData) {
        this.keepRuntime();
      } else {
        this.say(`The pages are kept for offline reading. Python (${megabytes(message.runtimeBytes)}) is kept once you start it, or now:`);
        this.offerKeep("Keep for offline reading");
      }
    } else if (message.op === "runtime-progress") {
      if (this.progress.hidden) {
        this.progress.hidden = false;
        this.keepButton.hidden = true;
        this.say(`Keeping Python (${megabytes(message.total)}) for offline reading…`);
      }
      this.progress.max = message.total;
      this.progress.value = message.received;
      this.progress.title = `${megabytes(message.received)} of ${megabytes(message.total)}`;
    } else if (message.op === "runtime-kept") {
      this.progress.hidden = true;
      this.say(`This tutorial is kept for offline reading, Python included (${megabytes(message.total)}).`);
    } else if (message.op === "install-failed") {
      this.say(`The pages could not be kept for offline reading (${describeStartError(message)}).`);
    } else if (message.op === "file-gone") {
      this.offerNewVersion();
    } else if (message.op === "runtime-failed") {
      this.progress.hidden = true;
      this.say(`Python could not be kept for offline reading (${describeStartError(message)}).`);
      this.offerKeep("Try again");
    }
  }

  say(text) {
    this.status.textContent = text;
  }

  /** Offer to keep Python with a button labelled `label`, after the footer's text: while online only. */
  offerKeep(label) {
    this.keepLabel = label;
    this.keepNote = this.status.textContent;
    this.showKeepOffer();
  }

  /** Show the standing offer as the network allows: the button online; offline, only when it will be offered. */
  showKeepOffer() {
    if (this.keepLabel === null) {
      return;
    }
    const offline = navigator.onLine === false;
    this.keepButton.textContent = this.keepLabel;
    this.keepButton.hidden = offline;
    this.say(
      offline
        ? `${this.keepNote.replace(/(, or now)?:$/, ".")} You are offline: Python can be kept once you are back online.`
        : this.keepNote,
    );
  }

  /**
   * A file of this page's build is gone from the host (a new build was deployed while the reader read): say so,
   * and reload from the host when the reader asks (a new build's worker, once installed, is offered as below).
   */
  offerNewVersion() {
    if (banner === null || banner.childElementCount > 0) {
      return;
    }
    showUpdateBanner(() => window.location.reload());
  }

  /** A new build installed beside the one serving this page: offer it, and switch only when the reader says so. */
  watchForUpdates(registration) {
    const offer = (worker) => {
      if (navigator.serviceWorker.controller === null || banner === null) {
        return; // the first build: it takes over by itself
      }
      showUpdateBanner(() => {
        this.reloading = true;
        worker.postMessage({ op: "skip-waiting" });
      });
    };
    const offerOnceInstalled = (worker) => {
      worker?.addEventListener("statechange", () => {
        if (worker.state === "installed") {
          offer(worker);
        }
      });
    };
    if (registration.waiting !== null) {
      offer(registration.waiting);
    } else {
      // The browser looks for a new build when the page is opened, before this page listens (it registers once
      // the page is idle and Python has started): a new build found then may still be installing, its
      // "updatefound" gone by. The banner never came when it was (a busy machine's test run).
      offerOnceInstalled(registration.installing);
    }
    registration.addEventListener("updatefound", () => offerOnceInstalled(registration.installing));
  }
}

if (box !== null && "serviceWorker" in navigator && document.querySelector("script[data-rollouts-dev]") === null) {
  new OfflineReading().begin().catch((error) => {
    box.querySelector("[data-offline-status]").textContent = `Offline reading is not available here (${error.message}).`;
  });
}
