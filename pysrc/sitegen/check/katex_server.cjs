// Renders TeX with KaTeX for the build: one process per build, JSON lines on
// stdin/stdout. Each request line is {"items": [{"tex": "...", "display": bool}, ...]};
// the answer line is {"results": [{"html": "..."} | {"error": "...", "timedOut"?: true, "unrendered"?: true}, ...]}
// in the same order,
// so a whole site's math costs one round trip. CommonJS because loading
// katex.js with require() starts measurably faster than importing katex.mjs.
"use strict";
const readline = require("node:readline");
const vm = require("node:vm");

const katex = require(process.argv[2]);

// KaTeX's work grows with the square of what a formula's macros expand to
// (maxExpand counts expansions, not what they produce): 1.4 KB repeating a
// macro took 76 s, 3 KB more than ten minutes. So each formula gets
// MAX_SECONDS and may render to MAX_HTML_CHARACTERS (the tutorial's longest
// is about 15 000). The clock is node's vm timeout, which stops whatever runs
// under it: the whole request runs under one (one watchdog, not one per
// formula); when it fires, the formula that had the whole time to itself is
// the culprit, and one that started part-way through starts the next round.
// A request (all of a build's formulas, or a dev server's rebuild's new ones) gets BUDGET_SECONDS (argv[3]) of
// rendering: thirty formulas that each run out of time would otherwise cost a minute. Once it is spent, the
// formulas left are not tried at all.
const MAX_SECONDS = 2;
const BUDGET_SECONDS = Number(process.argv[3] ?? 20);
const MAX_HTML_CHARACTERS = 100_000;

const watched = vm.createContext({});
const renderRemaining = new vm.Script("renderRemaining()");

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
    if (html.length > MAX_HTML_CHARACTERS) {
      const size = `${Math.round(html.length / 1000)} KB`;
      return {
        error: `it renders to ${size} of HTML (the limit is ${MAX_HTML_CHARACTERS / 1000} KB); split it, or expand its macros less`,
      };
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

function renderItems(items) {
  const results = new Array(items.length);
  let next = 0;
  let budgetLeftMs = BUDGET_SECONDS * 1000;
  watched.renderRemaining = () => {
    for (; next < items.length; next++) results[next] = renderItem(items[next]);
  };
  while (next < items.length) {
    const first = next;
    const timeout = Math.floor(Math.min(MAX_SECONDS * 1000, budgetLeftMs)); // vm wants a whole number
    if (timeout < 1) break;
    const started = performance.now();
    try {
      renderRemaining.runInContext(watched, { timeout });
    } catch (error) {
      if (error.code !== "ERR_SCRIPT_EXECUTION_TIMEOUT") throw error;
      if (next === first && timeout === MAX_SECONDS * 1000) {
        // Cached by formula (formulas.py), so the next build does not spend its 2 s again.
        const message = `KaTeX needs more than ${MAX_SECONDS} s to render it (the limit); split it, or expand its macros less`;
        results[next] = { error: message, timedOut: true };
        next += 1;
      }
    } finally {
      budgetLeftMs -= performance.now() - started;
    }
  }
  for (; next < items.length; next++) {
    // Not tried, so never cached: the next build tries it again.
    const message = `not rendered: slower formulas used up KaTeX's ${BUDGET_SECONDS} s for the whole build; fix those first`;
    results[next] = { error: message, unrendered: true };
  }
  return results;
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  if (!line.trim()) return;
  const request = JSON.parse(line);
  process.stdout.write(`${JSON.stringify({ results: renderItems(request.items) })}\n`);
});
