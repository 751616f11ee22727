// The progress bar a lab's status line and a cell's show while Python
// downloads and starts: determinate (bytes of the total) while the runtime's
// files arrive, then without a value ("starting") once they have. The build
// knows how many bytes a start fetches (`startBytes` in the page's runtime
// block: LabAssets/CellAssets in pysrc/sitegen/context.py), so the total is
// right from the first byte (but for the wasm's gzip copy, taken on a fast
// link: python-worker.mjs) and the bar never moves backwards when a large
// file's size arrives late. The megabytes are written beside the bar, not
// only in a tooltip. Screen readers are told only that Python starts and that
// it is ready (by the callers' announcements), never each step.

const MEGABYTE = 1e6;

/** A fresh progress bar for a start expected to fetch `expectedBytes` (0: not known), with its visible byte count. */
export function createProgress(expectedBytes = 0) {
  const box = document.createElement("span");
  box.className = "start-progress";
  const bar = document.createElement("progress");
  bar.setAttribute("aria-label", "Starting Python");
  bar.dataset.expected = String(Math.max(expectedBytes, 0));
  const text = document.createElement("span");
  text.className = "start-progress-text";
  // Read in the bar's name and value; spoken again on every byte it would be noise.
  text.setAttribute("aria-hidden", "true");
  box.append(bar, text);
  if (expectedBytes > 0) {
    bar.max = expectedBytes;
    bar.value = 0;
    text.textContent = describe(0, expectedBytes);
  }
  return box;
}

/** Show {received, total} bytes in a bar made by createProgress; once everything has arrived, Python is starting. */
export function updateProgress(box, { received, total }) {
  const bar = box.querySelector("progress");
  const text = box.querySelector(".start-progress-text");
  const expected = Number(bar.dataset.expected);
  // The build's figure is the total; a start that fetches more than it said (another host's headers) grows it.
  const whole = Math.max(expected, total, 0);
  if (!(whole > 0)) {
    return;
  }
  if (received >= whole) {
    bar.removeAttribute("value");
    bar.title = "Starting Python";
    text.textContent = `${(whole / MEGABYTE).toFixed(1)} MB downloaded`;
    return;
  }
  // Never backwards: a larger total (the page took the wasm's gzip copy, 0.9 MB more than the build counted; another
  // host's headers) only holds the bar where it was until the bytes catch up. The value is a whole number of bytes,
  // so it is rounded up until value / max is at least the fraction shown before, exactly as the bar computes it.
  const before = Number(bar.dataset.shown ?? 0);
  let value = Math.max(received, Math.ceil(before * whole));
  while (value / whole < before) {
    value += 1;
  }
  bar.dataset.shown = String(value / whole);
  bar.max = whole;
  bar.value = value;
  const line = describe(received, whole);
  bar.title = `Downloaded ${line}`;
  text.textContent = line;
}

function describe(received, total) {
  return `${(received / MEGABYTE).toFixed(1)} of ${(total / MEGABYTE).toFixed(1)} MB`;
}
