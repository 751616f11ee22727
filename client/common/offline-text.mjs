// What a lab, a cell and the footer say when Python cannot start or be kept for want of the network (issue 56):
// the same words everywhere, and never the browser's own "Failed to fetch".

/**
 * How a lab and a cell begin to say that Python cannot start because the reader is offline and Python was not
 * kept: the same words in both (lab/start.mjs, cells.js). Neither then offers a button that needs the network.
 */
export const OFFLINE_TEXT = "You are offline, and Python was not kept for offline reading";

/** Whether the browser says the network is gone (keeping Python, or a Retry, cannot work then). */
export function isOffline() {
  return navigator.onLine === false;
}

/**
 * A start's failure in a reader's words: a fetch that failed at the network ("Failed to fetch" in Chromium,
 * "NetworkError…" in Firefox, "Load failed" in Safari) is said as what it means.
 */
export function describeStartError(error) {
  const message = error?.message ?? String(error);
  return /^(Failed to fetch|NetworkError|Load failed)/i.test(message) ? "its files could not be downloaded" : message;
}
