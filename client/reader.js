// The reader's conveniences, added on top of pages that work without them:
// the colour-scheme toggle, search over the build-time index, previews of
// glossary terms and sources, and the chapter's reading position.
// No inline scripts or styles (the pages' Content-Security-Policy forbids them):
// positions are set through the CSSOM, content comes from <template>s and JSON.
// A classic deferred script: esbuild bundles it into one function (pysrc/sitegen/assets/scripts.py).

import { THEME_KEY } from "./common/names.mjs";
import { showThemeColour } from "./common/theme-colour.mjs";

const root = document.documentElement;
const systemDark = window.matchMedia("(prefers-color-scheme: dark)");

// ------------------------------------------------------------ colour scheme

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

function setUpThemeToggle() {
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

// ------------------------------------------------------------ search

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

function setUpSearch() {
  const box = document.querySelector("[data-search]");
  if (!box) return;
  const input = box.querySelector('input[role="combobox"]');
  const list = box.querySelector('[role="listbox"]');
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
    if (!box.contains(event.relatedTarget)) close();
  });
  // "/" jumps to the search box, as on many documentation sites.
  document.addEventListener("keydown", (event) => {
    if (event.key !== "/" || !isShortcutFree(event)) return;
    event.preventDefault();
    input.focus();
  });
}

// ------------------------------------------------------------ previews

const SHOW_DELAY_MS = 300;
const HIDE_DELAY_MS = 300;
const PREVIEW_GAP_PX = 8;

function setUpPreviews() {
  const templates = new Map(
    [...document.querySelectorAll("template[data-preview]")].map((template) => [template.dataset.preview, template]),
  );
  if (templates.size === 0) return;
  const links = [...document.querySelectorAll("main a[href]")].filter((link) => templates.has(link.getAttribute("href")));
  if (links.length === 0) return;

  const popover = document.createElement("div");
  popover.className = "preview";
  popover.id = "reader-preview";
  popover.hidden = true;
  const content = document.createElement("div");
  content.className = "preview-content";
  content.id = "reader-preview-content";
  const goTo = document.createElement("a");
  goTo.className = "preview-go";
  goTo.textContent = "Go to entry";
  goTo.href = links[0].getAttribute("href"); // a real link from the start (crawlers, tools), set per preview on show
  // Out of the tab order: for keyboard users the focused link itself leads to the entry.
  goTo.tabIndex = -1;
  popover.append(content, goTo);
  // Inside <main>, so its text is in a landmark like the rest of the page (main is not positioned: the
  // popover's offsets stay the document's).
  (document.querySelector("main") ?? document.body).append(popover);

  let current = null; // the link the popover belongs to
  let showTimer = 0;
  let hideTimer = 0;
  let pointerOverPopover = false;
  // The link whose preview Escape closed, until the reader leaves it. At first, the term the reader
  // arrived at (a glossary "Used in" link, #use-KEY): its preview would cover the sentence they came for.
  let dismissed = links.find((link) => link.id && `#${link.id}` === window.location.hash) ?? null;

  const place = (link) => {
    const rects = link.getClientRects();
    const anchor = rects.length > 0 ? rects[0] : link.getBoundingClientRect();
    const viewportWidth = document.documentElement.clientWidth;
    const width = popover.offsetWidth;
    const height = popover.offsetHeight;
    const left = Math.max(PREVIEW_GAP_PX, Math.min(anchor.left, viewportWidth - width - PREVIEW_GAP_PX));
    const fitsBelow = anchor.bottom + PREVIEW_GAP_PX + height <= window.innerHeight;
    // Above the link only where the sticky header does not cover it.
    const headerBottom = Math.max(0, document.querySelector(".site-header")?.getBoundingClientRect().bottom ?? 0);
    const fitsAbove = anchor.top - PREVIEW_GAP_PX - height >= headerBottom;
    const top = !fitsBelow && fitsAbove ? anchor.top - PREVIEW_GAP_PX - height : anchor.bottom + PREVIEW_GAP_PX;
    popover.style.left = `${Math.round(left + window.scrollX)}px`;
    popover.style.top = `${Math.round(top + window.scrollY)}px`;
  };

  const show = (link) => {
    window.clearTimeout(showTimer);
    window.clearTimeout(hideTimer);
    if (dismissed === link) return;
    if (current !== link) {
      if (current) current.removeAttribute("aria-describedby");
      const href = link.getAttribute("href");
      content.replaceChildren(templates.get(href).content.cloneNode(true));
      goTo.href = href;
      current = link;
    }
    link.setAttribute("aria-describedby", content.id);
    popover.hidden = false;
    place(link);
  };

  const hide = () => {
    window.clearTimeout(showTimer);
    window.clearTimeout(hideTimer);
    popover.hidden = true;
    if (current) current.removeAttribute("aria-describedby");
    current = null;
  };

  const hideSoon = () => {
    window.clearTimeout(showTimer);
    window.clearTimeout(hideTimer);
    hideTimer = window.setTimeout(() => {
      if (!pointerOverPopover && !(current && current === document.activeElement)) hide();
    }, HIDE_DELAY_MS);
  };

  let tapOpened = false; // the tap in progress started with this link's preview already open
  let lastPointer = ""; // the kind of pointer that pressed a preview link last

  for (const link of links) {
    link.addEventListener("pointerenter", (event) => {
      if (event.pointerType !== "mouse") return;
      window.clearTimeout(hideTimer);
      window.clearTimeout(showTimer);
      showTimer = window.setTimeout(() => show(link), current ? 0 : SHOW_DELAY_MS);
    });
    link.addEventListener("pointerleave", (event) => {
      if (event.pointerType !== "mouse") return;
      if (dismissed === link) dismissed = null;
      hideSoon();
    });
    link.addEventListener("pointerdown", (event) => {
      lastPointer = event.pointerType;
      tapOpened = event.pointerType !== "mouse" && current === link && !popover.hidden;
    });
    link.addEventListener("focus", () => {
      // Keyboard focus only: a mouse click or a tap also focuses, and is handled on its own.
      if (link.matches(":focus-visible")) show(link);
    });
    link.addEventListener("blur", (event) => {
      if (dismissed === link) dismissed = null;
      if (!popover.contains(event.relatedTarget)) hideSoon();
    });
    link.addEventListener("click", (event) => {
      const pointer = lastPointer;
      lastPointer = "";
      if (pointer === "" || pointer === "mouse" || event.detail === 0) return; // mouse or keyboard: follow
      if (tapOpened) return; // second tap: follow the link
      // First tap on a touch screen: show the preview instead of leaving the page.
      event.preventDefault();
      dismissed = null;
      show(link);
    });
  }

  popover.addEventListener("pointerenter", () => {
    pointerOverPopover = true;
    window.clearTimeout(hideTimer);
  });
  popover.addEventListener("pointerleave", () => {
    pointerOverPopover = false;
    hideSoon();
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !popover.hidden) {
      dismissed = current;
      hide();
    }
  });
  // A tap or click anywhere else closes it.
  document.addEventListener("pointerdown", (event) => {
    if (popover.hidden || popover.contains(event.target) || current?.contains(event.target)) return;
    hide();
  });
  window.addEventListener("resize", () => {
    if (current && !popover.hidden) place(current);
  });
}

