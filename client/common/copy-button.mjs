// A copy button the build wrote (shown only on a page that runs scripts,
// `html.js`, so a reader without JavaScript sees no dead control): it copies
// what `textOf()` returns.
// code.js connects the code blocks' and listings' buttons, cells.js the
// cells' (whose code the reader may have edited). When the clipboard refuses
// (no permission, or a page not served over HTTPS), `onFailure(text)` lets the
// caller offer the text to copy by hand.

/**
 * @param {HTMLElement} button
 * @param {() => string} textOf
 * @param {(text: string) => void} [onFailure]
 */
export function connectCopyButton(button, textOf, onFailure = () => {}) {
  const idle = button.textContent;
  const done = (label) => {
    button.textContent = label;
    button.toggleAttribute("data-copied", label === "Copied");
    setTimeout(() => {
      button.textContent = idle;
      button.removeAttribute("data-copied");
    }, 1500);
  };
  button.addEventListener("click", () => {
    const text = textOf();
    const fail = () => {
      done("Copy failed");
      onFailure(text);
    };
    if (!navigator.clipboard) {
      fail();
      return;
    }
    navigator.clipboard.writeText(text).then(() => done("Copied"), fail);
  });
}
