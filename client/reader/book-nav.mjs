const WIDE_SCREEN = window.matchMedia("(min-width: 78rem)");

// Wide screens show the chapter list as an open sidebar; phones keep it folded into one line.
export function setUpBookNav() {
  const nav = /** @type {HTMLDetailsElement | null} */ (document.querySelector("[data-book-nav]"));
  if (!nav) return;
  const fit = () => {
    nav.open = WIDE_SCREEN.matches;
  };
  WIDE_SCREEN.addEventListener("change", fit);
  fit();
}