// ------------------------------------------------------------ reading position and contents

function setUpReadingPosition() {
  const bar = document.querySelector("[data-reading-progress]");
  const prose = document.querySelector(".chapter .prose");
  // The same section can be listed twice (the sidebar and "In this chapter"): group links by heading.
  const linksByHash = new Map();
  for (const link of document.querySelectorAll("[data-toc-link]")) {
    if (!linksByHash.has(link.hash)) linksByHash.set(link.hash, []);
    linksByHash.get(link.hash).push(link);
  }
  const tocLinks = [...linksByHash.values()];
  const headings = [...linksByHash.keys()].map((hash) => document.getElementById(decodeURIComponent(hash.slice(1))));
  if (!bar && tocLinks.length === 0) return;
  let scheduled = false;
  let currentLink = null;

  const update = () => {
    scheduled = false;
    if (bar && prose) {
      // 0 at the top of the page, 1 once the prose's last line is in view.
      const span = prose.getBoundingClientRect().bottom + window.scrollY - window.innerHeight;
      const progress = span > 0 ? Math.min(1, Math.max(0, window.scrollY / span)) : 1;
      bar.style.transform = `scaleX(${progress.toFixed(4)})`;
    }
    // The current section is the last heading that has reached the top fifth of the window.
    let index = -1;
    headings.forEach((heading, position) => {
      if (heading && heading.getBoundingClientRect().top <= window.innerHeight * 0.2) index = position;
    });
    // At the page's end the last sections cannot reach the top fifth: the last one in view is the one being read.
    if (window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2) {
      headings.forEach((heading, position) => {
        if (heading && heading.getBoundingClientRect().top < window.innerHeight) index = position;
      });
    }
    const links = index >= 0 ? tocLinks[index] : null;
    if (links !== currentLink) {
      for (const link of currentLink ?? []) link.removeAttribute("aria-current");
      for (const link of links ?? []) link.setAttribute("aria-current", "location");
      currentLink = links;
    }
  };
  const schedule = () => {
    if (!scheduled) {
      scheduled = true;
      window.requestAnimationFrame(update);
    }
  };
  window.addEventListener("scroll", schedule, { passive: true });
  window.addEventListener("resize", schedule);
  update();
}

