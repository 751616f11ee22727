// The rollouts lab in the page: takes over the widgets the build pre-rendered.
//
// Every `section.lab[data-lab]` arrives with its recorded results already in
// place and its controls disabled, so readers without JavaScript (or whose
// browser cannot run Python) still see correct numbers. This script starts
// one Web Worker per page running the same Python core (lab-worker.js), then
// enables the controls and re-renders results through the core on each
// change. The markup is described in docs/lab-widgets.md, the worker protocol in docs/workers.md
// (its client, shared with the cells, is client/python/python-worker.mjs).
//
// Python (megabytes: the build counts them, describeDownload) starts only when needed: when a lab comes near the
// viewport or on the first interaction with one — on interaction only when the
// reader asked to save data — and at once when the address carries lab
// settings (the reader came for that lab). Every fact about a control (range,
// address parameter, presets) is read from the markup the build wrote from
// rollout_lab/widgets/; nothing here knows a widget by name. One widget: lab/widget.mjs; Python's start: lab/start.mjs.

import { readRuntimeUrls } from "./common/names.mjs";
import { createStatusAnnouncer, goLive, startWhenNeeded } from "./lab/start.mjs";
import { LabWidget } from "./lab/widget.mjs";
import { PythonWorker } from "./python/python-worker.mjs";

/** Scroll to a lab a link was about, unless the reader has scrolled already; again once late layout (fonts, figures) settles. */
function bringIntoView(section) {
  const scrollTo = () => section.scrollIntoView({ block: "start" });
  scrollTo();
  const startY = window.scrollY;
  window.addEventListener(
    "load",
    () => {
      if (Math.abs(window.scrollY - startY) < 2) {
        scrollTo();
      }
    },
    { once: true },
  );
}

function startLab() {
  const sections = Array.from(document.querySelectorAll("section.lab[data-lab]"));
  const urls = readRuntimeUrls("rollouts-lab");
  if (sections.length === 0 || urls === null) {
    return;
  }
  const runtime = new PythonWorker(urls, {
    cannotRun: "the lab's worker script could not run",
    unreadable: "the lab's worker sent an unreadable message",
    notRunning: "the lab's runtime is not running",
  });
  const widgets = sections.map((section) => new LabWidget(section, runtime));
  const inAddress = connectAddress(widgets);
  const announceStatus = createStatusAnnouncer();
  const start = () => goLive(runtime, widgets, announceStatus);
  const fromAddress = inAddress === undefined ? {} : inAddress.readAddress();
  let startNow = start;
  if (Object.keys(fromAddress).length > 0) {
    // The reader followed a link to this lab's settings: start at once, and show the lab they were sent to
    // (an old link has no fragment, and the page would open at its top, screens above it).
    inAddress.showLoading(fromAddress);
    bringIntoView(inAddress.section);
    start();
    startNow = () => {}; // started already
  } else {
    startNow = startWhenNeeded(widgets, start);
  }
  followLabLinks(widgets, startNow);
}

/**
 * Give every lab marked for the address (`data-lab-address`) its parameters and a Copy link. Several on one page
 * (chapter 7) share the address one at a time: it holds the settings of the lab its fragment names, else the
 * first's. Return the lab the address speaks of now, if any.
 */
function connectAddress(widgets) {
  const inAddress = widgets.filter((widget) => widget.section.hasAttribute("data-lab-address"));
  const ids = inAddress.map((widget) => widget.section.id);
  const parameters = new Set();
  for (const widget of inAddress) {
    for (const box of widget.form.querySelectorAll("[data-url-parameter]")) {
      widget.addressParameters[box.dataset.control] = box.dataset.urlParameter;
      parameters.add(box.dataset.urlParameter);
    }
    widget.addressLabs = ids;
    widget.pageAddressParameters = parameters;
    widget.connectCopyLink();
  }
  return inAddress.find((widget) => widget.ownsAddress());
}

/**
 * A link in the prose that sets a lab (`[set T = 2](lab:sampler?T=2)`, kinds/links/lab.py): set its controls,
 * bring it into view and compute, without leaving the page. Until Python is live the lab says the link's
 * settings are on their way, and they are computed as it goes live (start.mjs renders what the fields hold).
 */
function followLabLinks(widgets, startNow) {
  document.addEventListener("click", (event) => {
    const link = event.target instanceof Element ? event.target.closest("a[data-lab-link]") : null;
    if (!(link instanceof HTMLAnchorElement) || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) {
      return; // a new tab or window gets the ordinary link, which leads to the lab too
    }
    const widget = widgets.find((candidate) => candidate.section.id === link.dataset.labLink);
    if (widget === undefined) {
      return;
    }
    event.preventDefault();
    const settings = JSON.parse(link.dataset.labSettings ?? "{}");
    widget.section.scrollIntoView({ block: "start" });
    widget.section.setAttribute("tabindex", "-1");
    widget.section.focus({ preventScroll: true });
    if (widget.liveStatus === null) {
      widget.showLoading(settings);
      if (Object.keys(widget.addressParameters).length > 0) {
        widget.writeAddress(widget.readSettings()); // going live, the lab reads the address: the link's settings
      }
      startNow();
    } else {
      widget.writeSettings(settings);
      widget.renderNow();
    }
  });
}

startLab();
