// The page's side of the Python runtimes' protocol (docs/workers.md), one
// client for the lab (lab.js, lab-worker.js) and the cells (cells.js,
// cell-worker.js): it starts the module Web Worker with the page's URLs, by
// name, matches each response to its request, passes progress and a cell's
// output on as they come, and answers every waiting request itself when the
// worker ends. esbuild bundles it into both scripts.
//
// Pyodide's WebAssembly and the memory snapshot are fetched once per page,
// here (fetchRuntime), the wasm compiled, and both posted to every worker's
// "init", with the image of the wasm's data segments (wasm-data.mjs: the
// snapshot ships without it): no worker fetches them again, whatever the HTTP
// cache keeps.

import { checkNamedBytes } from "./downloads.mjs";
import { handOver, keepsRuntime } from "./runtime-handoff.mjs";
import { readDataImage } from "./wasm-data.mjs";
import { failure } from "./worker-protocol.mjs";

// What the page fetched of the runtime, shared by the lab's script and the cells' (two bundles, one page): by the wasm's URL.
const FETCHED = Symbol.for("rollouts:fetched-runtime");
// How many of the page's Python starts are under way (both bundles'): offline.js reads it, as it may run after a start began.
const STARTS_UNDER_WAY = Symbol.for("rollouts:python-starts-under-way");
const STARTED_LIVE = Symbol.for("rollouts:python-started-live"); // set once any start on the page has ended live
// How many requests to the page's Python workers await their answer (both bundles'): offline.js waits until none
// does and no start is under way ("rollouts:python-idle"), so that the lab has drawn what Python computed.
const CALLS_UNDER_WAY = Symbol.for("rollouts:python-calls-under-way");

/** Count `change` (+1, -1) requests under way (sayIfIdle). */
function countCalls(change) {
  globalThis[CALLS_UNDER_WAY] = (globalThis[CALLS_UNDER_WAY] ?? 0) + change;
  sayIfIdle();
}

/** Say "rollouts:python-idle" when no request to Python awaits its answer and no start is under way. */
function sayIfIdle() {
  if ((globalThis[CALLS_UNDER_WAY] ?? 0) === 0 && (globalThis[STARTS_UNDER_WAY] ?? 0) === 0) {
    document.dispatchEvent(new Event("rollouts:python-idle"));
  }
}

/**
 * Fetch the snapshot's copy and fetch and compile Pyodide's WebAssembly, once for this page (`urls` as the page's JSON
 * block). Returns {snapshot, compiled, handed}, three promises:
 * - `snapshot`: the copy's bytes (a Uint8Array; the worker checks and decodes them), or null when the page could not
 *   fetch it (the worker then fetches it itself and says what is wrong, as before) or there is none;
 * - `compiled`: {module, dataImage} (a WebAssembly.Module, and the memory its data segments fill, or null if that
 *   could not be read: the workers then start without the snapshot), or null when no wasm compiled (the
 *   workers then fetch the plain file themselves and say what is wrong with it, as before). The gzip copy
 *   (sitegen/assets/compressed_wasm.py) is decoded as it arrives, else the plain `pyodide.asm.wasm` is used;
 * - `handed`: settles once the copies for the offline keep are in its cache (where offline reading will keep the
 *   runtime, runtime-handoff.mjs), after the other two: neither waits for it.
 *
 * The wasm is asked for once the snapshot is partly here (SNAPSHOT_AHEAD), not beside it: on a slow link both share,
 * and the one that ends last is on the start's path. The wasm is compiled while it streams, so it ends with
 * its last byte; the snapshot must then still be decoded (0.2 s and more), which it now is while the wasm arrives.
 * `progress(received, total)` follows both downloads (every caller's, while they go on).
 * @param {(received: number, total: number) => void} [progress]
 */
