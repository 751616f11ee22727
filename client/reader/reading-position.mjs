// The chapter's reading position: the progress bar and the current section in the contents.

export function setUpReadingPosition() {
  const bar = /** @type {HTMLElement | null} */ (document.querySelector("[data-reading-progress]"));
  const prose = document.querySelector(".chapter .prose");
  // The same section can be listed twice (the sidebar and "In this chapter"): group links by heading.
  const linksByHash = new Map();
  for (const link of /** @type {NodeListOf<HTMLAnchorElement>} */ (document.querySelectorAll("[data-toc-link]"))) {
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
