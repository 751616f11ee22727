// The site's service worker: the whole tutorial readable offline after one
// visit, Python included once the reader wants it (docs/readers.md, "Offline").
// The build writes it to dist/sw.js with its manifest in front
// (`const MANIFEST = {...};`, see pysrc/sitegen/publish/offline.py): every
// file of the build, what it is for, and for the files whose names do not
// change with their content, a hash of it.
//
// - One cache per build ("rollouts:" + the registration's path + ":" + the
//   build's version), and caches are this site's alone: two tutorials under
//   one origin (USER.github.io/a/ and /b/) keep and delete only their own
//   (a prefix ends with ":", so /a/'s never matches /a/b/'s). A build is
//   installed whole or not at all: every page, style, script, search index,
//   figure and font ("shell"), each page checked against its hash, so a cache
//   never holds pages of one build and assets of another. Files whose names
//   carry their content's hash are copied from the previous build's cache
//   instead of downloaded again, if their bytes still hash to their name:
//   every file stored is checked, downloaded or copied.
// - Python's runtime (Pyodide, the snapshot, the core, the cells' kernel and
//   editor: "runtime", most of the bytes) is kept only when the reader asks:
//   a page posts "keep-runtime" once Python has started, or when the reader
//   presses "Keep for offline reading". The wish is remembered across builds.
// - The first build installed takes over at once (clients.claim: the page
//   that registered it is served by it, so the runtime is not downloaded
//   twice); a later one waits until the reader chooses to reload, so a page
//   never switches builds under the reader.
// - Answers come from the build's cache first, then the network; a page that
//   is in neither gets offline.html. HEAD requests (the lab checks the wasm's
//   type with one) are answered from the cached response's headers.
// - What goes wrong is said to the open pages, never left as an empty box: a
//   build that cannot be kept ("install-failed": the browser's storage is
//   full, or a file failed) and a file of this build that the host no longer
//   has ("file-gone": a new build was deployed while the reader was reading;
//   the page offers the new version).

/* global MANIFEST */

const SCOPE = new URL("./", self.location.href);
// This site's caches: the registration's path is part of every name.
const PREFIX = `rollouts:${SCOPE.pathname}:`;
const CACHE = `${PREFIX}${MANIFEST.version}`;
// Remembers, across builds, that the reader wants Python kept (an entry in a cache of its own).
const WISHES = `${PREFIX}wishes`;
const RUNTIME_WISH = "runtime-wanted";
// What the pages fetched of the runtime while Python started, handed over to be kept rather than fetched again
// (client/python/runtime-handoff.mjs, FETCHED_RUNTIME: the same name). Files named by their content only.
const FETCHED_RUNTIME = "rollouts:fetched-runtime";
const PARALLEL_DOWNLOADS = 6;

/** The absolute URL of a file of the site, from its path under dist/. */
function urlOf(path) {
  return new URL(path, SCOPE).href;
}

/** The hex SHA-256 of some bytes, cut to the manifest's length. */
async function digest(bytes, length) {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(hash, (byte) => byte.toString(16).padStart(2, "0"))
    .join("")
    .slice(0, length);
}

/** What a failure to keep files says to the reader: a full storage in words, anything else as it is. */
function describeStorageFailure(error) {
  if (error?.name === "QuotaExceededError") {
    return "the browser's storage for this site is full";
  }
  return String(error?.message ?? error);
}

/** The cache of the build that was active before this one, or null. */
async function previousCache() {
  const names = (await caches.keys()).filter((name) => name.startsWith(PREFIX) && name !== CACHE && name !== WISHES);
  return names.length ? caches.open(names[names.length - 1]) : null;
}

/** The hash of its bytes that a content-named file's name carries ("name.HASH.ext"), or null. */
function hashInName(path) {
  return /\.([0-9a-f]{8,64})\.[^./]+$/.exec(path)?.[1] ?? null;
}

