// Copy buttons and the wrap toggle on code blocks, listings and cells (a
// classic deferred script; esbuild bundles it). The Python cells' copy
// buttons are cells.js's: it knows the code the reader's editor holds.
//
// A block's buttons sit in a row above its code, so neither covers a line
// however the code scrolls or wraps. The build writes them (highlight.py,
// cell.html) so nothing moves when this script arrives; this connects them. Long lines wrap on narrow screens and
// scroll sideways on wide ones until the reader presses "Wrap lines"; the
// choice is one for every block and remembered (CODE_WRAP_KEY, read before
// the first paint by theme.js).

import { linesWrap, narrowCode } from "./common/code-wrap.mjs";
import { connectCopyButton } from "./common/copy-button.mjs";
import { CODE_WRAP_KEY } from "./common/names.mjs";

const root = document.documentElement;
const wrapButtons = Array.from(document.querySelectorAll(".wrap-code"));

function showWrapState() {
  const wrapping = String(linesWrap());
  for (const button of wrapButtons) button.setAttribute("aria-pressed", wrapping);
}

for (const button of wrapButtons) {
  button.addEventListener("click", () => {
    const choice = linesWrap() ? "scroll" : "wrap";
    root.setAttribute("data-code-wrap", choice);
    try {
      window.localStorage.setItem(CODE_WRAP_KEY, choice);
    } catch {
      // Storage can be blocked: the choice then lasts for this page only.
    }
    showWrapState();
  });
}

for (const block of document.querySelectorAll(".code-block")) {
  const copy = /** @type {HTMLElement} */ (block.querySelector("[data-copy-code]"));
  connectCopyButton(copy, () => block.querySelector("pre code")?.textContent ?? "");
}
showWrapState();
narrowCode.addEventListener("change", showWrapState);
