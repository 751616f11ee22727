// For tests/content/test_search.py: load the build's search index with MiniSearch's
// loadJSON and our options (client/search.js), build a second index
// with MiniSearch's own addAll from the same documents, and print both serialised
// (order-free: the index's terms sorted) plus the results of the queries given.
//   node search_index_check.cjs MINISEARCH SEARCH_JS INDEX_JSON QUERY...
"use strict";
const fs = require("node:fs");
const MiniSearch = require(process.argv[2]);
const json = fs.readFileSync(process.argv[4], "utf8");
const queries = process.argv.slice(5);

// search.js is an ES module in a folder Node reads as CommonJS: imported from its text (it imports nothing).
async function importSearch() {
  const source = fs.readFileSync(process.argv[3]);
  return import(`data:text/javascript;base64,${source.toString("base64")}`);
}

async function main() {
  const search = await importSearch();
  const loaded = search.createSearchEngine(MiniSearch, json);
  const documents = Object.entries(JSON.parse(json).documentIds).map(([shortId, id]) => ({
    id,
    ...JSON.parse(json).storedFields[shortId],
  }));
  const built = new MiniSearch({ ...search.INDEX_OPTIONS });
  built.addAll(documents);

  function canonical(engine) {
    const data = engine.toJSON();
    data.index.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return data;
  }

  const results = {};
  for (const query of queries) {
    results[query] = search.searchAll(loaded, query).map((result) => {
      const matched = new Set(result.terms);
      const snippet = search.cutSnippet(result.text, matched);
      const marks = (text) => search.findMatchedWords(text, matched).map(([at, length]) => text.slice(at, at + length));
      return {
        id: result.id,
        terms: result.terms,
        queryTerms: result.queryTerms,
        title: result.title,
        snippet,
        marked: [...marks(result.title), ...marks(snippet)],
      };
    });
  }
  process.stdout.write(JSON.stringify({ loaded: canonical(loaded), built: canonical(built), results }));
}

main();
