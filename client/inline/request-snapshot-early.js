// On a page with a lab, when the address holds a lab's settings (a shared lab link), lab.js starts Python as soon as
// it runs: once the page is parsed, its stylesheets are in and its scripts have arrived. On a slow link that is a
// second in which the 3.4 MB snapshot Python is restored from could already be on its way. So the head asks for it
// here, and the page's own fetch of it (client/python/python-worker.mjs, fetchOnce) takes this response: nothing is
// sent twice. A fetch, not a preload: its body waits in the network's buffer until lab.js reads it, where a
// preload's is taken in by the page's thread while it parses (50–80 ms of a desktop's start; benchmarks.md). Any other
// address asks for nothing, nor does a page the offline keep's service worker controls (a returning reader's snapshot
// is cached). Inline, allowed by its hash (render/pages.py): a file would wait for its own request. This tag's data-*:
// the snapshot's URL and the address parameters the page's labs read.
(() => {
  const me = document.currentScript;
  const query = new URLSearchParams(location.search);
  if (navigator.serviceWorker?.controller || !me.dataset.parameters.split(" ").some((name) => query.has(name))) {
    return;
  }
  const url = new URL(me.dataset.snapshot, document.baseURI).href;
  const key = Symbol.for("rollouts:early-responses");
  globalThis[key] ??= new Map();
  globalThis[key].set(
    url,
    fetch(url).catch(() => null),
  );
})();
