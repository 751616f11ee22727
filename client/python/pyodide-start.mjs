// Pyodide's start and the request loop, in one place for the three Python
// runtimes: the lab's worker (client/lab-worker.js), the cells' worker
// (client/cell-worker.js) and the build's cell runner under Node
// (pysrc/sitegen/cell_runner.mjs). esbuild bundles it into each worker; Node
// imports it as it is. The protocol is described in docs/workers.md.
//
// Nothing here touches the DOM, the worker's global scope or Node's: the
// caller passes what to listen on (serveWorker, or its own loop around
// createServer).

import { CELL_HASH_SEED, KERNEL_MODULE } from "./cell-kernel.mjs";
import { inflateRaw } from "./inflate.mjs";
import { handOver } from "./runtime-handoff.mjs";
import { xorDataImage } from "./wasm-data.mjs";

// Pyodide's entry module, in its folder (a URL in the browser, a path under Node).
const PYODIDE_MODULE = "pyodide.mjs";

/**
 * Start Pyodide from `indexURL` (its folder, ending in a slash), unpack the core's zip into site-packages and
 * write `files` ({name: text or bytes}) beside it. `core`, the files' contents and `checks` may be promises.
 *
 * With `stdlib` ({directory, readPart}: the bytes of the standard library's directory, or a promise of them, and
 * a synchronous `readPart(name)` returning a part's bytes) Python's standard library is the build's parts
 * (sitegen/assets/stdlib_parts.py), installed by assembleStdlib; without it, Pyodide's own python_stdlib.zip.
 *
 * With `snapshot` (the bytes of a memory snapshot made by makeSnapshot, or a promise of them) Python is restored
 * from it instead of started: the modules it imported are imported already. Files are not part of a snapshot,
 * so the core and the files are written again all the same (a cell's page re-imports the core from them).
 *
 * With `wasm` (a WebAssembly.Module of pyodide.asm.wasm, compiled by the page: client/python/python-worker.mjs, or a
 * promise of it or of null) Pyodide is instantiated from it: its own request for the file is answered here, with
 * nothing, and never sent; a promise that gives null (the page could not compile it) lets the request through.
 */
export async function startPyodide({ indexURL, options = {}, core, files = {}, checks = [], snapshot = null, stdlib = null, wasm = null }) {
  const settings = { indexURL, ...options, ...(snapshot === null ? {} : { _loadSnapshot: snapshot }) };
  const unhooks = [];
  let partFailure = null; // the first part of the standard library that could not be read during the start
  if (stdlib !== null) {
    // Handled by the start that awaits it in `checks` or fsInit; a failure is not left unhandled here.
    Promise.resolve(stdlib.directory).catch(() => {});
    settings.stdLibURL = STDLIB_PLACEHOLDER;
    settings.fsInit = assembleStdlib(stdlib.directory, stdlib.readPart, (failure) => {
      partFailure ??= failure;
    });
    // Pyodide's fetch of it never reaches the network: it is answered with nothing.
    unhooks.push(answerLocally(STDLIB_PLACEHOLDER, () => new Response(new Uint8Array(0))));
  }
  if (wasm !== null) {
    const url = new URL(`${indexURL}${WASM_FILE}`, globalThis.location?.href).href;
    unhooks.push(
      answerLocally(url, async (send) => {
        const module = await wasm;
        if (module === null) {
          return send(url);
        }
        const response = new Response(new Uint8Array(0), { headers: { "content-type": "application/wasm" } });
        precompiled.set(response, module);
        return response;
      }),
    );
  }
  const unhook = () => {
    for (const undo of unhooks.splice(0)) undo();
  };
  const compiling = watchCompile();
  // indexURL pins every runtime file to the site's own copy; no package is
  // ever loaded by name, which would make Pyodide fall back to its CDN.
  const booted = import(`${indexURL}${PYODIDE_MODULE}`).then(({ loadPyodide }) => loadPyodide(settings));
  booted.then(unhook, unhook);
  booted.then(compiling.stop, compiling.stop);
  const names = Object.keys(files);
  // Everything is fetched while Pyodide boots; any failure fails the start at once, a runtime that does not
  // compile too (Pyodide itself would wait for ever).
  // A start that fails after a part of the standard library could not be read failed for want of it (Python
  // says only "I/O error", or exits): the part is named instead.
  const [pyodide, archive, contents] = await Promise.race([
    Promise.all([booted, core, Promise.all(Object.values(files)), ...checks]),
    compiling.failure,
  ]).catch((error) => {
    throw partFailure ?? error;
  });
  // site is imported at start-up anyway; sysconfig would cost another half second.
  const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
  pyodide.unpackArchive(archive, "zip", { extractDir: sitePackages });
  names.forEach((name, index) => {
    const content = contents[index];
    pyodide.FS.writeFile(`${sitePackages}/${name}`, typeof content === "string" ? content : new Uint8Array(content));
  });
  // The files arrived after the interpreter started, so the import system's
  // cached listing of site-packages may predate them. Only that entry is
  // dropped: importlib.invalidate_caches() would also import
  // importlib.metadata, a few hundred milliseconds of start-up for nothing.
  pyodide.runPython(`import sys; sys.path_importer_cache.pop(${JSON.stringify(sitePackages)}, None)`);
  if (snapshot !== null) {
    // random's state was frozen when the snapshot was made: every reader would
    // draw the same "random" numbers. Seeded afresh from the OS, as a plain
    // start seeds it (the cells' kernel seeds it with its own fixed seed per page).
    pyodide.runPython("import random; random.seed()");
  }
  const version = pyodide.runPython("import sys; sys.version.split()[0]");
  return { pyodide, sitePackages, version };
}