export function fetchRuntime(urls, progress = () => {}) {
  globalThis[FETCHED] ??= new Map();
  const key = urls.wasm || urls.pyodide;
  let entry = globalThis[FETCHED].get(key);
  if (entry === undefined) {
    const counts = { snapshot: [0, 0], wasm: [0, 0] };
    entry = { listeners: new Set(), received: 0, total: 0, snapshot: null, compiled: null, handed: null };
    const handing = []; // the copies on their way to the offline keep (fetchKept)
    const counter = (source) => (received, total) => {
      counts[source] = [received, total];
      entry.received = counts.snapshot[0] + counts.wasm[0];
      entry.total = counts.snapshot[1] + counts.wasm[1];
      for (const listener of entry.listeners) listener(entry.received, entry.total);
    };
    /** @type {() => void} */
    let wasmMayStart = () => {};
    const ahead = new Promise((resolve) => {
      wasmMayStart = () => resolve(undefined);
    });
    const countSnapshot = counter("snapshot");
    entry.snapshot = (
      urls.snapshot
        ? fetchSnapshotCopy(
            urls.snapshot,
            (received, total) => {
              countSnapshot(received, total);
              if (received >= total * SNAPSHOT_AHEAD) wasmMayStart();
            },
            handing,
          )
        : Promise.resolve(null)
    ).catch((error) => {
      console.warn(`the snapshot could not be fetched in the page (${error?.message ?? error}); the worker fetches it`);
      return null;
    });
    entry.snapshot.then(() => wasmMayStart());
    entry.compiled = ahead
      .then(() => compileWasm(urls, counter("wasm"), handing))
      .catch((error) => {
        console.warn(`Pyodide's WebAssembly could not be compiled in the page (${error?.message ?? error}); the worker fetches it`);
        globalThis[FETCHED].delete(key); // a later start (Retry) tries again
        return null;
      });
    // Both settle whatever happens (a failure is null), and by then every copy is on its way.
    entry.handed = Promise.all([entry.snapshot, entry.compiled]).then(() => Promise.all(handing));
    globalThis[FETCHED].set(key, entry);
  }
  entry.listeners.add(progress);
  progress(entry.received, entry.total);
  const stop = () => entry.listeners.delete(progress);
  Promise.all([entry.snapshot, entry.compiled]).then(stop);
  return { snapshot: entry.snapshot, compiled: entry.compiled, handed: entry.handed };
}

// The share of the snapshot received before the wasm is asked for. Sooner, the two would share the link to the end
// and the snapshot end last; later, the link could idle while the wasm's request goes out. From half-way, the two
// share the rest of the snapshot and it still ends about 0.8 s before the wasm on a 16 Mbit/s link (3.4 and 2.7 MB):
// time to decode it (0.2 s on a desktop, more on a phone).
const SNAPSHOT_AHEAD = 0.5;

/** The snapshot's copy as the host sent it (a 404 throws), counted as it arrives and handed to the offline keep. */
function fetchSnapshotCopy(url, progress, handing) {
  return fetchKept(url, progress, async (body) => new Uint8Array(await new Response(body).arrayBuffer()), handing);
}

/**
 * Fetch `url` (a status other than 200 throws) and resolve to what `read(body)` makes of its body, counted as it
 * arrives. Where offline reading will keep the runtime, a copy goes to the keep's cache and the promise of that onto
 * `handing`: the result does not wait for it. Cache Storage finishes a put only once the page's thread has read the
 * copy through, and that thread is busy decoding and compiling the wasm: waiting for it held the snapshot back from
 * the worker by 0.25–0.35 s on a desktop, and the worker decodes the snapshot only once it has it (benchmarks.md).
 */
async function fetchKept(url, progress, read, handing) {
  const response = await fetch(url);
  if (!response.ok) {
    throw new Error(`could not fetch ${url} (HTTP ${response.status})`);
  }
  if (keepsRuntime()) {
    handing.push(handOver(url, response.clone()));
  }
  return read(countBytes(response, progress));
}

/**
 * Compile the gzip copy of the wasm (`wasm`: every visit asks for it and no other form, whatever the link), decoded
 * by the browser as it arrives and checked against the hash in its name; if it fails (or the browser has no
 * DecompressionStream), the plain file in the `pyodide` folder.
 */
async function compileWasm({ wasm = "", pyodide }, progress, handing) {
  if (wasm && typeof DecompressionStream === "function") {
    try {
      return await fetchKept(wasm, progress, (body) => compileCheckedCopy(wasm, body), handing);
    } catch (error) {
      // A damaged, cut or missing copy (or a decoder that cannot run): the plain file.
      console.warn(`the compressed WebAssembly ${wasm} failed (${error?.message ?? error}); the plain file is used`);
    }
  }
  const response = await fetch(`${pyodide}pyodide.asm.wasm`);
  if (!response.ok) {
    throw new Error(`could not fetch pyodide.asm.wasm (HTTP ${response.status})`);
  }
  // compileStreaming refuses a file not labelled application/wasm: Pyodide would too, and the worker says why.
  return compileReading(countBytes(response, progress), response.headers);
}

/**
 * Compile the gzip copy `body` of `url` as it streams and the browser decodes it ({module, dataImage}:
 * compileReading), once its bytes match the hash in its name (a copy the host changed could still decode to a module).
 */
