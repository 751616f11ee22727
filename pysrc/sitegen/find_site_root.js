// 404.html is served at any missing address (/rollouts/a/b/c.html), where its
// relative links point into folders that do not exist, and the CSP forbids
// <base>. Find the site's root: the nearest folder above this address that
// holds the marker file the build writes; then point the links, the
// stylesheets, the icon and the scripts there. The script tag's data-* attributes list
// the files it loads, by their paths from the root.
(async () => {
  const me = document.currentScript;
  const marker = me.dataset.marker;
  let root = null;
  for (let folder = new URL(".", location.href); !root; folder = new URL("..", folder)) {
    try {
      const response = await fetch(new URL(marker, folder), { cache: "no-cache" });
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
  for (const box of document.querySelectorAll("[data-index]")) box.dataset.index = fromRoot(box.dataset.index);
  const add = (tag, attributes) => document.head.append(Object.assign(document.createElement(tag), attributes));
  add("link", { rel: "icon", type: "image/svg+xml", href: fromRoot(me.dataset.icon) });
  for (const sheet of me.dataset.stylesheets.split(" ")) add("link", { rel: "stylesheet", href: fromRoot(sheet) });
  for (const script of me.dataset.scripts.split(" ").filter(Boolean)) add("script", { src: fromRoot(script), async: false });
  document.documentElement.dataset.siteRoot = root.pathname;
})();
