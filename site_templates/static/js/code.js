// Copy buttons on code blocks and listings (a classic deferred script; esbuild
// bundles it). The Python cells' buttons are cells.js's: it knows the code the
// reader's editor holds.

import { connectCopyButton } from "../../modules/copy-button.mjs";

for (const button of document.querySelectorAll("[data-copy-code]")) {
  if (button.closest("[data-cell]") === null) {
    connectCopyButton(button, () => button.closest(".code-block")?.querySelector("pre code")?.textContent ?? "");
  }
}
