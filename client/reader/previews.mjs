// Previews of glossary terms and sources, shown over the link that names them.

const SHOW_DELAY_MS = 300;
const HIDE_DELAY_MS = 300;
const PREVIEW_GAP_PX = 8;

export function setUpPreviews() {
  const templates = new Map(
    [.../** @type {NodeListOf<HTMLTemplateElement>} */ (document.querySelectorAll("template[data-preview]"))].map((template) => [
      template.dataset.preview,
      template,
    ]),
  );
  if (templates.size === 0) return;
  const links = [.../** @type {NodeListOf<HTMLAnchorElement>} */ (document.querySelectorAll("main a[href]"))].filter((link) =>
    templates.has(link.getAttribute("href")),
  );
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
      if (!popover.contains(/** @type {Node | null} */ (event.relatedTarget))) hideSoon();
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
    if (popover.hidden || popover.contains(/** @type {Node} */ (event.target)) || current?.contains(/** @type {Node} */ (event.target)))
      return;
    hide();
  });
  window.addEventListener("resize", () => {
    if (current && !popover.hidden) place(current);
  });
}
