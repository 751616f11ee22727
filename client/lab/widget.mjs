import { connectCopyButton } from "../common/copy-button.mjs";
import { dropUnlistedValues, offerValue, readRecordedSettings, sliderPosition, sliderValue, wholeNumber } from "./controls.mjs";

// A pause this long commits what is typed (as Enter and leaving the field
// do): longer than the gap between keys of a slow typist, so "0.25" is never
// checked at "0." and "1, 0.75" never at "1,". Sliders and buttons commit at once.
const TYPING_DELAY_MS = 800;

/** One lab widget: its controls, its results, and the renders it asks the runtime for. */
export class LabWidget {
  constructor(section, runtime) {
    this.section = section;
    this.runtime = runtime;
    this.name = section.dataset.lab;
    // The slot's options beside its settings (`::: lab tokens update=hidden`): what of the results it shows.
    this.view = JSON.parse(section.dataset.labView ?? "{}");
    this.status = section.querySelector("[data-lab-status]");
    this.form = section.querySelector("[data-lab-controls]");
    this.results = section.querySelector("[data-lab-results]");
    this.pending = section.querySelector("[data-lab-pending]");
    this.announcer = section.querySelector("[data-lab-announce]");
    this.recordedSettings = readRecordedSettings(section);
    this.fieldNames = Object.keys(this.recordedSettings);
    this.resetButton = this.form.querySelector("[data-lab-reset]");
    // Settings mirrored in the page address, {name: parameter}, for a widget marked for it (`data-lab-address`).
    this.addressParameters = {};
    // The page's labs marked for the address, by id in page order, and every parameter any of them writes: the
    // address holds one lab's settings, the lab its fragment names (else the first), set by lab.js.
    this.addressLabs = [];
    this.pageAddressParameters = new Set();
    this.liveStatus = null; // The status line's text once the runtime is live.
    this.copyButton = null; // "Copy link", on the widget whose settings live in the address.
    this.showingRecorded = false; // True while the results are the recorded run standing in for the reader's settings.

    this.inFlight = false;
    this.renderAgain = false;
    this.editedFields = new Set();
    this.typingTimer = null;
    this.committed = null; // The settings last rendered or refused, as JSON: committing them again changes nothing.
    this.shownSettings = this.recordedSettings; // The settings the results on screen are for.
    this.moreToggle = this.form.querySelector("[data-lab-more]");
    this.placeErrors();
    this.connectControls();
    this.connectMoreSettings();
  }

  /**
   * "More settings" (`Widget.more_settings`): on a narrow screen (site.css) the fields it names wait behind it, so
   * the controls make a grid that never scrolls sideways. The build writes it closed, shown with `html.js` (nothing
   * moves when this script arrives); without JavaScript every field shows.
   */
  connectMoreSettings() {
    if (this.moreToggle === null) {
      return;
    }
    this.moreToggle.addEventListener("click", () => this.showMoreSettings(this.moreToggle?.getAttribute("aria-expanded") !== "true"));
  }

  /** Open or close "More settings". */
  showMoreSettings(open) {
    if (this.moreToggle === null) {
      return;
    }
    this.moreToggle.setAttribute("aria-expanded", String(open));
    this.form.toggleAttribute("data-more-closed", !open);
  }

  /** Open "More settings" when one of these fields is behind it: a link, an address or an error is about it. */
  revealField(name) {
    if (this.form.querySelector(`.lab-field[data-control="${name}"][data-more]`) !== null) {
      this.showMoreSettings(true);
    }
  }

  /** Each field's error message right after the field (the build puts it last in the field's box). */
  placeErrors() {
    for (const name of this.fieldNames) {
      const input = this.field(name);
      const error = this.form.querySelector(`[data-error-for="${name}"]`);
      if (input !== null && error !== null) {
        (input.closest(".lab-stepper") ?? input).after(error);
      }
    }
  }

  /**
   * The "Copy link" button of a widget whose settings live in the address (the build writes it, shown with
   * `html.js`). Like the controls, it waits for Python: until the lab computes live there is no result of the
   * reader's to share (a link's settings are only being loaded, or Python could not start). Meanwhile the status
   * line, which says why, describes it.
   */
  connectCopyLink() {
    const button = this.form.querySelector("[data-lab-copy-link]");
    if (button === null) {
      return;
    }
    this.copyButton = button;
    connectCopyButton(
      button,
      () => this.linkToLab(),
      (link) => this.offerLinkToCopy(button, link),
    );
  }

