// Refuse every request that would leave the machine, and remember it.
//
// Pyodide quietly falls back to its CDN when a package is asked for by name
// and is not in the local index; under these tests that must be an error,
// never a download. Import this module before loading Pyodide.

import http from "node:http";
import https from "node:https";
import { syncBuiltinESMExports } from "node:module";

export const refusedRequests = [];

function refuse(what) {
  refusedRequests.push(what);
  throw new Error(`network access refused under the Pyodide tests: ${what}`);
}

function describeRequest(input) {
  if (typeof input === "string") return input;
  if (input instanceof URL) return input.href;
  if (input && typeof input.url === "string") return input.url;
  if (input && typeof input === "object") return `${input.protocol ?? "http:"}//${input.hostname ?? input.host}${input.path ?? ""}`;
  return String(input);
}

const originalFetch = globalThis.fetch;
globalThis.fetch = async function guardedFetch(input, init) {
  const target = describeRequest(input);
  // Local files are the only thing a test may read through fetch.
  if (target.startsWith("file:")) return originalFetch(input, init);
  refuse(`fetch ${target}`);
};

for (const [name, module] of [
  ["http", http],
  ["https", https],
]) {
  for (const method of ["request", "get"]) {
    module[method] = (input) => refuse(`${name}.${method} ${describeRequest(input)}`);
  }
}
// Make `import { request } from "node:https"` see the guarded functions too.
syncBuiltinESMExports();

/** Exit with a failure if anything tried to reach the network, even if the caller swallowed the error. */
export function assertNoNetworkUse() {
  if (refusedRequests.length > 0) {
    console.error(`refused network requests:\n  ${refusedRequests.join("\n  ")}`);
    process.exit(3);
  }
}
