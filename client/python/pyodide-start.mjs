// Pyodide's start, in one place for the three Python runtimes: the lab's
// worker (client/lab-worker.js), the cells' worker (client/cell-worker.js)
// and the build's cell runner under Node (pysrc/sitegen/check/cell_runner.mjs),
// with the memory snapshot it starts from. esbuild bundles it into each worker;
// Node imports it as it is. Beside it, by concern: the standard library's
// parts (stdlib.mjs), the downloads (downloads.mjs), the two wrappers Pyodide
// has no option for (pyodide-hooks.mjs) and the request loop
// (worker-protocol.mjs). The protocol is described in docs/workers.md.
//
// Nothing here touches the DOM, the worker's global scope or Node's: the
// caller passes what to listen on (serveWorker, or its own loop around
// createServer).

import { CELL_HASH_SEED, KERNEL_MODULE } from "./cell-kernel.mjs";
import { checkNamedBytes, checkWasmType, countDownloads, fetchBytes, fetchResponse } from "./downloads.mjs";
import { answerLocally, answerWasmLocally, WASM_FILE, watchCompile } from "./pyodide-hooks.mjs";
import { assembleStdlib, readPartSync, STDLIB_PLACEHOLDER } from "./stdlib.mjs";
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
 * nothing, and never sent; a promise that gives null (the page could not compile it) lets the request through,
 * and its response is passed to `count` (pyodide-hooks.mjs says why these two requests are answered there).
 *
 * With `lockFile` (a function returning a promise of the lock file's text) the lock file is what it gives, asked
 * for as the boot begins (loadPyodide's lockFileContents), instead of Pyodide's own fetch of indexURL's lock file.
 */
export async function startPyodide({
  indexURL,
  options = {},
  core,
  files = {},
  checks = [],
  snapshot = null,
  stdlib = null,
  wasm = null,
  count = (response) => response,
  lockFile = null,
}) {
  /** @type {Record<string, unknown>} loadPyodide's options (PyodideConfig) */
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
    unhooks.push(answerWasmLocally(url, wasm, count));
  }
  const unhook = () => {
    for (const undo of unhooks.splice(0)) undo();
  };
  const compiling = watchCompile();
  // indexURL pins every runtime file to the site's own copy; no package is
  // ever loaded by name, which would make Pyodide fall back to its CDN.
  const booted = import(`${indexURL}${PYODIDE_MODULE}`).then(({ loadPyodide }) =>
    loadPyodide(lockFile === null ? settings : { ...settings, lockFileContents: lockFile() }),
  );
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

/**
 * What a snapshot holds beyond a plain start: the core and what the lab's bridge imports, then the cells' kernel,
 * which records the modules imported before it as the baseline every page of cells returns to. So a page's first cell
 * finds the core imported, as the lab does, instead of compiling it and its part of the standard library again from
 * their sources (half a second of a cell's first run). A plain start imports the same (importSnapshotModules), so a
 * page of cells starts from the same interpreter, restored or not.
 */
export const SNAPSHOT_IMPORTS = `import json\nimport rollout_lab\nimport rollout_lab.widgets\nimport ${KERNEL_MODULE}`;

/**
 * Import SNAPSHOT_IMPORTS into `pyodide`: what a restored Python has imported already (there, nothing is done), into a
 * Python started plainly, before its kernel is used.
 */
export function importSnapshotModules(pyodide) {
  pyodide.runPython(SNAPSHOT_IMPORTS);
}

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
  // Without `lock`, Pyodide's own default: the lock file in its folder.
  const { pyodide: pyodideUrl, core: coreUrl, stdlib: stdlibUrl, snapshot: snapshotUrl = "" } = runtime;
  const lockFileURL = runtime.lock ?? `${pyodideUrl}pyodide-lock.json`;
  const count = progress === null ? (response) => response : countDownloads(progress);
  const handed = handOver ? [] : null; // copies put into the offline keep's cache, waited for before the start resolves
  const fetchRuntime = (url) => fetchBytes(url, handed, count);
  const fetchStreamed = (url) => fetchResponse(url, handed, count);
  // The lock file fetched here when each boot begins, as Pyodide would fetch it (not handed to the offline keep), so it
  // is counted; packageBaseUrl is what Pyodide makes of a lockFileURL (its folder), though no package is ever loaded.
  const lockFile = () => fetchResponse(lockFileURL, null, count).then((response) => response.text());
  const packageBaseUrl = lockFileURL.slice(0, lockFileURL.lastIndexOf("/") + 1);
  const options = { packageBaseUrl, ...given };
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
      const snapshot = fetchSnapshot(
        snapshotUrl,
        dataImage,
        (url) => pageCopy.then((bytes) => (bytes === null ? fetchStreamed(url) : new Response(bytes))),
        loadZstdDecoder(`${pyodideUrl}${ZSTD_DECODER}`, fetchStreamed),
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
          count,
          lockFile,
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
    return await startPyodide({ indexURL: pyodideUrl, options, core, files: fetched, checks, stdlib, wasm, count, lockFile });
  };
  const started = await start();
  // Only a start that succeeded waits for its copies: a failed one is told at once (the page then ends its worker).
  if (handed !== null) {
    await Promise.all(handed);
  }
  return started;
}

/** @typedef {(compressed: Uint8Array) => Uint8Array} ZstdDecompress a zstd frame's decoder */

/** The gzip copy of the snapshot's zstd decoder, by its name in the runtime's folder (sitegen/assets/runtime.py). */
export const ZSTD_DECODER = "zstd-decoder.wasm.gz.bin";

/**
 * A promise of the zstd decoder's `decompress(bytes)`: the npm package @bokuweb/zstd-wasm (zstd's own C, compiled to
 * WebAssembly: the heap in about half fzstd's time, docs/benchmarks.md), its module fetched from the site at `url`
 * (the workers' policy refuses the data: URL other WebAssembly decoders load theirs from), decoded by the browser's
 * DecompressionStream and compiled from its bytes. When it cannot be had in any way (a 404, damaged bytes, no
 * DecompressionStream), fzstd (plain JavaScript), silently: the snapshot's start never fails for its decoder.
 * Imported here, by the workers' bundles only: the runner under Node fetches no snapshot.
 */
/** @returns {Promise<ZstdDecompress>} */
export async function loadZstdDecoder(url, fetchRuntime = fetchResponse) {
  try {
    const response = await fetchRuntime(url);
    const module = new Uint8Array(await new Response(response.body.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer());
    // The package's loader never settles for a module that does not compile: it is checked first.
    if (!WebAssembly.validate(module)) {
      throw new Error(`${url} is not a WebAssembly module`);
    }
    // Its loader compiles a module's bytes as well as a URL's (its declared types name neither).
    const decoder = /** @type {{init: (module: Uint8Array) => Promise<void>, decompress: ZstdDecompress}} */ (
      /** @type {unknown} */ (await import("@bokuweb/zstd-wasm"))
    );
    await decoder.init(module);
    return decoder.decompress;
  } catch {
    return await loadFzstd();
  }
}

/** @returns {Promise<ZstdDecompress>} */
async function loadFzstd() {
  return (await import("fzstd")).decompress;
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
 * The whole heap is decoded at once by `decoder` (a promise of a zstd `decompress`: loadZstdDecoder's, by default fzstd).
 */
export async function fetchSnapshot(url, dataImage, fetchRuntime = fetchResponse, decoder = loadFzstd()) {
  const response = await fetchRuntime(url);
  const compressed = new Uint8Array(await response.arrayBuffer());
  await checkNamedBytes(url, compressed, "the snapshot's");
  const decompress = await decoder;
  const heap = decompress(compressed);
  const image = await dataImage;
  if (image === null) {
    throw new Error("the WebAssembly's data was not read in the page");
  }
  return xorDataImage(heap, image);
}
