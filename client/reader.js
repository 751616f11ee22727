// The reader's conveniences, added on top of pages that work without them:
// the colour-scheme toggle, search over the build-time index, previews of
// glossary terms and sources, and the chapter's reading position.
// No inline scripts or styles (the pages' Content-Security-Policy forbids them):
// positions are set through the CSSOM, content comes from <template>s and JSON.
// One module per feature under reader/. A classic deferred script: esbuild bundles it into one function (pysrc/sitegen/assets/scripts.py).

import { setUpBookNav } from "./reader/book-nav.mjs";
import { setUpPreviews } from "./reader/previews.mjs";
import { setUpReadingPosition } from "./reader/reading-position.mjs";
import { setUpReadingProgress } from "./reader/reading-progress.mjs";
import { setUpScrollingFormulas } from "./reader/scrolling-formulas.mjs";
import { setUpSearch } from "./reader/search-box.mjs";
import { setUpShortcuts } from "./reader/shortcuts.mjs";
import { setUpThemeToggle } from "./reader/theme-toggle.mjs";

setUpThemeToggle();
setUpSearch();
setUpPreviews();
setUpReadingPosition();
setUpBookNav();
setUpReadingProgress();
setUpScrollingFormulas();
setUpShortcuts();
