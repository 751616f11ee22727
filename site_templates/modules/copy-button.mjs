// A copy button: shown (the build renders it hidden, so a reader without
// JavaScript sees no dead control), it copies what `textOf()` returns.
// code.js connects the code blocks' and listings' buttons, cells.js the
// cells' (whose code the reader may have edited).

export function connectCopyButton(button, textOf) {
  const idle = button.textContent;
  const done = (label) => {
    button.textContent = label;
    button.toggleAttribute("data-copied", label === "Copied");
    setTimeout(() => {
      button.textContent = idle;
      button.removeAttribute("data-copied");
    }, 1500);
  };
  button.hidden = false;
  button.addEventListener("click", () => {
    if (!navigator.clipboard) {
      done("Copy failed");
      return;
    }
    navigator.clipboard.writeText(textOf()).then(
      () => done("Copied"),
      () => done("Copy failed"),
    );
  });
}