  /** When the clipboard refuses: the link in a selected read-only field after the button, for the reader to copy. */
  offerLinkToCopy(button, link) {
    let field = this.form.querySelector(".lab-link-to-copy input");
    if (field === null) {
      const box = document.createElement("div");
      box.className = "lab-field lab-link-to-copy";
      const label = document.createElement("label");
      label.textContent = "Link to these settings";
      field = document.createElement("input");
      field.type = "text";
      field.readOnly = true;
      field.id = `${this.section.id || "lab"}-link-to-copy`;
      label.htmlFor = field.id;
      box.append(label, field);
      button.after(box);
    }
    field.value = link;
    field.focus();
    field.select();
  }

  /** Settings as the reader reads them: "T = 2, K = 8" for the address's widget, else by the fields' labels. */
  describe(settings) {
    return Object.entries(settings)
      .filter(([name]) => this.field(name) !== null)
      .map(([name, value]) => {
        const label = this.form.querySelector(`label[for="${this.field(name).id}"]`).textContent;
        return `${this.addressParameters[name] ?? label.replace(/\s*\(.*\)$/, "").toLowerCase()} = ${value}`;
      })
      .join("; ");
  }

  /** Mark the results as not those of the fields (a field is invalid), and say which settings they are for; or clear that. */
  showStale(stale) {
    this.pending.removeAttribute("data-until-live");
    this.results.classList.toggle("lab-results-stale", stale);
    if (stale) {
      this.pending.textContent = `Not updated: the results below are for ${this.describe(this.shownSettings)}, the last settings accepted.`;
    }
    this.pending.hidden = !stale;
    if (stale) {
      this.keepInSight(this.pending);
    }
  }

  /**
   * The note's place is under the form; while the form sticks over the results (in use, on a desktop) that place
   * can be under the form itself. Then the note goes to the form's end, where it sticks with it and is seen.
   */
  keepInSight(note) {
    const box = note.getBoundingClientRect();
    const onTop = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    if (onTop !== null && !note.contains(onTop) && this.form.contains(onTop)) {
      this.form.append(note);
    }
  }

  field(name) {
    return this.form.elements.namedItem(name);
  }

  slider(name) {
    return this.form.elements.namedItem(`${name}-slider`);
  }

  /** Set a field as if the reader had typed it, and render at once (sliders, presets and steppers do not wait). */
  choose(name, value, { fromSlider = false } = {}) {
    this.field(name).value = value;
    this.editedFields.add(name);
    // A slider the reader moved stays where it was put (0.05 is nearest the next position up).
    this.syncHelpers(name, { moveSlider: !fromSlider });
    this.renderNow();
  }