// ------------------------------------------------------------ chapter navigation, progress, shortcuts

const PROGRESS_KEY = "rollouts-read";
const WIDE_SCREEN = window.matchMedia("(min-width: 78rem)");

// Single-key shortcuts stay out of the way of typing: never in a text field, a lab control,
// a code editor (CodeMirror mounts in a shadow root, hence the composed path) or with a modifier.
function isShortcutFree(event) {
  if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return false;
  return !event
    .composedPath()
    .some(
      (node) =>
        node instanceof HTMLElement &&
        (node.isContentEditable ||
          node.matches(
            "input, textarea, select, [role='textbox'], [role='combobox'], [role='slider'], .lab, .cm-editor, [data-code-cell]",
          )),
    );
}

function readProgress() {
  try {
    const stored = JSON.parse(window.localStorage.getItem(PROGRESS_KEY) || "[]");
    return new Set(Array.isArray(stored) ? stored.filter((name) => typeof name === "string") : []);
  } catch (_error) {
    return new Set(); // storage blocked or damaged: nothing remembered
  }
}

function storeProgress(read) {
  try {
    if (read.size) window.localStorage.setItem(PROGRESS_KEY, JSON.stringify([...read].sort()));
    else window.localStorage.removeItem(PROGRESS_KEY);
  } catch (_error) {
    // Storage blocked: the ticks last for this page only.
  }
}

function showProgress(read) {
  for (const tick of document.querySelectorAll("[data-progress-tick]")) tick.hidden = !read.has(tick.dataset.progressTick);
  for (const button of document.querySelectorAll("[data-progress-clear]")) button.hidden = read.size === 0;
}

// A chapter counts as read once its end (the pager under the last paragraph) has been on screen.
function setUpReadingProgress() {
  let read = readProgress();
  showProgress(read);
  for (const button of document.querySelectorAll("[data-progress-clear]")) {
    button.addEventListener("click", () => {
      read = new Set();
      storeProgress(read);
      showProgress(read);
      (document.querySelector("[data-book-nav] summary") || document.querySelector("h1"))?.focus();
    });
  }
  window.addEventListener("storage", (event) => {
    if (event.key !== PROGRESS_KEY && event.key !== null) return;
    read = readProgress();
    showProgress(read);
  });
  const end = document.querySelector("[data-chapter-end]");
  if (!end || !("IntersectionObserver" in window)) return;
  const observer = new IntersectionObserver((records) => {
    if (!records.some((record) => record.isIntersecting)) return;
    read = readProgress();
    read.add(end.dataset.chapterEnd);
    storeProgress(read);
    showProgress(read);
    observer.disconnect();
  });
  observer.observe(end);
}

// Wide screens show the chapter list as an open sidebar; phones keep it folded into one line.
function setUpBookNav() {
  const nav = document.querySelector("[data-book-nav]");
  if (!nav) return;
  const fit = () => {
    nav.open = WIDE_SCREEN.matches;
  };
  WIDE_SCREEN.addEventListener("change", fit);
  fit();
}

// Display math is a tab stop only while it scrolls sideways, so a keyboard can scroll it.
function setUpScrollingFormulas() {
  const formulas = [...document.querySelectorAll(".math-display")];
  if (formulas.length === 0) return;
  const mark = () => {
    for (const formula of formulas) {
      const scrolls = formula.scrollWidth > formula.clientWidth + 1;
      if (scrolls) {
        formula.tabIndex = 0;
        formula.setAttribute("role", "group");
        formula.setAttribute("aria-label", "Formula (scrolls sideways)");
      } else {
        formula.removeAttribute("tabindex");
        formula.removeAttribute("role");
        formula.removeAttribute("aria-label");
      }
    }
  };
  if ("ResizeObserver" in window) {
    const observer = new ResizeObserver(mark);
    for (const formula of formulas) observer.observe(formula);
  } else {
    window.addEventListener("resize", mark);
  }
  mark();
}

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

function setUpShortcuts() {
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
    const link = rel && document.querySelector(`a[rel="${rel}"]`);
    if (!link) return;
    event.preventDefault();
    window.location.assign(link.href);
  });
}

setUpThemeToggle();
setUpSearch();
setUpPreviews();
setUpReadingPosition();
setUpBookNav();
setUpReadingProgress();
setUpScrollingFormulas();
setUpShortcuts();
