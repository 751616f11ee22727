// Which chapters the reader has read to the end, ticked in the chapter list.

const PROGRESS_KEY = "rollouts-read";

function readProgress() {
  try {
    const stored = JSON.parse(window.localStorage.getItem(PROGRESS_KEY) || "[]");
    return new Set(Array.isArray(stored) ? stored.filter((name) => typeof name === "string") : []);
  } catch (_error) {
    return new Set(); // storage blocked or damaged: nothing remembered
  }
}

function storeProgress(read) {
  try {
    if (read.size) window.localStorage.setItem(PROGRESS_KEY, JSON.stringify([...read].sort()));
    else window.localStorage.removeItem(PROGRESS_KEY);
  } catch (_error) {
    // Storage blocked: the ticks last for this page only.
  }
}

function showProgress(read) {
  for (const tick of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("[data-progress-tick]")))
    tick.hidden = !read.has(tick.dataset.progressTick);
  for (const button of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("[data-progress-clear]")))
    button.hidden = read.size === 0;
}

// A chapter counts as read once its end (the pager under the last paragraph) has been on screen.
export function setUpReadingProgress() {
  let read = readProgress();
  showProgress(read);
  for (const button of document.querySelectorAll("[data-progress-clear]")) {
    button.addEventListener("click", () => {
      read = new Set();
      storeProgress(read);
      showProgress(read);
      /** @type {HTMLElement | null} */ (document.querySelector("[data-book-nav] summary") || document.querySelector("h1"))?.focus();
    });
  }
  window.addEventListener("storage", (event) => {
    if (event.key !== PROGRESS_KEY && event.key !== null) return;
    read = readProgress();
    showProgress(read);
  });
  const end = /** @type {HTMLElement | null} */ (document.querySelector("[data-chapter-end]"));
  if (!end || !("IntersectionObserver" in window)) return;
  const observer = new IntersectionObserver((records) => {
    if (!records.some((record) => record.isIntersecting)) return;
    read = readProgress();
    read.add(end.dataset.chapterEnd);
    storeProgress(read);
    showProgress(read);
    observer.disconnect();
  });
  observer.observe(end);
}
