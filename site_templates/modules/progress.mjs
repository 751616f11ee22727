// The progress bar a lab's status line and a cell's show while Python
// downloads and starts: determinate (bytes of the total) while the runtime's
// files arrive, then without a value ("starting") once they have. Screen
// readers are told only that Python starts and that it is ready (by the
// callers' announcements), never each step.

/** A fresh progress bar, without a value until the first bytes arrive. */
export function createProgress() {
  const bar = document.createElement("progress");
  bar.setAttribute("aria-label", "Starting Python");
  return bar;
}

/** Show {received, total} bytes; once everything has arrived, Python is starting. */
export function updateProgress(bar, { received, total }) {
  if (!(total > 0)) {
    return;
  }
  if (received >= total) {
    bar.removeAttribute("value");
    bar.title = "Starting Python";
    return;
  }
  bar.max = total;
  bar.value = received;
  bar.title = `Downloaded ${(received / 1e6).toFixed(1)} of ${(total / 1e6).toFixed(1)} MB`;
}
