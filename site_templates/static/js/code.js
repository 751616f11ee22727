// Copy buttons on code blocks, listings and Python cells. The build renders
// every button hidden, so a reader without JavaScript sees no dead control.
"use strict";

(function () {
  /** The code a button copies: its block's <code>, or a cell's current code (which its editor may have changed). */
  function codeFor(button) {
    const cell = button.closest("[data-cell]");
    if (cell !== null && typeof cell.cellCode === "function") {
      return cell.cellCode();
    }
    const block = button.closest(".code-block, [data-cell]");
    const code = block === null ? null : block.querySelector("pre code");
    return code === null ? "" : code.textContent;
  }

  function copy(button) {
    const text = codeFor(button);
    const done = (label) => {
      button.textContent = label;
      button.toggleAttribute("data-copied", label === "Copied");
      setTimeout(() => {
        button.textContent = "Copy";
        button.removeAttribute("data-copied");
      }, 1500);
    };
    if (!navigator.clipboard) {
      done("Copy failed");
      return;
    }
    navigator.clipboard.writeText(text).then(
      () => done("Copied"),
      () => done("Copy failed"),
    );
  }

  for (const button of document.querySelectorAll("[data-copy-code]")) {
    button.hidden = false;
    button.addEventListener("click", () => copy(button));
  }
})();
