// The page's side of the Python runtimes' protocol (docs/workers.md), one
// client for the lab (lab.js, lab-worker.js) and the cells (cells.js,
// cell-worker.js): it starts the module Web Worker with the page's URLs, by
// name, matches each response to its request, passes progress and a cell's
// output on as they come, and answers every waiting request itself when the
// worker ends. esbuild bundles it into both scripts.

import { failure } from "./pyodide-start.mjs";

export class PythonWorker {
  /**
   * `urls` is the page's JSON block of URLs (names.mjs readRuntimeUrls): `worker`, the worker script, and the
   * runtime's files by name (`pyodide`, `core`, `stdlib`, `lock`, `snapshot`: RuntimeUrls in sitegen/context.py;
   * the cells' `kernel`), posted to the worker's "init" as they are. `texts` are the caller's words for what
   * went wrong: the worker script could not run (`cannotRun`), it sent a message it cannot read (`unreadable`),
   * it was asked before it started (`notRunning`).
   */
  constructor(urls, { cannotRun, unreadable, notRunning }) {
    this.urls = urls;
    this.texts = { cannotRun, unreadable, notRunning };
    this.worker = null;
    this.ready = null; // Promise of the Python version while the worker is starting or running.
    this.live = false; // The current worker has started.
    this.failure = null; // Why the worker can no longer answer, once it cannot (until the next start).
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, onSegment}
    this.onProgress = () => {}; // ({received, total}) while the runtime downloads
  }

  /**
   * Start the worker, once until it ends: resolves to the Python version, rejects with a reader-facing reason (the
   * worker is then ended, so the next start is a fresh one). Offline reading (offline.js) hears of every start.
   */
  start() {
    if (this.ready !== null) {
      return this.ready;
    }
    this.failure = null;
    const worker = new Worker(this.urls.worker, { type: "module" });
    this.worker = worker;
    worker.addEventListener("message", (event) => this.receive(event.data));
    // A worker that cannot even load (404, syntax error) only fires "error".
    worker.addEventListener("error", (event) => {
      event.preventDefault();
      this.end(`${this.texts.cannotRun}${event.message ? ` (${event.message})` : ""}`);
    });
    worker.addEventListener("messageerror", () => this.end(this.texts.unreadable));
    this.ready = this.call("init", [this.urls]).then((response) => {
      if (!response.ok) {
        if (this.worker === worker) {
          this.end(response.error.message); // a worker whose start failed is of no further use
        }
        throw new Error(response.error.message);
      }
      this.live = true;
      document.dispatchEvent(new Event("rollouts:python-started"));
      return response.result.version;
    });
    return this.ready;
  }

  /**
   * Send one request; resolves to its {ok, result | error} response (docs/workers.md), never rejects.
   * `onSegment(segment)` hears each [stream, text] the request writes before its response (a cell's output).
   */
  call(op, args, onSegment = null) {
    if (this.worker === null || this.failure !== null) {
      return Promise.resolve(failure(this.failure ?? this.texts.notRunning));
    }
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, { resolve, onSegment });
      this.worker.postMessage({ id, op, args });
    });
  }

  receive(message) {
    const waiting = this.pending.get(message?.id);
    if (waiting === undefined) {
      return;
    }
    if (message.progress) {
      this.onProgress(message.progress);
      return;
    }
    if (message.segment) {
      waiting.onSegment?.(message.segment);
      return;
    }
    this.pending.delete(message.id);
    waiting.resolve(message);
  }

  /**
   * End the worker (a runaway cell, a restart, a worker that failed): every waiting request, and every later one
   * until the next start, is answered {ok: false, error: {message: reason, field: null}, stopped: reason}.
   */
  end(reason) {
    if (this.worker !== null) {
      this.worker.terminate();
      this.worker = null;
    }
    this.ready = null;
    this.live = false;
    this.failure = reason;
    for (const { resolve } of this.pending.values()) {
      resolve({ ...failure(reason), stopped: reason });
    }
    this.pending.clear();
  }
}