/** A response with the same status and headers as `response` and `bytes` for its body. */
function withBytes(response, bytes) {
  return new Response(bytes, { status: response.status, headers: response.headers });
}

/**
 * Put every entry [path, revision, size] into `cache`. Each file's bytes must hash to what is expected of them: its
 * revision, or for a content-named file (revision null) the hash its name carries. One already in `cache`, in
 * `previous` or among what the pages fetched (FETCHED_RUNTIME) is kept only if its bytes do (a file cut short as it
 * was stored, or written there by a page's script, is not); anything else is downloaded and checked, and a download
 * that does not match is refused: the build is not installed. `counted(bytes)` follows the bytes.
 * @param {(bytes: number) => void} [counted]
 */
async function fill(cache, entries, previous, counted = () => {}) {
  const queue = [...entries];
  /** Whether `bytes` are the expected ones (a file expected of nothing cannot be checked, so is never kept). */
  const matches = async (bytes, expected) => expected !== null && (await digest(bytes, expected.length)) === expected;
  async function next() {
    while (queue.length) {
      const [path, revision, size] = queue.shift();
      const url = urlOf(path);
      const expected = revision ?? hashInName(path);
      const candidates = [cache, ...(previous !== null ? [previous] : [])];
      let kept = false;
      for (const found of [
        ...(await Promise.all(candidates.map((each) => each.match(url)))),
        await caches.match(url, { cacheName: FETCHED_RUNTIME }),
      ]) {
        const bytes = found ? new Uint8Array(await found.arrayBuffer()) : null;
        if (bytes !== null && (await matches(bytes, expected))) {
          await cache.put(url, withBytes(found, bytes));
          kept = true;
          break;
        }
      }
      if (kept) {
        counted(size);
        continue;
      }
      // A page's name does not change with its content: ask the host, not the HTTP cache.
      const response = await fetch(url, { cache: revision === null ? "default" : "no-cache" });
      if (!response.ok) {
        throw new Error(`${path}: HTTP ${response.status}`);
      }
      const bytes = await readCounting(response, counted);
      if (!(await matches(bytes, expected))) {
        // Cut short on the way, or the host already serves another build: this one is not installed (the other's
        // worker will be).
        throw new Error(`${path} is not this build's (its bytes do not hash to ${expected ?? "anything named"})`);
      }
      await cache.put(url, withBytes(response, bytes));
    }
  }
  await Promise.all(Array.from({ length: PARALLEL_DOWNLOADS }, next));
}

/** A response's bytes, calling `counted(bytes)` for each piece as it arrives. */
async function readCounting(response, counted) {
  if (response.body === null) {
    return new Uint8Array(0);
  }
  const pieces = [];
  let length = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      break;
    }
    pieces.push(value);
    length += value.byteLength;
    counted(value.byteLength);
  }
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const piece of pieces) {
    bytes.set(piece, offset);
    offset += piece.byteLength;
  }
  return bytes;
}

async function runtimeWanted() {
  return (await (await caches.open(WISHES)).match(RUNTIME_WISH)) !== undefined;
}

/** Whether every runtime file is in this build's cache. */
async function runtimeKept(cache) {
  for (const [path] of MANIFEST.runtime) {
    if (!(await cache.match(urlOf(path)))) {
      return false;
    }
  }
  return true;
}

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      try {
        const cache = await caches.open(CACHE);
        const previous = await previousCache();
        await fill(cache, MANIFEST.shell, previous);
        if (await runtimeWanted()) {
          await fill(cache, MANIFEST.runtime, previous);
          await caches.delete(FETCHED_RUNTIME);
        }
      } catch (error) {
        // Not installed: the pages that asked are told why (they are not this worker's clients yet).
        await tell({ op: "install-failed", message: describeStorageFailure(error) });
        throw error;
      }
      if (self.registration.active === null) {
        // The first build this browser installs: nothing to switch from, so it serves the open pages at once.
        await self.skipWaiting();
      }
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith(PREFIX) && name !== CACHE && name !== WISHES) {
          await caches.delete(name);
        }
      }
      await self.clients.claim();
    })(),
  );
});

