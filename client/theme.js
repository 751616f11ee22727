// Written inline at the top of every page's <head>, before the stylesheets
// (esbuild bundles it into one function; the page's policy allows it by its
// hash: assets/plan.py), so the first paint already uses the reader's chosen
// colour scheme (no flash of the other one) and costs no request.
// It also marks the document as scripted: the search box and the theme toggle
// are shown only then, and take their place without moving anything once
// reader.js arrives. And it sets how long code lines show (data-code-wrap).

import { CODE_WRAP_KEY, THEME_KEY } from "./common/names.mjs";
import { showThemeColour } from "./common/theme-colour.mjs";

const root = document.documentElement;
root.classList.add("js");
try {
  const saved = window.localStorage.getItem(THEME_KEY);
  if (saved === "light" || saved === "dark") {
    root.setAttribute("data-theme", saved);
    showThemeColour(saved);
  }
  // Long code lines wrap or scroll as the reader chose (code.js's toggle) from the first paint.
  const wrap = window.localStorage.getItem(CODE_WRAP_KEY);
  if (wrap === "wrap" || wrap === "scroll") root.setAttribute("data-code-wrap", wrap);
} catch {
  // Storage can be blocked (private modes, strict settings): follow the system setting.
}
