// What the page fetched of Python's runtime, handed to the offline keep so
// that nothing is sent twice (issue 40): the page (its compressed wasm) and
// the workers (the snapshot, the core, the lock file, the standard library's
// directory) put a copy of each response into one Cache Storage cache as it
// arrives, and the site's service worker (client/offline/service-worker.js,
// FETCHED_RUNTIME there) takes them from it instead of fetching them again,
// then empties it. Every file handed over is named by its content's hash, so a
// copy can never be another build's. Nothing is handed over where nothing
// will keep it (no offline reading, Save-Data, the dev server).

export const FETCHED_RUNTIME = "rollouts:fetched-runtime";

/** Whether this page's offline reading will keep Python's runtime once it starts (offline.js): only then is it handed over. */
export function keepsRuntime() {
  return (
    typeof document !== "undefined" &&
    document.querySelector("[data-offline]") !== null &&
    "serviceWorker" in navigator &&
    "caches" in globalThis &&
    navigator.connection?.saveData !== true &&
    document.querySelector("script[data-rollouts-dev]") === null
  );
}

/** Put a copy of `response` (a clone, read beside the caller's) into the cache; never rejects (a full storage only costs a download). */
export async function handOver(url, response) {
  try {
    await (await caches.open(FETCHED_RUNTIME)).put(url, response);
  } catch (error) {
    console.warn(`${url} could not be handed to the offline keep (${error?.message ?? error})`);
  }
}
