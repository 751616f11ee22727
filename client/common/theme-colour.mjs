// The browser's own bar takes the page's colour from <meta name="theme-color">: one for each system scheme
// (base.html). A scheme the reader chose with the toggle wins over the system's, so both metas then carry
// the chosen scheme's colour; with no choice each gets its own back. theme.js calls this before the first
// paint (the metas are above it), reader.js at every change of the choice.

const OWN_COLOUR = "themeColourOwn";

/** Show `theme` ("light", "dark", or null for the system's) in every theme-color meta. */
export function showThemeColour(theme) {
  const metas = Array.from(/** @type {NodeListOf<HTMLMetaElement>} */ (document.querySelectorAll('meta[name="theme-color"]')));
  for (const meta of metas) {
    meta.dataset[OWN_COLOUR] ??= meta.content;
  }
  const colourOf = (scheme) => metas.find((meta) => meta.media.includes(scheme))?.dataset[OWN_COLOUR] ?? null;
  for (const meta of metas) {
    meta.content = (theme === "light" || theme === "dark" ? colourOf(theme) : null) ?? meta.dataset[OWN_COLOUR];
  }
}