/** Pyodide's WebAssembly, in its folder. */
const WASM_FILE = "pyodide.asm.wasm";

/** The responses answerLocally gave for pyodide.asm.wasm, each with the module compiled in the page it stands for. */
const precompiled = new WeakMap();

/** What a start says when Pyodide's WebAssembly does not compile: an interrupted deploy, a truncated copy. */
export const DAMAGED_RUNTIME = "pyodide.asm.wasm is damaged or incomplete: WebAssembly could not compile it";

const compileWatchers = new Set(); // starts under way, each the function that fails it
let unwatchedWebAssembly = null; // WebAssembly's own functions, while they are wrapped

/**
 * Watch WebAssembly's compilation during a start: Emscripten reports a CompileError on the console only, then
 * waits for ever. Return {failure, stop}: `failure` rejects with DAMAGED_RUNTIME at the first CompileError;
 * `stop()` ends the watch (WebAssembly's own functions are back once no start watches). While watched,
 * instantiateStreaming of a response answerLocally gave for the wasm instantiates the page's compiled module.
 */
function watchCompile() {
  let fail = null;
  const failure = new Promise((_, reject) => {
    fail = reject;
  });
  failure.catch(() => {}); // raced by the start; never left unhandled
  if (compileWatchers.size === 0) {
    const { instantiate, instantiateStreaming } = WebAssembly;
    unwatchedWebAssembly = { instantiate, instantiateStreaming };
    const report = (error) => {
      if (error instanceof WebAssembly.CompileError) {
        for (const watcher of compileWatchers) watcher(new Error(DAMAGED_RUNTIME));
      }
      throw error;
    };
    WebAssembly.instantiate = (...args) => instantiate.apply(WebAssembly, args).catch(report);
    if (instantiateStreaming !== undefined) {
      WebAssembly.instantiateStreaming = (source, imports) =>
        Promise.resolve(source)
          .then((response) => {
            const module = precompiled.get(response);
            return module === undefined
              ? instantiateStreaming.call(WebAssembly, response, imports)
              : instantiate.call(WebAssembly, module, imports).then((instance) => ({ instance, module }));
          })
          .catch(report);
    }
  }
  compileWatchers.add(fail);
  const stop = () => {
    if (compileWatchers.delete(fail) && compileWatchers.size === 0) {
      Object.assign(WebAssembly, unwatchedWebAssembly);
    }
  };
  failure.catch(stop);
  return { failure, stop };
}

/**
 * Pyodide fetches one file as its standard library (`stdLibURL`) and writes it to /lib/pythonXY.zip before the
 * fsInit hook runs. With the build's parts there is no such file: Pyodide is given this placeholder, which
 * answerLocally answers with nothing (it never reaches the network), and assembleStdlib puts the parts'
 * directory in its place.
 */
