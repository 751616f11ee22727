// What the lab reads from and offers in its controls: the sliders' scales, whole numbers, a link's unknown value,
// the recorded settings.

/** A log slider's mapping: position p stands for 2^(p / steps), written to two significant digits, within the range. */
export function sliderValue(slider) {
  const exact = 2 ** (Number(slider.value) / Number(slider.dataset.stepsPerDoubling));
  const snapped = Number(exact.toPrecision(2));
  return String(Math.min(Math.max(snapped, Number(slider.dataset.low)), Number(slider.dataset.high)));
}

export function sliderPosition(slider, number) {
  const position = Math.round(Number(slider.dataset.stepsPerDoubling) * Math.log2(number));
  return Math.min(Math.max(position, Number(slider.min)), Number(slider.max));
}

/** A whole number as typed ("+6", " 6 "), or null. */
export function wholeNumber(text) {
  return /^\s*[+-]?\d{1,15}\s*$/.test(text) ? Number(text) : null;
}

/**
 * A drop-down list can only hold one of its options: a link's unknown value
 * (?rule=median) becomes an extra option, so the core can say what is wrong
 * with it and the field shows what the link asked for.
 */
export function offerValue(input, value) {
  if (input.tagName === "SELECT" && !Array.from(input.options).some((option) => option.value === value)) {
    const option = new Option(value, value);
    option.dataset.unlisted = "";
    input.add(option);
  }
}

/** Once the reader picks a listed option, the link's unknown value leaves the list. */
export function dropUnlistedValues(input) {
  if (input.tagName === "SELECT") {
    for (const option of Array.from(input.querySelectorAll("option[data-unlisted]"))) {
      if (!option.selected) {
        option.remove();
      }
    }
  }
}

export function readRecordedSettings(section) {
  const script = section.querySelector("script[data-lab-settings]");
  return script === null ? {} : JSON.parse(script.textContent);
}
