// Loaded as a blocking script at the top of <head>, before the stylesheets, so
// the first paint already uses the reader's chosen colour scheme (no flash of
// the other one). It also marks the document as scripted: the search box and
// the theme toggle are shown only then, and take their place without moving
// anything once reader.js arrives.
(function () {
  var root = document.documentElement;
  root.classList.add("js");
  try {
    var saved = window.localStorage.getItem("rollouts-theme");
    if (saved === "light" || saved === "dark") root.setAttribute("data-theme", saved);
  } catch (error) {
    // Storage can be blocked (private modes, strict settings): follow the system setting.
  }
})();