export const STDLIB_PLACEHOLDER = "rollouts-stdlib://assembled-by-fsinit";

/** Emscripten's errno for an I/O error: what Python sees (OSError, errno.EIO) when a part cannot be fetched. */
const EIO = 29;

/**
 * Answer fetches of `url` with `answer(send)` (a Response, or a promise of one), never sent, until the returned
 * function is called; `send(url)` is the fetch it stands in front of, for an answer that lets the request through after all.
 */
function answerLocally(url, answer) {
  return interceptFetch((input, init, send) =>
    String(input?.url ?? input) === url ? Promise.resolve(answer((target) => send(target))) : send(input, init),
  );
}

const fetchHooks = []; // the hooks in front of fetch, the last added first asked
let unhookedFetch = null; // the fetch they stand in front of, while there are any

/**
 * Put `hook(input, init, send)` in front of this scope's fetch until the returned function is called; `send` is
 * the fetch behind it (the next hook's, or the scope's own). Hooks end in any order, each only itself: a start's
 * download count ends with the start while the Pyodide boot it began may go on (a snapshot's start that failed),
 * still needing its local answers. Putting back the fetch each found would take away the hooks added since, and
 * the boot's requests for the placeholder would reach the network ("Failed to fetch", told instead of the cause).
 */
function interceptFetch(hook) {
  if (fetchHooks.length === 0) {
    unhookedFetch = globalThis.fetch;
    globalThis.fetch = (input, init) => {
      // The hooks of this moment: one that ends during the request leaves it as it began.
      const hooks = fetchHooks.slice();
      const plain = unhookedFetch;
      const send = (index) => (target, options) => (index < 0 ? plain(target, options) : hooks[index](target, options, send(index - 1)));
      return send(hooks.length - 1)(input, init);
    };
  }
  fetchHooks.push(hook);
  return () => {
    const index = fetchHooks.indexOf(hook);
    if (index >= 0) {
      fetchHooks.splice(index, 1);
      if (fetchHooks.length === 0) {
        globalThis.fetch = unhookedFetch;
      }
    }
  };
}

/**
 * Return Pyodide's fsInit hook installing the standard library from its parts (sitegen/assets/stdlib_parts.py):
 * /lib/pythonXY.zip, the path on sys.path where Python looks for it, becomes a folder holding every file of the
 * `directory` (bytes, or a promise of them) at its size, with no contents yet. The first read of any file of a part
 * fetches the whole part with `readPart(name)`, synchronously (a worker's synchronous request in the page, a read
 * of memory under Node: Python is waiting in the middle of an import), and fills all its files. A part that cannot
 * be had is an I/O error for Python (OSError, errno EIO, on that import) and is asked for again on the next read;
 * `report(error)` is told, with an error naming the part (a start that fails for want of it says so).
 * The folder looks the same wherever it is made: the build's snapshot is made with it, and pages restore into it.
 */
export function assembleStdlib(directory, readPart, report = () => {}) {
  return async (FS) => {
    const listing = JSON.parse(new TextDecoder().decode(await directory));
    const root = await findStdlibZip(FS);
    if (root === undefined) {
      throw new Error("the standard library could not be installed: Pyodide made no /lib/pythonXY.zip");
    }
    const folder = `/lib/${root}`;
    FS.unlink(folder);
    FS.mkdir(folder);
    const folders = new Set([folder]);
    for (const part of listing.parts) {
      const waiting = [];
      const fill = () => {
        let bytes;
        try {
          bytes = readPart(part.name);
          if (bytes.length !== part.size) throw new Error(`${part.name} has ${bytes.length} bytes, not ${part.size}`);
          for (const [node, offset, compressed, size, method] of waiting) {
            // A file written since (its contents no longer this getter) keeps what was written.
            if (Object.getOwnPropertyDescriptor(node, "contents")?.get !== undefined) {
              const data = bytes.subarray(offset, offset + compressed);
              node.contents = method === 8 ? inflateRaw(data, size) : data.slice();
            }
          }
        } catch (error) {
          const failure = new Error(`the standard library's ${part.name} is damaged or missing (${error?.message ?? error})`);
          console.warn(failure.message);
          report(failure);
          throw new FS.ErrnoError(EIO);
        }
        waiting.length = 0;
      };
      for (const [name, offset, compressed, size, method] of part.files) {
        const path = `${folder}/${name}`;
        const parent = path.slice(0, path.lastIndexOf("/"));
        if (!folders.has(parent)) {
          FS.mkdirTree(parent);
          folders.add(parent);
        }
        const node = FS.create(path, 0o644);
        // What stat reports before the part arrives (MEMFS reads a file's size from usedBytes).
        node.usedBytes = size;
        Object.defineProperty(node, "contents", {
          configurable: true,
          enumerable: true,
          get() {
            fill();
            return this.contents;
          },
          set(value) {
            Object.defineProperty(this, "contents", { value, writable: true, configurable: true, enumerable: true });
          },
        });
        waiting.push([node, offset, compressed, size, method]);
      }
    }
  };
}

