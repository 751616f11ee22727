// Single-key shortcuts: / to search, n and p for the next and previous chapter, ? for their list.

import { isShortcutFree } from "./shortcut-keys.mjs";

const SHORTCUTS = [
  ["/", "Search"],
  ["n", "Next chapter"],
  ["p", "Previous chapter"],
  ["?", "Show these shortcuts"],
  ["Esc", "Close this list or the search results"],
];

function createShortcutsDialog() {
  const dialog = document.createElement("dialog");
  dialog.className = "shortcuts";
  dialog.setAttribute("aria-labelledby", "shortcuts-title");
  const title = document.createElement("h2");
  title.id = "shortcuts-title";
  title.textContent = "Keyboard shortcuts";
  const list = document.createElement("dl");
  for (const [key, meaning] of SHORTCUTS) {
    const term = document.createElement("dt");
    const kbd = document.createElement("kbd");
    kbd.textContent = key;
    term.append(kbd);
    const description = document.createElement("dd");
    description.textContent = meaning;
    list.append(term, description);
  }
  const note = document.createElement("p");
  note.textContent = "They do nothing while you type in a field, a lab control or a code editor.";
  const close = document.createElement("button");
  close.type = "button";
  close.className = "shortcuts-close";
  close.textContent = "Close";
  close.addEventListener("click", () => dialog.close());
  dialog.append(title, list, note, close);
  // A click on the backdrop (outside the box) closes it too.
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) dialog.close();
  });
  document.body.append(dialog);
  return dialog;
}

export function setUpShortcuts() {
  let dialog = null;
  document.addEventListener("keydown", (event) => {
    if (!isShortcutFree(event) || document.querySelector("dialog[open]")) return;
    if (event.key === "?") {
      event.preventDefault();
      dialog ??= createShortcutsDialog();
      dialog.showModal();
      return;
    }
    const rel = event.key === "n" ? "next" : event.key === "p" ? "prev" : "";
    const link = rel && /** @type {HTMLAnchorElement | null} */ (document.querySelector(`a[rel="${rel}"]`));
    if (!link) return;
    event.preventDefault();
    window.location.assign(link.href);
  });
}
