// Search over the build-time index (search-index.json), with search.js and MiniSearch loaded on first use.

import { isShortcutFree } from "./shortcut-keys.mjs";

const MAX_RESULTS = 8;
// Our search options and helpers (search.js, an ES module), once the reader has searched.
let searchHelpers = null;
// Appends `text` to `parent`, each word the search matched wrapped in <mark> (search.js finds them).
function appendHighlighted(parent, text, matched) {
  let start = 0;
  for (const [at, length] of searchHelpers.findMatchedWords(text, matched)) {
    parent.append(text.slice(start, at));
    const mark = document.createElement("mark");
    mark.textContent = text.slice(at, at + length);
    parent.append(mark);
    start = at + length;
  }
  parent.append(text.slice(start));
}

function goToUrl(target) {
  const here = new URL(window.location.href);
  if (target.pathname !== here.pathname || !target.hash) {
    window.location.assign(target.href);
    return;
  }
  // Same page: move there without reloading, and put keyboard focus on the heading.
  const element = document.getElementById(decodeURIComponent(target.hash.slice(1)));
  if (target.hash !== here.hash) window.history.pushState(null, "", target.hash);
  if (element) focusTarget(element);
}

function focusTarget(element) {
  if (!element.hasAttribute("tabindex")) element.setAttribute("tabindex", "-1");
  // An instant jump, like following a link: smooth scrolling would be motion some readers asked to avoid.
  element.scrollIntoView({ block: "start" });
  element.focus({ preventScroll: true });
}

export function setUpSearch() {
  const box = /** @type {HTMLElement | null} */ (document.querySelector("[data-search]"));
  if (!box) return;
  const input = /** @type {HTMLInputElement} */ (box.querySelector('input[role="combobox"]'));
  const list = /** @type {HTMLElement} */ (box.querySelector('[role="listbox"]'));
  const status = box.querySelector("[data-search-status]");
  let engine = null;
  let loading = null;
  let results = [];
  let active = -1;
  let announceTimer = 0;

  const loadIndex = () => {
    // The index has a stable name, so ask the server whether it changed ("no-cache") rather than trust a stale copy.
    loading ??= Promise.all([
      fetch(box.dataset.index, { cache: "no-cache" }).then((response) => {
        if (!response.ok) throw new Error(`search index: HTTP ${response.status}`);
        return response.text();
      }),
      // MiniSearch (its ES build) and our options and helpers (search.js), both only now that the reader searches.
      // Absolute URLs: import() resolves a relative one against this script's address, not the page's.
      import(new URL(box.dataset.engine, document.baseURI).href),
      import(new URL(box.dataset.helpers, document.baseURI).href),
    ]).then(([json, { default: MiniSearch }, helpers]) => {
      searchHelpers = helpers;
      engine = helpers.createSearchEngine(MiniSearch, json);
    });
    loading.catch(() => {
      loading = null; // try again on the next keystroke
    });
    return loading;
  };

  const announce = (text) => {
    window.clearTimeout(announceTimer);
    // Wait for a pause in typing so a screen reader is not interrupted at every key.
    announceTimer = window.setTimeout(() => {
      status.textContent = text;
    }, 600);
  };

  const close = () => {
    list.hidden = true;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    active = -1;
  };

  const setActive = (index) => {
    const options = list.querySelectorAll('[role="option"]');
    active = index;
    options.forEach((option, position) => {
      option.setAttribute("aria-selected", String(position === index));
    });
    if (index >= 0 && options[index]) {
      input.setAttribute("aria-activedescendant", options[index].id);
      options[index].scrollIntoView({ block: "nearest" });
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  };

  const showMessage = (text) => {
    const item = document.createElement("li");
    item.className = "site-search-empty";
    item.setAttribute("role", "option");
    item.setAttribute("aria-disabled", "true");
    item.id = "site-search-message";
    item.textContent = text;
    list.replaceChildren(item);
    list.hidden = false;
    input.setAttribute("aria-expanded", "true");
    announce(text);
  };

  const show = () => {
    const query = input.value.trim();
    if (!query) {
      close();
      list.replaceChildren();
      status.textContent = "";
      return;
    }
    if (engine === null) {
      loadIndex().then(show, () => showMessage("Search is unavailable here; browse the contents instead."));
      return;
    }
    results = searchHelpers.searchAll(engine, query).slice(0, MAX_RESULTS);
    if (results.length === 0) {
      results = [];
      showMessage(`No results for “${query}”`);
      setActive(-1);
      return;
    }
    list.replaceChildren(
      ...results.map((entry, index) => {
        const option = document.createElement("li");
        option.id = `site-search-result-${index}`;
        option.className = `site-search-result site-search-${entry.kind}`;
        option.setAttribute("role", "option");
        option.setAttribute("aria-selected", "false");
        const matched = new Set(entry.terms);
        const title = document.createElement("span");
        title.className = "site-search-title";
        appendHighlighted(title, entry.title, matched);
        const context = document.createElement("span");
        context.className = "site-search-context";
        context.textContent = entry.context;
        option.append(title, " ", context);
        if (entry.text) {
          const snippet = document.createElement("span");
          snippet.className = "site-search-snippet";
          appendHighlighted(snippet, searchHelpers.cutSnippet(entry.text, matched), matched);
          option.append(" ", snippet);
        }
        option.addEventListener("pointerdown", (event) => event.preventDefault()); // keep focus in the box
        option.addEventListener("click", () => choose(index));
        return option;
      }),
    );
    list.hidden = false;
    input.setAttribute("aria-expanded", "true");
    setActive(-1);
    announce(`${results.length} ${results.length === 1 ? "result" : "results"}; use the arrow keys to choose.`);
  };

  const choose = (index) => {
    const entry = results[index];
    if (!entry) return;
    close();
    input.blur();
    // The index's links are relative to the site's root (where the index is), not to this page.
    goToUrl(new URL(entry.url, new URL(box.dataset.index, window.location.href)));
  };

  input.addEventListener("focus", () => {
    loadIndex().catch(() => {});
    if (input.value.trim()) show();
  });
  input.addEventListener("input", show);
  input.addEventListener("keydown", (event) => {
    const count = results.length;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (list.hidden) show();
      if (count === 0) return;
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive(active === -1 ? (step === 1 ? 0 : count - 1) : (active + step + count) % count);
    } else if (event.key === "Enter") {
      if (count === 0 || list.hidden) return;
      event.preventDefault();
      choose(active === -1 ? 0 : active);
    } else if (event.key === "Escape") {
      if (!list.hidden) {
        event.preventDefault();
        close();
      } else if (input.value) {
        event.preventDefault();
        input.value = "";
        list.replaceChildren();
        results = [];
      }
    }
  });
  box.addEventListener("focusout", (event) => {
    if (!box.contains(/** @type {Node | null} */ (event.relatedTarget))) close();
  });
  // "/" jumps to the search box, as on many documentation sites.
  document.addEventListener("keydown", (event) => {
    if (event.key !== "/" || !isShortcutFree(event)) return;
    event.preventDefault();
    input.focus();
  });
}