/**
 * The name of /lib/pythonXY.zip once Pyodide has written it, or undefined. Pyodide writes it in a hook of its own
 * that runs beside fsInit, once its fetch of the (placeholder) standard library has been read: a start from a module
 * the page compiled gets here sooner than that, so the hook waits a few turns of the event loop for it.
 */
async function findStdlibZip(FS) {
  const find = () => FS.readdir("/lib").find((name) => /^python\d+\.zip$/.test(name));
  for (let turn = 0; turn < 500 && find() === undefined; turn++) {
    await new Promise((resolve) => setTimeout(resolve, turn < 10 ? 0 : 10));
  }
  return find();
}

/**
 * What a snapshot holds beyond a plain start: the cells' kernel first (it
 * records the modules imported before it as the baseline every page of cells
 * returns to, so the core imported after it is still imported afresh for each
 * page, exactly as in a plain start), then the core and what the lab's
 * bridge imports.
 */
export const SNAPSHOT_IMPORTS = `import ${KERNEL_MODULE}\nimport json\nimport rollout_lab\nimport rollout_lab.widgets`;

/**
 * The environment every snapshot is made with, and so every instance restored from it runs with (env is frozen in it).
 * Emscripten would otherwise put the runner's own path (`_`, the build machine's) and the reader's language (LANG,
 * from navigator.language) into os.environ: what a cell prints would differ between the build and the page.
 */
export const SNAPSHOT_ENV = { PYTHONHASHSEED: CELL_HASH_SEED, LANG: "C.UTF-8", _: "./this.program" };

/**
 * The heap a snapshot must fit in: Pyodide 314.0.7's initial WebAssembly memory (30 MiB, set in pyodide.asm.wasm).
 * Restoring sets up a heap of that size whatever the snapshot's (pyodide.asm.mjs ignores INITIAL_MEMORY), so a
 * snapshot of a heap that grew fails to restore ("offset is out of bounds", pyodide#6254).
 */
export const SNAPSHOT_HEAP_LIMIT = 30 * 1024 * 1024;

/**
 * Import SNAPSHOT_IMPORTS into `pyodide` (started with `_makeSnapshot: true`, SNAPSHOT_ENV and the standard library's
 * parts, as the pages start) and return its memory snapshot; refuse one past SNAPSHOT_HEAP_LIMIT, which could not be restored.
 */
export function makeSnapshot(pyodide, imports = SNAPSHOT_IMPORTS) {
  pyodide.runPython(imports);
  // The heap itself: the snapshot adds a small header of its own.
  const heap = pyodide._module.HEAPU8.length;
  if (heap > SNAPSHOT_HEAP_LIMIT) {
    throw new Error(`the heap grew to ${heap} bytes, past Pyodide's initial ${SNAPSHOT_HEAP_LIMIT}: its snapshot could not be restored`);
  }
  return pyodide.makeMemorySnapshot();
}

