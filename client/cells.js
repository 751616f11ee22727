// Python cells in the page: run, edit, stop and reset the cells the build ran.
//
// Every `[data-cell]` arrives with its code highlighted and the build's output
// in its <output>, so readers without JavaScript lose nothing. This script
// connects each cell's toolbar (written by the build, shown with `html.js`,
// so nothing moves as it arrives) and runs cells in a worker of their own
// (cell-worker.js), in one namespace per page: running cell 3 first runs any
// earlier cell not yet run in this worker, with the code it shows now. A run
// past the cell's time limit, or Stop, ends the worker and starts a fresh one
// (so every earlier cell runs again before the next). The editor
// (CodeMirror, cell-editor.js) is loaded only when a reader first edits, and
// edits are kept per page and cell (by the cell's code) in localStorage until Reset.
// The worker's client, shared with the lab, is client/python/python-worker.mjs.

import { connectCopyButton } from "./common/copy-button.mjs";
import { readRuntimeUrls, readStartBytes, STARTING_TEXT } from "./common/names.mjs";
import { isOffline, OFFLINE_TEXT } from "./common/offline-text.mjs";
import { createProgress, updateProgress } from "./common/progress.mjs";
import { PythonWorker, whenPythonStarts } from "./python/python-worker.mjs";

const STORAGE_PREFIX = "rollouts-cell:";
const CELL_OFFLINE_TEXT = `${OFFLINE_TEXT}, so this cell cannot run now; the output shown stays. Keep Python once you are online, and cells run offline too.`;

/** Whether a failed start failed because the network is gone: the browser says so, or a runtime file could not be fetched at all. */
function failedOffline(error) {
  return isOffline() || /Failed to fetch|NetworkError/i.test(error?.message ?? "");
}
const RECORDED_STATUS = "Output recorded at build time.";

/** One cell on the page: its code (highlighted, or in an editor), its toolbar and its output. */
class CellView {
  /** `seen` counts the cells built so far on the page by their code (see storageKey). */
  constructor(element, page, seen) {
    this.element = element;
    this.page = page;
    this.number = Number(element.dataset.cell);
    this.expectError = element.hasAttribute("data-cell-expect-error");
    this.codeBox = element.querySelector("[data-cell-code]");
    this.originalCodeHtml = this.codeBox.innerHTML;
    this.originalCode = this.codeBox.querySelector("pre code").textContent;
    // Where the reader's edit is kept: by the code the build ran, not by the cell's number, which a cell
    // added above changes (the edit would open in another cell). The count tells apart cells of one code.
    const repeat = seen.get(this.originalCode) ?? 0;
    seen.set(this.originalCode, repeat + 1);
    this.storageKey = `${STORAGE_PREFIX}${location.pathname}#${hashText(this.originalCode)}-${repeat}`;
    // <output> holds phrasing content only: the output is spans, one per stream, laid out by CSS (white-space: pre).
    this.output = element.querySelector("[data-cell-output]");
    this.outputBox = this.output.parentElement;
    this.originalOutputHtml = this.output.innerHTML;
    this.status = element.querySelector("[data-cell-status]");
    this.buttons = {
      run: element.querySelector("[data-cell-run]"),
      stop: element.querySelector("[data-cell-stop]"),
      edit: element.querySelector("[data-cell-edit]"),
      reset: element.querySelector("[data-cell-reset]"),
    };
    this.editor = null;
    this.editorLoading = null;
    this.hasRun = false;
    this.unshown = []; // Output pieces not yet added to the page (see append).
    connectCopyButton(element.querySelector("[data-copy-code]"), () => this.code());
    this.connect();
  }

  connect() {
    this.buttons.run.addEventListener("click", () => this.page.run(this));
    this.buttons.stop.addEventListener("click", () => this.page.stop(this));
    this.buttons.edit.addEventListener("click", () => this.edit({ focus: true }));
    this.buttons.reset.addEventListener("click", () => this.reset());
    // A pointer over a cell, or focus inside it, is a sign a run may follow: start Python then, not on Run.
    const warm = () => this.page.runtime.start().catch(() => {});
    this.element.addEventListener("pointerenter", warm, { once: true });
    this.element.addEventListener("focusin", warm, { once: true });
    if (!this.page.urls.editor) {
      this.buttons.edit.hidden = true;
    }
    const stored = readStored(this.storageKey);
    if (stored !== null && stored !== this.originalCode) {
      this.edit({ focus: false, code: stored }).then(() => {
        this.setStatus("Edited earlier; the output shown is from the original code.");
      });
      this.buttons.reset.disabled = false;
    }
  }

  /** The cell's time limit, from its markup (read at each run). */
  get timeoutSeconds() {
    return Number(this.element.dataset.cellTimeout) || 10;
  }

  code() {
    return this.editor !== null ? this.editor.getCode() : this.originalCode;
  }

