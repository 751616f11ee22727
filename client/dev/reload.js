// The dev server's reload script (`build.py serve` only; never written to dist/).
// The server adds it to every page it serves as a same-origin file, because the
// pages' Content-Security-Policy forbids inline scripts. It listens to the
// server's events: after a good rebuild it reloads the page; after a failed one
// it shows the `path:line: message` list over the page, which still shows the
// last good build.
// biome-ignore lint/suspicious/noRedundantUseStrict: a classic script (the server adds a <script src>), not a module
"use strict";
(() => {
  const script = document.currentScript;
  const servedBuild = Number(script ? script.dataset.build : -1);
  const prefix = "/__rollouts__/";

  const stylesheet = document.createElement("link");
  stylesheet.rel = "stylesheet";
  stylesheet.href = `${prefix}reload.css`;
  document.head.append(stylesheet);

  let overlay = null;

  function hideProblems() {
    if (overlay) overlay.remove();
    overlay = null;
  }

  function showProblems(problems) {
    hideProblems();
    overlay = document.createElement("section");
    overlay.className = "rollouts-dev-overlay";
    overlay.setAttribute("role", "alert");
    overlay.setAttribute("aria-labelledby", "rollouts-dev-overlay-title");
    const title = document.createElement("h2");
    title.id = "rollouts-dev-overlay-title";
    title.textContent = "The build failed";
    const note = document.createElement("p");
    note.textContent = "The page below is the last good build. Fix these and save; the page reloads by itself.";
    const list = document.createElement("ul");
    for (const problem of problems) {
      const item = document.createElement("li");
      const code = document.createElement("code");
      code.textContent = problem;
      item.append(code);
      list.append(item);
    }
    const close = document.createElement("button");
    close.type = "button";
    close.textContent = "Hide";
    close.addEventListener("click", hideProblems);
    overlay.append(title, note, list, close);
    document.body.append(overlay);
  }

  // biome-ignore lint/style/useTemplate: tests/site/serve/test_serve.py recognises the served script by this line
  const events = new EventSource(prefix + "events");
  events.addEventListener("hello", (event) => {
    const state = JSON.parse(event.data);
    // A build finished between serving this page and connecting: catch up.
    if (state.build !== servedBuild) location.reload();
    else if (state.problems.length) showProblems(state.problems);
  });
  events.addEventListener("reload", () => location.reload());
  events.addEventListener("build-error", (event) => showProblems(JSON.parse(event.data).problems));
})();
