// 404.html is served at any missing address (/rollouts/a/b/c.html), where its
// relative links point into folders that do not exist, and the CSP forbids
// <base>. Find the site's root: the nearest folder above this address that
// holds the marker file the build writes; then point the links there and load
// the icon, stylesheet and scripts from there (this tag's data-* attributes
// list them by their paths from the root). The page stays hidden until they
// have loaded (at most 3 s): a blank moment rather than unstyled text in the
// wrong colour scheme. data-finding-root is on <html> meanwhile.
(async () => {
  const me = document.currentScript;
  const html = document.documentElement;
  const reveal = () => {
    html.style.visibility = "";
    delete html.dataset.findingRoot;
  };
  html.style.visibility = "hidden";
  html.dataset.findingRoot = "";
  const timer = setTimeout(reveal, 3000);
  try {
    let root = null;
    for (let folder = new URL(".", location.href); !root; folder = new URL("..", folder)) {
      try {
        const response = await fetch(new URL(me.dataset.marker, folder), { cache: "no-cache" });
        // A host that answers every address with a page (status 200) must not fool us: compare the text.
        if (response.ok && (await response.text()) === me.dataset.markerText) root = folder;
      } catch {}
      if (folder.pathname === "/") break;
    }
    if (!root) return;
    const fromRoot = (path) => new URL(path, root).href;
    const relative = /^(?![a-z][a-z0-9+.-]*:|\/|#)/i;
    for (const link of document.querySelectorAll("a[href]")) {
      const href = link.getAttribute("href");
      if (relative.test(href)) link.href = fromRoot(href);
    }
    for (const box of document.querySelectorAll("[data-search]")) {
      // The search index and the scripts search loads on first use.
      for (const name of ["index", "engine", "helpers"]) if (box.dataset[name]) box.dataset[name] = fromRoot(box.dataset[name]);
    }
    const load = (tag, attributes) =>
      new Promise((done) => {
        const element = Object.assign(document.createElement(tag), attributes);
        element.addEventListener("load", done);
        element.addEventListener("error", done);
        document.head.append(element);
      });
    const list = (paths) => paths.split(" ").filter(Boolean);
    // Not waited for: browsers fire no load event for an icon.
    document.head.append(Object.assign(document.createElement("link"), { rel: "icon", type: "image/svg+xml", href: fromRoot(me.dataset.icon) }));
    await Promise.all([
      ...list(me.dataset.stylesheets).map((sheet) => load("link", { rel: "stylesheet", href: fromRoot(sheet) })),
      ...list(me.dataset.scripts).map((script) => load("script", { src: fromRoot(script), async: false })),
    ]);
    html.dataset.siteRoot = root.pathname;
  } finally {
    clearTimeout(timer);
    reveal();
  }
})();
