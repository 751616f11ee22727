// On a page with a lab, when the address holds a lab's settings (a shared lab link), lab.js starts Python as soon as
// it runs: once the page is parsed, its stylesheets are in and its scripts have arrived. On a slow link that is a
// second in which the 3.4 MB snapshot Python is restored from could already be on its way. So the head asks for it
// here (a preload: the page's own fetch of it, client/python/python-worker.mjs, takes this response; nothing is sent
// twice). Any other address asks for nothing. Nor does a page the offline keep's service worker controls: the reader
// has been here before, and the snapshot comes from a cache, where receiving it while the page is parsed only delays
// the page's scripts (about 50 ms on a desktop; benchmarks.md). Inline, allowed by its hash (render/pages.py): a file
// would wait for its own request. This tag's data-*: the snapshot's URL and the address parameters the labs read.
(() => {
  const me = document.currentScript;
  const query = new URLSearchParams(location.search);
  if (navigator.serviceWorker?.controller || !me.dataset.parameters.split(" ").some((name) => query.has(name))) {
    return;
  }
  const link = document.createElement("link");
  link.rel = "preload";
  link.as = "fetch";
  link.crossOrigin = "anonymous";
  link.href = me.dataset.snapshot;
  document.head.append(link);
})();