/**
 * Start Pyodide in a browser worker from the page's `runtime` URLs, by name (RuntimeUrls in
 * pysrc/sitegen/context.py): the site's copy of Pyodide at `pyodide`; the `core` and `files` ({name: URL}) are
 * fetched, and the standard library's directory at `stdlib` (its parts are fetched as Python first imports from
 * them: readPartSync); `lock` is Pyodide's lock file. With a `snapshot` (a zstd-compressed snapshot named
 * NAME.HASH8.bin) Python is restored from it, with the environment it was made with; if that fails in any way
 * (a 404, a hash that does not match its name, a browser that refuses it), Python is started the plain way with
 * `options`, silently. `progress(received, total)` follows the downloads (bytes; total grows as responses
 * announce their sizes). `fromPage`: what the page fetched for this start (client/python/python-worker.mjs's
 * fetchRuntime), null (the worker fetches everything), or a MessagePort on which two messages arrive, in either order:
 * {snapshot} (the snapshot's copy as fetched, or null: the worker fetches it) and {compiled} (Pyodide's WebAssembly as
 * the page compiled it, {module, dataImage}: the memory its data segments fill, which the snapshot's copy leaves out,
 * client/python/wasm-data.mjs; or null: Pyodide fetches the wasm, and Python starts without the snapshot). The page fetches
 * and compiles while the worker fetches the rest.
 */
export async function startInBrowser({ runtime, files = {}, options: given = {}, progress = null, fromPage = null, handOver = false }) {
  const { pyodide: pyodideUrl, core: coreUrl, stdlib: stdlibUrl, lock: lockFileURL, snapshot: snapshotUrl = "" } = runtime;
  const restore = progress === null ? () => {} : countDownloads(progress);
  const handed = handOver ? [] : null; // copies put into the offline keep's cache, waited for before the start resolves
  const fetchRuntime = (url) => fetchBytes(url, handed);
  const fetchStreamed = (url) => fetchResponse(url, handed);
  const options = { lockFileURL, ...given };
  const sent = typeof MessagePort === "function" && fromPage instanceof MessagePort ? readPort(fromPage) : null;
  const compiled = sent?.compiled ?? Promise.resolve(null);
  const wasm = compiled.then((result) => result?.module ?? null);
  const dataImage = compiled.then((result) => result?.dataImage ?? null);
  const core = fetchRuntime(coreUrl);
  const fetched = Object.fromEntries(Object.entries(files).map(([name, url]) => [name, fetchRuntime(url)]));
  const directory = fetchRuntime(stdlibUrl);
  const stdlib = { directory, readPart: (name) => readPartSync(new URL(name, stdlibUrl).href) };
  // Fetched once, for whichever start uses them. A module compiled by the page needs no type.
  // The plain file's type is checked only when it is fetched here.
  const checks = [Promise.resolve(wasm).then((module) => (module === null ? checkWasmType(pyodideUrl) : undefined)), directory];
  const start = async () => {
    if (snapshotUrl) {
      const pageCopy = sent?.snapshot ?? Promise.resolve(null);
      const snapshot = fetchSnapshot(snapshotUrl, dataImage, (url) =>
        pageCopy.then((bytes) => (bytes === null ? fetchStreamed(url) : new Response(bytes))),
      );
      // Handled here at once: a failed snapshot is no failed start (the guard of createServer would make it one).
      snapshot.catch(() => {});
      try {
        return await startPyodide({
          indexURL: pyodideUrl,
          // The snapshot was made with SNAPSHOT_ENV: restored, it needs the same.
          options: { ...options, env: SNAPSHOT_ENV },
          core,
          files: fetched,
          checks,
          snapshot,
          stdlib,
          wasm,
        });
      } catch {
        // A runtime file that failed fails the plain start too: the first that failed is the start's message, at
        // once, whatever became of the snapshot (waiting for it, the boot given up on could fail meanwhile in words
        // of its own, and createServer's guard would tell those instead).
        const fileFailure = await firstFailure([core, ...Object.values(fetched), ...checks]);
        if (fileFailure !== null) {
          throw fileFailure;
        }
        // Otherwise the snapshot could not be used: Python starts the plain way, and the reader is told nothing more.
      }
    }
    return await startPyodide({ indexURL: pyodideUrl, options, core, files: fetched, checks, stdlib, wasm });
  };
  let started;
  try {
    started = await start();
  } finally {
    restore();
  }
  // Only a start that succeeded waits for its copies: a failed one is told at once (the page then ends its worker).
  if (handed !== null) {
    await Promise.all(handed);
  }
  return started;
}

