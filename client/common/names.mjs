// Names and texts more than one of the site's scripts use, named once here.
// esbuild bundles into each script only the ones it imports.

/** localStorage key of the reader's colour scheme ("light" or "dark"; absent: follow the system). theme.js and reader.js. */
export const THEME_KEY = "rollouts-theme";

/** localStorage key of the reader's choice for long code lines ("wrap" or "scroll"; absent: wrap on narrow screens). theme.js and code.js. */
export const CODE_WRAP_KEY = "rollouts-code-wrap";

/** Where code wraps when the reader has not chosen (code.css says the same width). */
export const NARROW_CODE_QUERY = "(max-width: 40rem)";

/**
 * What starting Python downloads, as the lab tells a reader who saves data ("about 9 MB"): the build's count
 * (data-download-bytes on the page's runtime block: Pyodide, the core and the snapshot), in whole megabytes rounded
 * up; "" when the page does not say.
 */
export function describeDownload(blockId) {
  const bytes = Number(document.getElementById(blockId)?.dataset.downloadBytes);
  return Number.isFinite(bytes) && bytes > 0 ? `about ${Math.ceil(bytes / 1e6)} MB` : "";
}

/** The status line of a lab or a cell while Python starts. */
export const STARTING_TEXT = "Starting Python in your browser\u2026";

/** Read a page's JSON block of runtime URLs (id `blockId`), each resolved against the page: the site may live under any path. */
export function readRuntimeUrls(blockId) {
  const block = document.getElementById(blockId);
  if (block === null) {
    return null;
  }
  const urls = JSON.parse(block.textContent);
  return Object.fromEntries(Object.entries(urls).map(([name, value]) => [name, value ? new URL(value, document.baseURI).href : ""]));
}

/** The bytes a start fetches, as the build counted them (data-start-bytes on the page's runtime block; 0: not known). */
export function readStartBytes(blockId) {
  const bytes = Number(document.getElementById(blockId)?.dataset.startBytes);
  return Number.isFinite(bytes) && bytes > 0 ? bytes : 0;
}