async function compileCheckedCopy(url, body) {
  const [decoding, hashing] = body.tee();
  const [compiled] = await Promise.all([
    compileReading(decoding.pipeThrough(new DecompressionStream("gzip")), { "content-type": "application/wasm" }),
    new Response(hashing).arrayBuffer().then((bytes) => checkNamedBytes(url, bytes, "the WebAssembly's copy")),
  ]);
  return compiled;
}

/** Compile the wasm `body` as it streams and read its data segments' image beside: {module, dataImage}. */
async function compileReading(body, headers) {
  const [compiling, reading] = body.tee();
  const [module, dataImage] = await Promise.all([
    WebAssembly.compileStreaming(new Response(compiling, { headers })),
    new Response(reading)
      .arrayBuffer()
      .then((bytes) => readDataImage(new Uint8Array(bytes)))
      .catch(() => null), // a body that fails fails the compile, which says why
  ]);
  if (dataImage === null) {
    console.warn("the WebAssembly's data could not be read: Python starts without the snapshot");
  }
  return { module, dataImage };
}

/** A response's body, calling `progress(received, total)` as its bytes arrive (total: its announced size). */
function countBytes(response, progress) {
  const total = Number(response.headers.get("content-length")) || 0;
  let received = 0;
  progress(received, total);
  return response.body.pipeThrough(
    new TransformStream({
      transform(chunk, controller) {
        received += chunk.byteLength;
        progress(received, Math.max(total, received));
        controller.enqueue(chunk);
      },
    }),
  );
}

/**
 * Call `callback` once when another start of Python on this page is a sign to start one more (the cells' beside the
 * lab's, so that a Run soon after the page opens does not wait for a whole second start): where the device has more
 * than two cores, when a start begins (any PythonWorker's, both bundles'), or now if one is under way; with two or
 * fewer, when a start has ended live, or now if one has, as two restores at once would share the only cores with the
 * page's own work and make the lab later (docs/benchmarks.md, issue 40).
 */
export function whenPythonStarts(callback) {
  const beside = (navigator.hardwareConcurrency ?? 0) > 2;
  const [happened, event] = beside
    ? [(globalThis[STARTS_UNDER_WAY] ?? 0) > 0, "rollouts:python-starting"]
    : [globalThis[STARTED_LIVE] === true, "rollouts:python-started"];
  if (happened) {
    callback();
  } else {
    document.addEventListener(event, () => callback(), { once: true });
  }
}

/**
 * Start a module worker running the script at `url` under the page's own Content-Security-Policy (its meta tag),
 * whatever headers the host sends with the script: the worker's own script is a blob: URL that imports `url`, and a
 * worker made from a blob: URL follows the policy of the document that made it (CSP 3, policy containers), while an
 * imported module's headers govern nothing. The page's policy refuses code from strings, scripts and requests of any
 * other origin, and blob: scripts; GitHub Pages sends no headers at all, so a worker's own header is no layer there.
 */
function startUnderPagePolicy(url) {
  const script = URL.createObjectURL(new Blob([`import ${JSON.stringify(url)};\n`], { type: "text/javascript" }));
  const worker = new Worker(script, { type: "module" });
  const forget = () => URL.revokeObjectURL(script);
  worker.addEventListener("message", forget, { once: true });
  worker.addEventListener("error", forget, { once: true });
  return worker;
}