  setStatus(text) {
    this.status.classList.remove("cell-status-problem");
    this.status.textContent = text;
  }

  /** Say plainly why the cell did not run, in the status line's full size, with a button that helps where one can. */
  showProblem(text, buttonText = "", onClick = null) {
    this.status.classList.add("cell-status-problem");
    this.status.replaceChildren(text);
    if (onClick !== null) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "cell-problem-action";
      button.textContent = buttonText;
      button.addEventListener("click", () => {
        button.disabled = true;
        onClick();
      });
      this.status.append(" ", button);
    }
  }

  /** Replace the highlighted code with the editor (loaded on first use); resolves once it is mounted. */
  edit({ focus, code = null }) {
    if (this.editor !== null) {
      if (focus) this.editor.focus();
      return Promise.resolve();
    }
    if (this.editorLoading === null) {
      this.buttons.edit.disabled = true;
      this.editorLoading = import(this.page.urls.editor).then(
        ({ mountEditor }) => {
          const host = document.createElement("div");
          host.className = "cm-host";
          this.codeBox.replaceChildren(host);
          this.editor = mountEditor(host, code ?? this.originalCode, {
            onRun: () => this.page.run(this),
            onChange: (text) => this.remember(text),
          });
          this.buttons.edit.hidden = true;
          this.buttons.edit.disabled = false;
        },
        (error) => {
          this.editorLoading = null;
          this.buttons.edit.disabled = false;
          this.setStatus(`The editor could not load (${error.message}).`);
        },
      );
    }
    return this.editorLoading.then(() => {
      if (focus && this.editor !== null) this.editor.focus();
    });
  }

  remember(text) {
    if (text === this.originalCode) {
      removeStored(this.storageKey);
    } else {
      writeStored(this.storageKey, text);
    }
    this.buttons.reset.disabled = false;
  }

  /** Back to the build's code and output; the edits are forgotten. */
  reset() {
    if (this.page.running === this) {
      this.page.stop(this);
    }
    removeStored(this.storageKey);
    if (this.editor !== null) {
      this.editor.destroy();
      this.editor = null;
      this.editorLoading = null;
    }
    this.codeBox.innerHTML = this.originalCodeHtml;
    this.unshown = [];
    this.output.innerHTML = this.originalOutputHtml;
    this.outputBox.classList.toggle("cell-output-empty", this.originalOutputHtml === "");
    this.buttons.edit.hidden = !this.page.urls.editor;
    this.buttons.reset.disabled = true;
    this.setStatus(RECORDED_STATUS);
    this.buttons.run.focus();
  }

  clearOutput() {
    this.unshown = [];
    this.output.replaceChildren();
    this.outputBox.classList.add("cell-output-empty");
  }

  /**
   * Add one piece of output, merged into the last piece of the same stream (as the build merges them). Pieces
   * are kept until the next frame and added together, each stream's run as one new text node: adding to a
   * node's text copies all of it, and a cell printing 40 000 lines would copy the output 40 000 times and
   * lay it out as often, freezing the tab.
   */
  append(segment) {
    this.unshown.push(segment);
    if (this.unshown.length === 1) {
      requestAnimationFrame(() => this.show());
    }
  }

  /** Add the pieces kept since the last frame (at once when a run ends, so its status never precedes its output). */
  show() {
    const pieces = this.unshown;
    this.unshown = [];
    for (let start = 0; start < pieces.length; ) {
      const stream = pieces[start][0];
      let end = start;
      while (end < pieces.length && pieces[end][0] === stream) end += 1;
      const text = pieces
        .slice(start, end)
        .map(([, piece]) => piece)
        .join("");
      const last = this.output.lastElementChild;
      if (last !== null && last.className === `cell-${stream}`) {
        last.append(text);
      } else {
        const span = document.createElement("span");
        span.className = `cell-${stream}`;
        span.textContent = text;
        this.output.append(span);
      }
      this.outputBox.classList.remove("cell-output-empty");
      start = end;
    }
  }

  note(text) {
    this.append(["note", text.endsWith("\n") ? text : `${text}\n`]);
    this.show();
  }

  setRunning(running) {
    this.buttons.stop.disabled = !running;
    this.buttons.run.disabled = running;
    this.element.toggleAttribute("data-cell-running", running);
  }
}

/**
 * The page's cells and their one runtime, a worker started on the first run (or a sign of one) and ended, and
 * replaced, to stop a cell; runs happen one at a time, in the order asked.
 */
