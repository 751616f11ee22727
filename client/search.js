// Search over the index the build writes (search-index.json, in MiniSearch's own
// serialisation format): MiniSearch's options, our term processing, ranking and
// snippets. An ES module: reader.js imports it, with MiniSearch's own ES build,
// the first time the reader uses the search box; the tests import it under Node too.
//
// Everything about words must match pysrc/sitegen/render/search_index.py, which
// writes the index: the same fields, the same words (runs of letters and
// digits) and the same term processing (lower case, no accents, British
// spellings mapped to American ones, so "centred" and "centered" meet; the
// same stop words dropped, so a question matches and marks only the words
// that carry it).
// tests/content/test_search.py and tests/site/render/test_search_terms.py check the two against each other.

export const SEARCH_FIELDS = ["title", "text"];
export const STORED_FIELDS = ["kind", "title", "context", "url", "text"];
const WORD_SEPARATORS = /[^\p{L}\p{N}]+/u;
const WORDS = /[\p{L}\p{N}]+/gu;
const SNIPPET_BEFORE = 60;
const SNIPPET_LENGTH = 180;

const STOP_WORDS = new Set(
  (
    "a an and are as at be by can do does did for from how i if in into is it its of on or so than that the their " +
    "them then these they this those to was we what when where which who why will with you your"
  ).split(" "),
);

// Phrases a reader may know from elsewhere, searched also as the tutorial's own words. Chosen with care:
// each pair names the same thing here, so the extra results are never a surprise.
/** @type {[RegExp, string][]} */
const SYNONYMS = [
  [/\bimportance (sampling|weights?|ratios?)\b/i, "probability ratio"],
  [/\bvalue (function|model|network)\b/i, "critic"],
  [/\btrajector(y|ies)\b/i, "rollout"],
  [/\b(rng|prng|random number generator)\b/i, "pseudo random generator"],
];

// Sections that sum up or point elsewhere come after everything that explains (searchAll).
const SUMMARY_SECTIONS = new Set(["Key points", "Further reading"]);

/** @type {[RegExp, (stem: string, suffix: string) => string][]} */
const SPELLINGS = [
  [/^(cent|fib|lit|met|theat)r(e|es|ed|ing)$/, (stem, suffix) => `${stem}er${{ e: "", es: "s", ed: "ed", ing: "ing" }[suffix]}`],
  [/^(behavi|col|fav|flav|harb|hon|hum|lab|neighb|rum|vap)our(s|ed|ing|ite|ites|able|ful)?$/, (stem, suffix) => `${stem}or${suffix}`],
  [/^(\w{3,})is(e|es|ed|ing|ation|ations|er|ers)$/, (stem, suffix) => `${stem}iz${suffix}`],
  [/^(anal|paral|catal)ys(e|es|ed|ing)$/, (stem, suffix) => `${stem}yz${suffix}`],
  [/^(cancel|channel|fuel|label|level|model|signal|total|travel|tunnel)l(ed|ing|er|ers)$/, (stem, suffix) => `${stem}${suffix}`],
  [/^(anal|catal|dial)ogue(s)?$/, (stem, suffix) => `${stem}og${suffix}`],
];

// Spelled-out Greek read as the letter, on both sides: "pi old" finds π_old.
const GREEK_NAMES = new Map([
  ["pi", "π"],
  ["rho", "ρ"],
  ["epsilon", "ε"],
  ["beta", "β"],
  ["sigma", "σ"],
  ["theta", "θ"],
  ["tau", "τ"],
  ["alpha", "α"],
]);

/** Return the indexed form of a word: lower case, no accents, Greek names as letters, American spelling. */
export function processTerm(term) {
  const plain = term.toLowerCase().normalize("NFD").replace(/\p{M}/gu, "");
  if (STOP_WORDS.has(plain)) return "";
  if (GREEK_NAMES.has(plain)) return GREEK_NAMES.get(plain);
  for (const [pattern, rewrite] of SPELLINGS) {
    const match = pattern.exec(plain);
    if (match) return rewrite(match[1], match[2] ?? "");
  }
  return plain;
}

export function tokenize(text) {
  return text.split(WORD_SEPARATORS);
}

function titleMentions(title, term) {
  return tokenize(title).some((word) => word && processTerm(word).startsWith(term));
}

// Titles and terms first (the title field's boost). A glossary entry or a reference that only
// mentions a word in passing ranks below the chapter sections that discuss it.
const boostExplanations = (_id, term, stored) =>
  stored.kind === "section" || stored.kind === "chapter" || stored.kind === "page" || titleMentions(stored.title, term) ? 1 : 0.6;

// "What is π_old?", "what does ε mean", "define KL", or a symbol alone ("pi old", "π_old"): the reader asks for a
// definition, so the glossary's entries come first, then the notation page's rows, then the chapters that use the word.
const DEFINITION_QUESTION = /^\s*(?:what\s+(?:is|are|does|do)\b|define\b|definition\b|meaning\b)/i;
const GREEK_LETTERS = new Set(GREEK_NAMES.values());
const boostDefinitions = (_id, _term, stored) => (stored.kind === "term" ? 3 : stored.context === "Notation" ? 2 : 1);

/** Whether the query asks what something is: a question that says so, or a symbol (a Greek letter, or its name). */
export function asksForDefinition(query) {
  return DEFINITION_QUESTION.test(query) || tokenize(query).some((word) => GREEK_LETTERS.has(processTerm(word)));
}

const SEARCH_OPTIONS = {
  boost: { title: 5 },
  // Prefix matching from two letters ("clip" finds "clipping"); typo tolerance from five ("temprature").
  prefix: (term) => term.length >= 2,
  fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
  combineWith: "AND",
  boostDocument: boostExplanations,
};

