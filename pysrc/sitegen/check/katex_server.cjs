// Renders TeX with KaTeX for the build: one process per build, JSON lines on
// stdin/stdout. Each request line is {"items": [{"tex": "...", "display": bool}, ...]};
// the answer line is {"results": [{"html": "..."} | {"error": "..."}, ...]} in the same order,
// so a whole site's math costs one round trip. CommonJS because loading
// katex.js with require() starts measurably faster than importing katex.mjs.
"use strict";
const readline = require("node:readline");

const katex = require(process.argv[2]);

// Links, images and raw HTML attributes have no place in a formula: with
// trust false KaTeX would draw \href{javascript:...} as red text and carry
// on, so the trust callback notes the command and the formula fails instead.
// maxSize caps \rule and \kern sizes (in em) and maxExpand bounds macro
// expansion, so a hostile formula cannot blow up the page or the build.
const MAX_SIZE_EM = 50;
const MAX_EXPAND = 1000;

function renderItem({ tex, display }) {
  const refused = [];
  try {
    const html = katex.renderToString(tex, {
      displayMode: display,
      throwOnError: true,
      strict: "error",
      output: "htmlAndMathml",
      trust: (context) => {
        refused.push(context.command);
        return false;
      },
      maxSize: MAX_SIZE_EM,
      maxExpand: MAX_EXPAND,
    });
    if (refused.length) {
      return { error: `${refused[0]} is not allowed in formulas (no links, images or HTML in math)` };
    }
    return { html };
  } catch (error) {
    // rawMessage is KaTeX's message without the "KaTeX parse error:" prefix and
    // without the underlined excerpt, which does not survive a terminal well.
    const message = error.rawMessage ?? error.message;
    const where = typeof error.position === "number" ? ` at position ${error.position + 1}` : "";
    return { error: `${message}${where}` };
  }
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  if (!line.trim()) return;
  const request = JSON.parse(line);
  process.stdout.write(`${JSON.stringify({ results: request.items.map(renderItem) })}\n`);
});
