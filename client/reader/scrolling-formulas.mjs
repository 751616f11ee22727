// Display math is a tab stop only while it scrolls sideways, so a keyboard can scroll it.
export function setUpScrollingFormulas() {
  const formulas = [.../** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(".math-display"))];
  if (formulas.length === 0) return;
  const mark = () => {
    for (const formula of formulas) {
      const scrolls = formula.scrollWidth > formula.clientWidth + 1;
      if (scrolls) {
        formula.tabIndex = 0;
        formula.setAttribute("role", "group");
        formula.setAttribute("aria-label", "Formula (scrolls sideways)");
      } else {
        formula.removeAttribute("tabindex");
        formula.removeAttribute("role");
        formula.removeAttribute("aria-label");
      }
    }
  };
  if ("ResizeObserver" in window) {
    const observer = new ResizeObserver(mark);
    for (const formula of formulas) observer.observe(formula);
  } else {
    /** @type {Window} */ (window).addEventListener("resize", mark); // `"ResizeObserver" in window` left `never` here
  }
  mark();
}
