// Whether long code lines wrap: the reader's choice ("Wrap lines", data-code-wrap on <html>, set by theme.js
// and code.js), else the screen's width (NARROW_CODE_QUERY). Code blocks (css/code.css) and the cells' editor
// (editor/cell-editor.js) follow the same rule.

import { NARROW_CODE_QUERY } from "./names.mjs";

export const narrowCode = window.matchMedia(NARROW_CODE_QUERY);

export function linesWrap() {
  const chosen = document.documentElement.getAttribute("data-code-wrap");
  return chosen === null ? narrowCode.matches : chosen === "wrap";
}

/** Call `onChange` whenever the answer of `linesWrap` may have changed; returns the function that stops it. */
export function watchLinesWrap(onChange) {
  const observer = new MutationObserver(onChange);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ["data-code-wrap"] });
  narrowCode.addEventListener("change", onChange);
  return () => {
    observer.disconnect();
    narrowCode.removeEventListener("change", onChange);
  };
}
