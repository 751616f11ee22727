// The colour-scheme toggle: the reader's choice, kept across pages and tabs, or the system's.

import { THEME_KEY } from "../common/names.mjs";
import { showThemeColour } from "../common/theme-colour.mjs";

const root = document.documentElement;
const systemDark = window.matchMedia("(prefers-color-scheme: dark)");

function readSystemTheme() {
  return systemDark.matches ? "dark" : "light";
}

function readTheme() {
  return root.dataset.theme || readSystemTheme();
}

function storeTheme(theme) {
  try {
    if (theme) window.localStorage.setItem(THEME_KEY, theme);
    else window.localStorage.removeItem(THEME_KEY);
  } catch (_error) {
    // Storage blocked: the choice lasts for this page only.
  }
}

function applyTheme(theme) {
  if (theme) root.dataset.theme = theme;
  else delete root.dataset.theme;
  showThemeColour(theme);
}

export function setUpThemeToggle() {
  const button = document.querySelector("[data-theme-toggle]");
  if (!button) return;
  const showState = () => button.setAttribute("aria-pressed", String(readTheme() === "dark"));
  button.addEventListener("click", () => {
    const chosen = readTheme() === "dark" ? "light" : "dark";
    // Choosing what the system shows anyway means "follow the system" again.
    const stored = chosen === readSystemTheme() ? null : chosen;
    applyTheme(stored);
    storeTheme(stored);
    showState();
  });
  systemDark.addEventListener("change", showState);
  // Another tab changed the choice: follow it here too.
  window.addEventListener("storage", (event) => {
    if (event.key !== THEME_KEY) return;
    applyTheme(event.newValue === "light" || event.newValue === "dark" ? event.newValue : null);
    showState();
  });
  showState();
}