/** The page's two messages on `port`, {snapshot} and {compiled}, as two promises of their values (then it is closed). */
function readPort(port) {
  const waiting = {};
  const promises = {};
  for (const name of ["snapshot", "compiled"]) {
    promises[name] = new Promise((resolve) => {
      waiting[name] = resolve;
    });
  }
  port.onmessage = (event) => {
    for (const [name, value] of Object.entries(event.data ?? {})) {
      waiting[name]?.(value);
      delete waiting[name];
    }
    if (Object.keys(waiting).length === 0) {
      port.close();
    }
  };
  return promises;
}

/**
 * A part of the standard library, fetched while Python waits in an import: a synchronous request, which a worker
 * may make (the page's main thread may not, and never runs Python). Throws on anything but a 200.
 */
export function readPartSync(url) {
  const request = new XMLHttpRequest();
  request.open("GET", url, false);
  request.responseType = "arraybuffer";
  request.send();
  if (request.status !== 200) {
    throw new Error(`could not fetch ${url} (HTTP ${request.status})`);
  }
  return new Uint8Array(request.response);
}

/** The reason the first of `promises` to reject gave, or null once all have resolved. */
function firstFailure(promises) {
  return Promise.all(promises).then(
    () => null,
    (reason) => reason,
  );
}

/**
 * Fetch a snapshot's copy (sitegen/assets/python_snapshot.py: zstd of its heap less the wasm's data) and return it
 * decoded, once its bytes are checked against the hash in its name, with `dataImage` (a promise of the data's image,
 * client/python/wasm-data.mjs; of null when the page could not read it, and then the snapshot cannot be used) XORed back.
 * The whole heap is decoded at once (about 0.2 s for 31 MB here; xz, decoded as it arrived, cost a second a
 * worker). The decoder (the npm package fzstd, plain JavaScript: the workers' policy refuses the data: URL zstd's
 * WebAssembly decoders load from) is imported here, by the workers' bundles only: the runner under Node fetches no
 * snapshot.
 */
export async function fetchSnapshot(url, dataImage, fetchRuntime = fetchResponse) {
  const decoder = import("fzstd");
  const response = await fetchRuntime(url);
  const expected = /\.([0-9a-f]{8})\.bin$/.exec(new URL(url, "file:///").pathname)?.[1];
  const compressed = new Uint8Array(await response.arrayBuffer());
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", compressed));
  const actual = Array.from(digest.slice(0, 4), (byte) => byte.toString(16).padStart(2, "0")).join("");
  if (actual !== expected) {
    throw new Error(`the snapshot's bytes do not match its name (${actual}, not ${expected})`);
  }
  const { decompress } = await decoder;
  const heap = decompress(compressed);
  const image = await dataImage;
  if (image === null) {
    throw new Error("the WebAssembly's data was not read in the page");
  }
  return xorDataImage(heap, image);
}

/**
 * Count the bytes of every response this worker fetches while Python starts, calling `progress(received, total)`;
 * return the function that stops counting. total is the sum of the sizes the responses announce.
 */