/** The cache key of a request for a page: "folder/" is its index.html, "name" (a pretty URL) is name.html. */
function pageKey(url) {
  const path = url.pathname;
  if (path.endsWith("/")) {
    return `${url.origin}${path}index.html`;
  }
  const last = path.slice(path.lastIndexOf("/") + 1);
  return last.includes(".") ? `${url.origin}${path}` : `${url.origin}${path}.html`;
}

const LISTED = new Set([...MANIFEST.shell, ...MANIFEST.runtime].map(([path]) => urlOf(path)));

/** Whether a URL is one of this build's files. */
function listed(url) {
  return LISTED.has(`${url.origin}${url.pathname}`);
}

async function answer(request) {
  const cache = await caches.open(CACHE);
  const url = new URL(request.url);
  const navigation = request.mode === "navigate";
  // A shared link's settings (?T=2&K=8) do not make another page.
  const cached = navigation ? await cache.match(pageKey(url), { ignoreSearch: true }) : await cache.match(url.href);
  if (cached !== undefined) {
    return request.method === "HEAD" ? new Response(null, { status: cached.status, headers: cached.headers }) : cached;
  }
  try {
    const response = await fetch(request);
    if (response.status === 404 && listed(url)) {
      // This build names the file, and the host no longer has it: a newer build is deployed there.
      tell({ op: "file-gone", path: url.pathname });
    }
    return response;
  } catch (error) {
    const offline = navigation ? await cache.match(urlOf(MANIFEST.offline)) : undefined;
    if (offline === undefined) {
      throw error;
    }
    // Its links are relative to the site's root: deeper down, the reader is sent there instead.
    return new URL("./", url).href === SCOPE.href ? offline : Response.redirect(urlOf(MANIFEST.offline), 303);
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if ((request.method !== "GET" && request.method !== "HEAD") || !request.url.startsWith(SCOPE.href)) {
    return;
  }
  event.respondWith(answer(request));
});

let keeping = null; // The runtime's download under way, shared by every page that asks.

/** Send a message to every open page of the site (those of another build too: a failed install tells its own). */
async function tell(message) {
  for (const client of await self.clients.matchAll({ includeUncontrolled: true })) {
    client.postMessage(message);
  }
}

/** Keep the runtime in this build's cache, telling every open page how far it got. */
function keepRuntime() {
  keeping ??= (async () => {
    await (await caches.open(WISHES)).put(RUNTIME_WISH, new Response("yes"));
    const cache = await caches.open(CACHE);
    let received = 0;
    await fill(cache, MANIFEST.runtime, await previousCache(), (size) => {
      received += size;
      tell({ op: "runtime-progress", received, total: MANIFEST.runtimeBytes });
    });
    // Kept now: the pages' copies are of no further use.
    await caches.delete(FETCHED_RUNTIME);
    await tell({ op: "runtime-kept", total: MANIFEST.runtimeBytes });
  })().catch((error) => {
    keeping = null;
    return tell({ op: "runtime-failed", message: describeStorageFailure(error) });
  });
  return keeping;
}

self.addEventListener("message", (event) => {
  const op = event.data?.op;
  if (op === "status") {
    event.waitUntil(
      caches.open(CACHE).then(async (cache) =>
        event.source.postMessage({
          op: "status",
          version: MANIFEST.version,
          runtimeKept: await runtimeKept(cache),
          runtimeBytes: MANIFEST.runtimeBytes,
        }),
      ),
    );
  } else if (op === "keep-runtime") {
    event.waitUntil(keepRuntime());
  } else if (op === "skip-waiting") {
    event.waitUntil(self.skipWaiting());
  }
});
