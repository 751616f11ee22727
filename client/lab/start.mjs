// Python's start for the page's labs: when it is needed, what the labs show meanwhile, and the page's one status line.

import { describeDownload, readStartBytes, STARTING_TEXT } from "../common/names.mjs";
import { describeStartError, isOffline, OFFLINE_TEXT } from "../common/offline-text.mjs";
import { createProgress, updateProgress } from "../common/progress.mjs";

const START_TIMEOUT_SECONDS = 30;
// Start Python when a lab comes within this distance of the viewport.
const NEAR_VIEWPORT = "50% 0px";

/** The page's one status announcer: "Python is ready" and failures are said once, not once per lab. */
export function createStatusAnnouncer() {
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
    widget.settleLoadingNote();
    const button = document.createElement("button");
    button.type = "button";
    button.className = "lab-retry";
    button.textContent = "Retry";
    button.addEventListener("click", () => retry(widget));
    widget.status.replaceChildren(document.createTextNode(`${message} `), button);
  }
}

/** Say that the reader is offline, with no Retry (it could not work): the start is tried again once back online. */
function waitForNetwork(widgets, message, startAgain) {
  for (const widget of widgets) {
    widget.liveStatus = null;
    widget.settleLoadingNote();
    widget.status.textContent = message;
  }
  window.addEventListener("online", startAgain, { once: true });
}

let currentStart = 0; // Which start is the page's own; an abandoned one's outcome is ignored.

export function goLive(runtime, widgets, announceStatus) {
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
      if (isOffline()) {
        const message = `${OFFLINE_TEXT}, so the lab cannot compute now; the numbers shown are the ones recorded at build time. It starts once you are back online.`;
        waitForNetwork(widgets, message, () => {
          if (thisStart === currentStart) {
            goLive(runtime, widgets, announceStatus);
          }
        });
        announceStatus(message);
        return;
      }
      const message = `Python could not start in your browser (${describeStartError(error)}), so the numbers shown are the ones recorded at build time.`;
      offerRetry(widgets, message, retry);
      announceStatus(message);
    },
  );
}

/**
 * Call `start` once: when a lab nears the viewport (unless saving data) or on the first interaction with one.
 * Returns the function that starts it now (a link in the prose that sets a lab is such an interaction).
 */
export function startWhenNeeded(widgets, start) {
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
  return startOnce;
}