class CellPage {
  constructor(urls) {
    this.urls = urls;
    this.runtime = new PythonWorker(
      urls,
      {
        cannotRun: "the cells' worker could not run",
        unreadable: "the cells' worker sent an unreadable message",
        notRunning: "Python is not running",
      },
      { pagePolicy: true },
    );
    this.ranIn = null; // The worker `ranNumbers` are for.
    this.ranNumbers = new Set();
    const seen = new Map();
    this.cells = [...document.querySelectorAll("[data-cell]")].map((element) => new CellView(element, this, seen));
    this.queue = Promise.resolve();
    this.running = null; // The CellView whose code is running now.
    // The lab's start is a sign a run may follow too: the cells' Python starts beside it, or once it is live on a
    // device of two cores or fewer (a worker of its own, so that a runaway cell is stopped without ending the lab).
    whenPythonStarts(() => this.runtime.start().catch(() => {}));
  }

  /** The numbers of the cells run in the current worker: none in a fresh one, none while no worker runs. */
  get ran() {
    if (this.ranIn !== this.runtime.worker) {
      this.ranIn = this.runtime.worker;
      this.ranNumbers = new Set();
    }
    return this.ranNumbers;
  }

  run(target) {
    target.buttons.reset.disabled = false;
    this.queue = this.queue.then(() => this.runWithEarlier(target));
    return this.queue;
  }

  async runWithEarlier(target) {
    const earlier = this.cells.filter((cell) => cell.number < target.number && !this.ran.has(cell.number));
    for (const cell of earlier) {
      const outcome = await this.execute(cell);
      if (outcome === "stopped") {
        target.setStatus(`Not run: cell ${cell.number}, which runs first, was stopped.`);
        return;
      }
      if (outcome === "raised" && !cell.expectError) {
        target.setStatus(`Not run: cell ${cell.number}, which runs first, raised an error.`);
        return;
      }
    }
    await this.execute(target);
  }

  /** Run one cell; resolves to "ok", "raised" or "stopped". */
  async execute(cell) {
    cell.setRunning(true);
    this.running = cell;
    try {
      if (!this.runtime.live) {
        const bar = createProgress(readStartBytes("rollouts-cells"));
        cell.status.replaceChildren(document.createTextNode(`${STARTING_TEXT} `), bar);
        this.runtime.onProgress = (progress) => updateProgress(bar, progress);
      }
      try {
        await this.runtime.start();
      } catch (error) {
        // The output shown (the recorded one, or the last run's) stays: nothing has replaced it.
        if (isOffline()) {
          cell.showProblem(CELL_OFFLINE_TEXT); // keeping Python needs the network: no button that cannot work
        } else if (failedOffline(error)) {
          cell.showProblem(CELL_OFFLINE_TEXT, "Keep Python for offline reading", () => {
            document.dispatchEvent(new CustomEvent("rollouts:keep-python"));
          });
        } else {
          cell.showProblem(`Python could not start: ${error.message}`);
        }
        return "stopped";
      }
      // Only now, with Python ready to run it, does the cell's new output replace the old.
      cell.clearOutput();
      cell.setStatus("Running\u2026");
      const seconds = cell.timeoutSeconds;
      const timer = setTimeout(
        () => this.runtime.end(`Stopped after ${seconds} s, the cell's time limit. Python was restarted; the next run starts afresh.`),
        seconds * 1000,
      );
      const started = performance.now();
      const response = await this.runtime.call("run", [cell.number, cell.code()], (segment) => cell.append(segment));
      clearTimeout(timer);
      cell.show();
      if (response.stopped) {
        cell.note(response.stopped);
        cell.setStatus("Stopped.");
        // Ended already (a timeout, Stop), or Python failed for good inside it (the worker said so): ended now.
        this.runtime.end(response.stopped);
        // A fresh worker starts now, so the next run does not wait for Python again.
        this.runtime.start().catch(() => {});
        return "stopped";
      }
      if (!response.ok) {
        cell.note(response.error.message);
        cell.setStatus("Failed.");
        return "stopped";
      }
      this.ran.add(cell.number);
      const elapsed = Math.round(performance.now() - started);
      cell.setStatus(response.result.raised ? `Raised an error (${elapsed} ms).` : `Ran in your browser in ${elapsed} ms.`);
      cell.element.dispatchEvent(new CustomEvent("cell-ran", { bubbles: true, detail: { raised: response.result.raised } }));
      return response.result.raised ? "raised" : "ok";
    } finally {
      cell.setRunning(false);
      this.running = null;
    }
  }

  stop(cell) {
    if (this.running === cell) {
      this.runtime.end("Stopped. Python was restarted; the next run starts afresh.");
    }
  }
}

/** FNV-1a over the text's UTF-16 code units, as 8 hex digits: a short stable name for a cell's code. */
function hashText(text) {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

function readStored(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null; // storage disabled: edits last as long as the page
  }
}

function writeStored(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    // full or disabled: the edit stays in the editor
  }
}

function removeStored(key) {
  try {
    localStorage.removeItem(key);
  } catch {
    // nothing stored
  }
}

const urls = readRuntimeUrls("rollouts-cells");
if (urls !== null) {
  new CellPage(urls);
}