function countDownloads(progress) {
  let received = 0;
  let total = 0;
  return interceptFetch(async (input, init, send) => {
    const response = await send(input, init);
    const size = Number(response.headers.get("content-length"));
    if (!response.ok || response.body === null || !Number.isFinite(size) || size <= 0 || init?.method === "HEAD") {
      return response;
    }
    total += size;
    progress(received, total);
    const counter = new TransformStream({
      transform(chunk, controller) {
        received += chunk.byteLength;
        progress(Math.min(received, total), total);
        controller.enqueue(chunk);
      },
    });
    // Headers kept: WebAssembly.instantiateStreaming reads the content type.
    return new Response(response.body.pipeThrough(counter), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  });
}

/**
 * Fetch a runtime file's bytes. fetch resolves on a 404; unpacking an error page would fail later with a far less
 * helpful message. With `handed` (a list), a copy is handed to the offline keep (runtime-handoff.mjs) and the
 * promise of that is added to it.
 */
export async function fetchBytes(url, handed = null) {
  return (await fetchResponse(url, handed)).arrayBuffer();
}

/** fetchBytes' response, its body unread (a 404 throws; `handed`: as for fetchBytes). */
export async function fetchResponse(url, handed = null) {
  const response = await fetch(url);
  if (!response.ok) {
    throw new Error(`could not fetch ${url} (HTTP ${response.status})`);
  }
  handed?.push(handOver(url, response.clone()));
  return response;
}

/**
 * Fail when the host labels Pyodide's WebAssembly with another type, the
 * commonest hosting mistake: Pyodide would wait forever (only a console
 * warning). Asking for the headers alone names the problem at once.
 */
export async function checkWasmType(pyodideUrl) {
  const response = await fetch(`${pyodideUrl}pyodide.asm.wasm`, { method: "HEAD" });
  const type = (response.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (response.ok && type !== "application/wasm") {
    throw new Error(`pyodide.asm.wasm is served as "${type}", not "application/wasm"`);
  }
}

/** A response that succeeded. */
export function success(result) {
  return { ok: true, result };
}

/** A failed response: the one error shape, {message, field} (field names the setting at fault, or is null). */
export function failure(message, field = null) {
  return { ok: false, error: { message, field } };
}

/** The reader-facing text of a failure: a PythonError's message is the whole traceback; its last line says what went wrong. */
export function describeFailure(error) {
  const text = String(error?.message ? error.message : error).trim();
  const lines = text.split("\n");
  return lines[lines.length - 1] || "unknown error";
}

/**
 * Return `handle(request, emit)`, answering one request {id, op, args} with
 * {id, ok, result | error}. "init" starts the runtime once (`start(args,
 * report)`, resolving to an object with a `version`, and optionally a `reply`
 * whose fields init's result carries beside it); `report(progress)` sends
 * {id, progress} to the first init's caller while it starts); every other op is
 * `ops[op](runtime, args, emit)`, resolving to a response. `emit(segment)`
 * sends {id, segment} before the response (a cell's output as it is written).
 * Nothing is thrown: every failure becomes a response.
 *
 * `guard(failStart)` is called once to hook the environment's
 * unhandled-rejection event: when a runtime file fails to download, Pyodide
 * leaves the rejected fetch unhandled and waits forever. failStart(reason)
 * turns that into a failed start and returns true while the start is under
 * way (Pyodide may leave more than one such rejection, so they stay silenced
 * once the start has failed; the page then ends the worker); after a
 * successful start it returns false, and later ones surface as the bugs they
 * would be.
 */
export function createServer({ start, ops, guard, send }) {
  let runtime = null; // Promise of start()'s result, set by the first "init".
  let failStart = null; // Rejects `runtime` until it has started.
  guard((reason) => {
    if (failStart === null) {
      return false;
    }
    failStart(reason);
    return true;
  });

  async function answer(op, args, emit, report) {
    if (op === "init") {
      if (runtime === null) {
        const failed = new Promise((_, reject) => {
          failStart = reject;
        });
        runtime = Promise.race([start(args, report), failed]);
        runtime.then(
          () => {
            failStart = null;
          },
          () => {},
        );
      }
      const { version, reply = {} } = await runtime;
      return success({ version, ...reply });
    }
    if (runtime === null) {
      return failure(`"${op}" needs "init" first`);
    }
    const handler = Object.hasOwn(ops, op) ? ops[op] : null;
    if (handler === null) {
      return failure(`unknown request "${op}"`);
    }
    return handler(await runtime, args, emit);
  }

  return async (request) => {
    const { id, op, args } = request ?? {};
    let response;
    try {
      response = await answer(
        op,
        Array.isArray(args) ? args : [],
        (segment) => send({ id, segment }),
        (progress) => send({ id, progress }),
      );
    } catch (error) {
      response = failure(describeFailure(error));
    }
    send({ id, ...response });
  };
}

/** Serve requests in a module Web Worker (`scope` is its global scope): each message a request, answered as it finishes. */
export function serveWorker(scope, { start, ops }) {
  const handle = createServer({
    start,
    ops,
    send: (message) => scope.postMessage(message),
    guard: (failStart) =>
      scope.addEventListener("unhandledrejection", (event) => {
        if (failStart(event.reason)) {
          event.preventDefault();
        }
      }),
  });
  scope.addEventListener("message", (event) => handle(event.data));
}