export class PythonWorker {
  /**
   * `urls` is the page's JSON block of URLs (names.mjs readRuntimeUrls): `worker`, the worker script, and the
   * runtime's files by name (`pyodide`, `core`, `stdlib`, `lock`, `snapshot`: RuntimeUrls in sitegen/context.py;
   * the cells' `kernel`), posted to the worker's "init" as they are. `texts` are the caller's words for what
   * went wrong: the worker script could not run (`cannotRun`), it sent a message it cannot read (`unreadable`),
   * it was asked before it started (`notRunning`). `pagePolicy`: the worker runs under the page's own
   * Content-Security-Policy (startUnderPagePolicy), whatever the host sends; otherwise under its script's headers.
   */
  constructor(urls, { cannotRun, unreadable, notRunning }, { pagePolicy = false } = {}) {
    this.urls = urls;
    this.texts = { cannotRun, unreadable, notRunning };
    this.pagePolicy = pagePolicy;
    this.worker = null;
    this.ready = null; // Promise of the Python version while the worker is starting or running.
    this.live = false; // The current worker has started.
    this.starting = null; // The worker whose start is under way, until it ends.
    this.failure = null; // Why the worker can no longer answer, once it cannot (until the next start).
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, onSegment}
    /** @type {(progress: {received: number, total: number}) => void} */
    this.onProgress = () => {}; // ({received, total}) while the runtime downloads: the page's wasm and the worker's files
    /** @type {(source: "page" | "worker", received: number, total: number) => void} */
    this.reportProgress = () => {}; // (source, received, total): one of the two, set by each start
  }

  /**
   * Start the worker, once until it ends: resolves to the Python version, rejects with a reader-facing reason (the
   * worker is then ended, so the next start is a fresh one). Offline reading (offline.js) hears of every start
   * ("rollouts:python-starting", then "rollouts:python-started" or "rollouts:python-start-failed", and the count
   * of starts under way in a global): it waits for the first, so that its downloads never compete with Python's.
   */
  start() {
    if (this.ready !== null) {
      return this.ready;
    }
    this.failure = null;
    const worker = this.pagePolicy ? startUnderPagePolicy(this.urls.worker) : new Worker(this.urls.worker, { type: "module" });
    this.starting = worker;
    globalThis[STARTS_UNDER_WAY] = (globalThis[STARTS_UNDER_WAY] ?? 0) + 1;
    this.worker = worker;
    worker.addEventListener("message", (event) => this.receive(event.data));
    // A worker that cannot even load (404, syntax error) only fires "error".
    worker.addEventListener("error", (event) => {
      event.preventDefault();
      this.end(`${this.texts.cannotRun}${event.message ? ` (${event.message})` : ""}`);
    });
    worker.addEventListener("messageerror", () => this.end(this.texts.unreadable));
    // The page's bytes and the worker's, as one download.
    const counts = { page: { received: 0, total: 0 }, worker: { received: 0, total: 0 } };
    this.reportProgress = (source, received, total) => {
      counts[source] = { received, total };
      if (this.worker === worker) {
        this.onProgress({ received: counts.page.received + counts.worker.received, total: counts.page.total + counts.worker.total });
      }
    };
    // "init" goes at once, so the worker fetches the rest while the page fetches the snapshot and the wasm; on a port
    // of their own follow the snapshot's bytes ({snapshot}: null, the worker fetches it itself) as soon as they are
    // here, then the compiled module and its data's image ({compiled}: null, the worker fetches the wasm itself). The
    // worker hands what it fetches to the offline keep where there is one.
    const channel = new MessageChannel();
    const fetched = fetchRuntime(this.urls, (received, total) => this.reportProgress("page", received, total));
    fetched.snapshot.then((snapshot) => channel.port1.postMessage({ snapshot }));
    fetched.compiled.then((compiled) => channel.port1.postMessage({ compiled }));
    this.ready = this.call("init", [this.urls, channel.port2, keepsRuntime()], null, [channel.port2]).then((response) => {
      if (!response.ok) {
        if (this.worker === worker) {
          this.end(response.error.message); // a worker whose start failed is of no further use
        }
        this.settleStart(worker, "rollouts:python-start-failed");
        throw new Error(response.error.message);
      }
      this.live = true;
      // The lab is live now; the offline keep hears of the start (and takes the page's copies from its cache) once
      // they are all there.
      fetched.handed.then(() => {
        globalThis[STARTED_LIVE] = true;
        this.settleStart(worker, "rollouts:python-started");
      });
      return response.result.version;
    });
    // Said once this start is the one start() answers with: a listener that starts this same worker gets it.
    document.dispatchEvent(new Event("rollouts:python-starting"));
    return this.ready;
  }

  /** Say once how the start of `worker` ended (offline.js waits for every start to end). */
  settleStart(worker, event) {
    if (worker !== null && this.starting === worker) {
      this.starting = null;
      globalThis[STARTS_UNDER_WAY] -= 1;
      document.dispatchEvent(new Event(event));
      sayIfIdle();
    }
  }

  /**
   * Send one request; resolves to its {ok, result | error} response (docs/workers.md), never rejects.
   * `onSegment(segment)` hears each [stream, text] the request writes before its response (a cell's output);
   * `transfer`: what the request's args hand over rather than copy (a MessagePort).
   */
  call(op, args, onSegment = null, transfer = []) {
    if (this.worker === null || this.failure !== null) {
      return Promise.resolve(failure(this.failure ?? this.texts.notRunning));
    }
    const id = this.nextId++;
    countCalls(+1);
    return new Promise((resolve) => {
      this.pending.set(id, { resolve, onSegment });
      this.worker.postMessage({ id, op, args }, transfer);
    }).finally(() => countCalls(-1));
  }

  receive(message) {
    const waiting = this.pending.get(message?.id);
    if (waiting === undefined) {
      return;
    }
    if (message.progress) {
      this.reportProgress("worker", message.progress.received, message.progress.total);
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
    this.settleStart(this.starting, "rollouts:python-start-failed"); // a start ended before it finished
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