  connectControls() {
    // Enter in a one-field form would submit it; CSP (form-action 'none')
    // would then block the navigation with a console error.
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.renderNow();
    });
    for (const name of this.fieldNames) {
      const input = this.field(name);
      if (input === null) {
        continue;
      }
      input.addEventListener("input", () => {
        this.editedFields.add(name);
        this.syncHelpers(name);
        this.renderSoon();
      });
      // Leaving the field or pressing Enter needs no waiting.
      input.addEventListener("change", () => {
        dropUnlistedValues(input);
        this.renderNow();
      });
      const slider = this.slider(name);
      if (slider !== null) {
        slider.addEventListener("input", () => this.choose(name, sliderValue(slider), { fromSlider: true }));
      }
      const box = input.closest(".lab-field");
      for (const preset of box.querySelectorAll("[data-preset]")) {
        preset.addEventListener("click", () => this.choose(name, preset.dataset.preset));
      }
      for (const stepper of box.querySelectorAll("[data-step]")) {
        stepper.addEventListener("click", () => this.step(name, Number(stepper.dataset.step)));
      }
      if (input.getAttribute("role") === "spinbutton") {
        input.addEventListener("keydown", (event) => {
          const steps = { ArrowUp: 1, ArrowDown: -1, PageUp: 10, PageDown: -10 }[event.key];
          if (steps !== undefined) {
            event.preventDefault();
            this.step(name, steps);
          }
        });
      }
      const newValue = box.querySelector("[data-new-value]");
      if (newValue !== null) {
        newValue.addEventListener("click", () => {
          const [random] = crypto.getRandomValues(new Uint32Array(1));
          const low = Number(input.dataset.low);
          const high = Number(input.dataset.high);
          this.choose(name, String(low + (random % (high - low + 1))));
        });
      }
    }
    if (this.resetButton !== null) {
      this.resetButton.addEventListener("click", () => this.reset());
    }
    this.holdFormWhilePressed();
  }

  /**
   * A press in the form keeps the form (on a phone, the field) where it is until the press ends. Focus coming into
   * the form makes it stick under the header (site.css, while a control is in use): pressed with the form's last row
   * just under the header, Reset moved away from the pointer, the mouse went up over something else and the click
   * was lost. It sticks once the click is done.
   */
  holdFormWhilePressed() {
    this.form.addEventListener("pointerdown", () => {
      if (this.form.contains(document.activeElement)) {
        return; // in use already: what sticks stays stuck while focus moves within the form
      }
      this.form.dataset.held = "";
      const release = () => {
        window.removeEventListener("pointerup", release);
        window.removeEventListener("pointercancel", release);
        setTimeout(() => delete this.form.dataset.held, 0); // after the click this press makes
      };
      window.addEventListener("pointerup", release);
      window.addEventListener("pointercancel", release);
    });
  }

  /** Move a whole-number field by `steps`, within its range; from the recorded value when the field holds no number. */
  step(name, steps) {
    const input = this.field(name);
    const low = Number(input.dataset.low);
    const high = Number(input.dataset.high);
    const current = wholeNumber(input.value) ?? Number(this.recordedSettings[name]);
    this.choose(name, String(Math.min(Math.max(current + steps, low), high)));
  }

  /** Keep a field's slider, presets and spin-button state in step with its text. */
  syncHelpers(name, { moveSlider = true } = {}) {
    const input = this.field(name);
    const text = input.value.trim();
    const number = Number(text);
    const slider = this.slider(name);
    if (slider !== null && text !== "" && Number.isFinite(number) && number > 0) {
      if (moveSlider) {
        slider.value = String(sliderPosition(slider, number));
      }
      slider.setAttribute("aria-valuetext", text);
    }
    for (const preset of input.closest(".lab-field").querySelectorAll("[data-preset]")) {
      preset.setAttribute("aria-pressed", String(text !== "" && Number(preset.dataset.preset) === number));
    }
    if (input.getAttribute("role") === "spinbutton") {
      const whole = wholeNumber(text);
      if (whole === null) {
        input.removeAttribute("aria-valuenow");
      } else {
        input.setAttribute("aria-valuenow", String(whole));
      }
    }
  }

  enableControls() {
    for (const element of this.form.elements) {
      element.disabled = false;
    }
    this.copyButton?.removeAttribute("aria-describedby");
  }

  readSettings() {
    const settings = {};
    for (const name of this.fieldNames) {
      const input = this.field(name);
      settings[name] = input === null ? this.recordedSettings[name] : input.value;
    }
    return settings;
  }

  writeSettings(settings) {
    for (const [name, value] of Object.entries(settings)) {
      const input = this.field(name);
      if (value !== this.recordedSettings[name]) {
        this.revealField(name);
      }
      if (input !== null) {
        offerValue(input, value);
        input.value = value;
        this.editedFields.add(name);
        this.syncHelpers(name);
      }
    }
  }

  /** Whether the page address speaks of this lab: its fragment names it, or names no lab and this is the first. */
  ownsAddress() {
    const named = this.addressLabs.find((id) => window.location.hash === `#${id}`);
    return (named ?? this.addressLabs[0]) === this.section.id;
  }

  /** Settings this widget finds in the page address, e.g. ?T=2&K=8 → {temperature: "2", group_size: "8"}. */
  readAddress() {
    const query = new URLSearchParams(window.location.search);
    const settings = {};
    if (!this.ownsAddress()) {
      return settings; // another lab's settings: they share names (T, K, seed) but not their meaning here
    }
    for (const [name, parameter] of Object.entries(this.addressParameters)) {
      if (query.has(parameter)) {
        settings[name] = query.get(parameter);
      }
    }
    return settings;
  }

  /** Whether `settings` are the recorded ones in every setting the address holds. */
  isRecordedInAddress(settings) {
    return Object.keys(this.addressParameters).every((name) => settings[name] === this.recordedSettings[name]);
  }

  /** The page's address for these settings of this lab: its own parameters only (none if recorded), the lab as the fragment. */
  addressFor(settings) {
    const url = new URL(window.location.href);
    for (const parameter of this.pageAddressParameters) {
      url.searchParams.delete(parameter);
    }
    if (!this.isRecordedInAddress(settings)) {
      for (const [name, parameter] of Object.entries(this.addressParameters)) {
        url.searchParams.set(parameter, settings[name]);
      }
    }
    url.hash = this.section.id;
    return url;
  }

  /** The link Copy link gives: this lab's settings on screen, opening scrolled to the lab, not the page's top. */
  linkToLab() {
    return this.addressFor(this.shownSettings).href;
  }

  /**
   * Mirror the settings in the address, with the lab as the fragment; the recorded settings need neither. A lab
   * back at its recorded settings leaves alone an address that holds another lab's.
   */
  writeAddress(settings) {
    let url = new URL(window.location.href);
    if (!this.isRecordedInAddress(settings)) {
      url = this.addressFor(settings);
    } else if (this.ownsAddress()) {
      for (const parameter of Object.values(this.addressParameters)) {
        url.searchParams.delete(parameter);
      }
      if (url.hash === `#${this.section.id}`) {
        url.hash = "";
      }
    }
    if (url.href !== window.location.href) {
      window.history.replaceState(window.history.state, "", url.href);
    }
  }

  /** Until Python is live, say that the reader's settings are on their way and mark the numbers shown as the recorded run. */
  showLoading(settings) {
    const shown = (values) =>
      Object.entries(values)
        .map(([name, value]) => `${this.addressParameters[name] ?? name} = ${value}`)
        .join(", ");
    this.writeSettings(settings);
    this.editedFields.clear();
    this.showingRecorded = true;
    this.results.classList.add("lab-results-recorded");
    this.pending.textContent = `Shown until then: the recorded run (${shown(this.recordedSettings)}).`;
    // Over the top of the results (site.css), not above them: they would move down now and back up when live.
    this.pending.setAttribute("data-until-live", "");
    this.pending.hidden = false;
    this.loadingText = `Loading your settings (${shown(settings)})\u2026`;
    this.status.textContent = this.loadingText;
  }

  /** Python did not start: the recorded run is what is shown, and the note saying so takes its place in the page. */
  settleLoadingNote() {
    this.pending.removeAttribute("data-until-live");
  }

  reset() {
    this.writeSettings(this.recordedSettings);
    this.renderNow();
  }

  renderSoon() {
    clearTimeout(this.typingTimer);
    this.typingTimer = setTimeout(() => this.renderNow(), TYPING_DELAY_MS);
  }

  /** Render the current settings; while a render is running, only the latest change is rendered next. */
  renderNow({ announce = true } = {}) {
    clearTimeout(this.typingTimer);
    if (this.inFlight) {
      this.renderAgain = true;
      return Promise.resolve();
    }
    const settings = this.readSettings();
    if (JSON.stringify(settings) === this.committed) {
      return Promise.resolve(); // Enter, or leaving the field, after a pause already committed these
    }
    this.inFlight = true;
    const edited = new Set(this.editedFields);
    this.editedFields.clear();
    // A shared link's result is announced too: the reader came for it.
    const say = announce || this.showingRecorded;
    return this.runtime.call("render", [this.name, settings, this.view]).then(async (response) => {
      await this.showResponse(response, settings, edited, say);
      this.inFlight = false;
      if (this.renderAgain) {
        this.renderAgain = false;
        return this.renderNow();
      }
      return undefined;
    });
  }

  async showResponse(response, settings, edited, announce) {
    if (response.ok) {
      this.committed = JSON.stringify(settings);
      this.shownSettings = response.result.settings;
      this.results.innerHTML = response.result.html;
      this.showingRecorded = false;
      this.results.classList.remove("lab-results-recorded");
      this.showStale(false);
      if (announce) {
        this.announcer.textContent = response.result.announcement;
      }
      if (this.liveStatus !== null && this.status.textContent !== this.liveStatus) {
        this.status.textContent = this.liveStatus; // after an unexpected failure that this render got past
      }
      for (const name of this.fieldNames) {
        this.showError(name, null);
      }
      if (Object.keys(this.addressParameters).length > 0) {
        this.writeAddress(response.result.settings);
      }
      return;
    }
    const { field, message } = response.error;
    if (field !== null && this.fieldNames.includes(field)) {
      this.committed = JSON.stringify(settings);
      this.showError(field, message);
      // The core reports only the first bad setting: every other field edited
      // in this request is checked alone, with the settings on screen, so each
      // bad one is named (a shared link's ?T=abc&K=999 has two); an untouched
      // field keeps any message it already had.
      const messages = [message];
      for (const name of edited) {
        if (name !== field) {
          const alone = await this.runtime.call("render", [this.name, { ...this.shownSettings, [name]: settings[name] }, this.view]);
          const own = !alone.ok && alone.error.field === name ? alone.error.message : null;
          this.showError(name, own);
          if (own !== null) {
            messages.push(own);
          }
        }
      }
      // A link's settings that fail leave the recorded run, no longer "until then": it is what is shown.
      this.showingRecorded = false;
      this.results.classList.remove("lab-results-recorded");
      this.showStale(true);
      // The messages sit next to their controls for the eye; the live region
      // tells someone listening that their value was not accepted, once per commit.
      if (announce) {
        this.announcer.textContent = `${messages.join(". ")}. ${this.pending.textContent}`;
      }
    } else {
      this.status.textContent = `The lab could not compute this: ${message}. The last numbers shown are kept.`;
    }
  }

  showError(name, message) {
    const output = this.form.querySelector(`[data-error-for="${name}"]`);
    const input = this.field(name);
    if (output !== null) {
      output.textContent = message ?? "";
      output.hidden = message === null;
    }
    if (message !== null) {
      this.revealField(name);
    }
    if (input !== null) {
      if (message === null) {
        input.removeAttribute("aria-invalid");
      } else {
        input.setAttribute("aria-invalid", "true");
      }
    }
  }
}