/** MiniSearch's options for loading the index: the ones the build wrote it with. */
export const INDEX_OPTIONS = {
  fields: SEARCH_FIELDS,
  storeFields: STORED_FIELDS,
  tokenize,
  processTerm: (term) => processTerm(term) || null,
  searchOptions: SEARCH_OPTIONS,
};

export function createSearchEngine(MiniSearch, json) {
  return MiniSearch.loadJSON(json, INDEX_OPTIONS);
}

/**
 * Search as the reader means it: first what has every word of the query (or of its synonym form), then
 * what has only some of them, each part in MiniSearch's ranking; a result appears once. Summaries
 * ("Key points", "Further reading") come last: a reader asking wants the explanation first.
 */
export function searchAll(engine, query) {
  const queries = [query, ...SYNONYMS.filter(([phrase]) => phrase.test(query)).map(([phrase, ours]) => query.replace(phrase, ours))];
  const found = new Map();
  const boostDocument = asksForDefinition(query) ? boostDefinitions : boostExplanations;
  for (const combineWith of ["AND", "OR"]) {
    for (const text of queries) {
      for (const result of engine.search(text, { combineWith, boostDocument })) {
        if (!found.has(result.id)) found.set(result.id, result);
      }
    }
  }
  const all = rankDefinitionsFirst([...found.values()], findComparedWords(query));
  const isSummary = (result) => result.kind === "section" && SUMMARY_SECTIONS.has(result.title);
  return [...all.filter((result) => !isSummary(result)), ...all.filter(isSummary)];
}

// "difference between X and Y", "how does X differ from Y", "X vs Y": the two words a reader compares.
const COMPARISONS = [
  /\b(?:differen\w*|distinguish\w*|compar\w*|contrast\w*)\b.*?\b([\p{L}\p{N}]+)\s+(?:and|from|with|to|vs\.?|versus)\s+(?:an?\s+|the\s+)?([\p{L}\p{N}]+)/iu,
  /\b([\p{L}\p{N}]+)\s+(?:vs\.?|versus)\s+(?:an?\s+|the\s+)?([\p{L}\p{N}]+)/iu,
];
// Words that make a sentence a definition: "A rollout is a sampled trajectory".
const DEFINING_WORDS = new Set(["is", "are", "means", "mean", "called"]);

/** Return the stems of the two words a comparison question compares, or null for any other query. */
export function findComparedWords(query) {
  for (const pattern of COMPARISONS) {
    const match = pattern.exec(query);
    if (!match) continue;
    const stems = [match[1], match[2]].map((word) => {
      const term = processTerm(word);
      return term.slice(0, Math.max(4, term.length - 2)); // "trajectory" and "trajectories" share "trajecto"
    });
    if (stems.every((stem) => stem.length >= 2) && stems[0] !== stems[1]) return stems;
  }
  return null;
}

/** Say whether a sentence defines one compared word by the other: one, then "is" (or "means" …), then the other. */
function definesBoth(sentence, stems) {
  const words = tokenize(sentence.toLowerCase()).filter(Boolean);
  const at = (stem) => words.findIndex((word) => processTerm(word).startsWith(stem));
  const [first, second] = stems.map(at);
  if (first < 0 || second < 0) return false;
  const [from, to] = first < second ? [first, second] : [second, first];
  return words.slice(from + 1, to).some((word) => DEFINING_WORDS.has(word));
}

/**
 * For a comparison question, results whose title defines one word by the other come first, then those with such
 * a sentence in their text; otherwise MiniSearch's order stands.
 */
function rankDefinitionsFirst(results, stems) {
  if (!stems) return results;
  const weigh = (result) => {
    if (definesBoth(result.title, stems)) return 2;
    return (result.text ?? "").split(/(?<=[.!?:;])\s+/).some((sentence) => definesBoth(sentence, stems)) ? 1 : 0;
  };
  const weights = new Map(results.map((result) => [result.id, weigh(result)]));
  return [...results].sort((a, b) => weights.get(b.id) - weights.get(a.id));
}

/** Return [start, length] of each word of `text` whose processed form is one of the matched terms. */
export function findMatchedWords(text, matched) {
  const found = [];
  for (const word of text.matchAll(WORDS)) {
    if (matched.has(processTerm(word[0]))) found.push([word.index, word[0].length]);
  }
  return found;
}

/** Return where the window that shows the most different matched words begins (the earliest such window). */
function findBestMatch(text, words) {
  let best = 0;
  let bestCount = 0;
  words.forEach(([at], index) => {
    const seen = new Set();
    for (let next = index; next < words.length && words[next][0] < at + SNIPPET_LENGTH - SNIPPET_BEFORE; next += 1) {
      const [position, length] = words[next];
      seen.add(processTerm(text.slice(position, position + length)));
    }
    if (seen.size > bestCount) {
      best = at;
      bestCount = seen.size;
    }
  });
  return best;
}

/** Return about SNIPPET_LENGTH characters of `text` around its best match (most query words together), cut at spaces. */
export function cutSnippet(text, matched) {
  const words = findMatchedWords(text, matched);
  const first = words.length ? findBestMatch(text, words) : 0;
  let start = Math.max(0, first - SNIPPET_BEFORE);
  if (start > 0) start = text.indexOf(" ", start) + 1 || start;
  if (start > first) start = first;
  let end = Math.min(text.length, start + SNIPPET_LENGTH);
  if (end < text.length) {
    const space = text.lastIndexOf(" ", end);
    if (space > first) end = space;
  }
  return `${start > 0 ? "… " : ""}${text.slice(start, end)}${end < text.length ? " …" : ""}`;
}
