// The two places where Pyodide's start is steered from outside its options,
// each for the length of one start and no longer. Everything else a start
// needs goes through loadPyodide's options (indexURL, lockFileContents,
// stdLibURL, fsInit, _loadSnapshot, env, jsglobals) or is fetched by
// pyodide-start.mjs itself and counted there.
//
// Why these two are wrappers and not options (Pyodide 314.0.7's pyodide.d.ts
// and pyodide.mjs): loadPyodide's settings are made by createSettings, which
// at once fetches `${indexURL}pyodide.asm.wasm` and `stdLibURL` with the
// scope's global fetch (browser_getBinaryResponse, loadBinaryFile; under
// Node, any URL with "://"), and instantiates the wasm with
// WebAssembly.instantiateStreaming in its own instantiateWasm, which is
// Emscripten's setting and not an option of loadPyodide. No option names
// another fetch, another module, or a way to learn that the wasm did not
// compile (Pyodide logs a CompileError and waits for ever). So:
// - answerLocally answers those two URLs, and only them, while a start runs:
//   the standard library's placeholder with nothing (its parts are installed
//   by fsInit), and the wasm with the module the page compiled (or lets the
//   request through, counted, when the page could not compile it);
// - watchCompile fails the start at the first CompileError, and has
//   instantiateStreaming take the page's module for the answer it stands for.
// Each is undone when the last start using it ends; requests for any other URL
// pass through untouched.

/** Pyodide's WebAssembly, in its folder. */
export const WASM_FILE = "pyodide.asm.wasm";

/** The responses answerLocally gave for pyodide.asm.wasm, each with the module compiled in the page it stands for. */
const precompiled = new WeakMap();

/** What a start says when Pyodide's WebAssembly does not compile: an interrupted deploy, a truncated copy. */
export const DAMAGED_RUNTIME = "pyodide.asm.wasm is damaged or incomplete: WebAssembly could not compile it";

const compileWatchers = new Set(); // starts under way, each the function that fails it
let unwatchedWebAssembly = null; // WebAssembly's own functions, while they are wrapped

/**
 * Watch WebAssembly's compilation during a start: Emscripten reports a CompileError on the console only, then
 * waits for ever. Return {failure, stop}: `failure` rejects with DAMAGED_RUNTIME at the first CompileError;
 * `stop()` ends the watch (WebAssembly's own functions are back once no start watches). While watched,
 * instantiateStreaming of a response answerLocally gave for the wasm instantiates the page's compiled module.
 */
export function watchCompile() {
  let fail = null;
  const failure = new Promise((_, reject) => {
    fail = reject;
  });
  failure.catch(() => {}); // raced by the start; never left unhandled
  if (compileWatchers.size === 0) {
    const { instantiate, instantiateStreaming } = WebAssembly;
    unwatchedWebAssembly = { instantiate, instantiateStreaming };
    const report = (error) => {
      if (error instanceof WebAssembly.CompileError) {
        for (const watcher of compileWatchers) watcher(new Error(DAMAGED_RUNTIME));
      }
      throw error;
    };
    WebAssembly.instantiate = (...args) => instantiate.apply(WebAssembly, args).catch(report);
    if (instantiateStreaming !== undefined) {
      WebAssembly.instantiateStreaming = (source, imports) =>
        Promise.resolve(source)
          .then((response) => {
            const module = precompiled.get(response);
            return module === undefined
              ? instantiateStreaming.call(WebAssembly, response, imports)
              : instantiate.call(WebAssembly, module, imports).then((instance) => ({ instance, module }));
          })
          .catch(report);
    }
  }
  compileWatchers.add(fail);
  const stop = () => {
    if (compileWatchers.delete(fail) && compileWatchers.size === 0) {
      Object.assign(WebAssembly, unwatchedWebAssembly);
    }
  };
  failure.catch(stop);
  return { failure, stop };
}

/**
 * Answer fetches of `url` with `answer(send)` (a Response, or a promise of one), never sent, until the returned
 * function is called; `send(url)` is the fetch it stands in front of, for an answer that lets the request through after all.
 */
export function answerLocally(url, answer) {
  return interceptFetch((input, init, send) =>
    String(input?.url ?? input) === url ? Promise.resolve(answer((target) => send(target))) : send(input, init),
  );
}

const fetchHooks = []; // the hooks in front of fetch, the last added first asked
let unhookedFetch = null; // the fetch they stand in front of, while there are any

/**
 * Put `hook(input, init, send)` in front of this scope's fetch until the returned function is called; `send` is
 * the fetch behind it (the next hook's, or the scope's own). Hooks end in any order, each only itself: a start's
 * download count ends with the start while the Pyodide boot it began may go on (a snapshot's start that failed),
 * still needing its local answers. Putting back the fetch each found would take away the hooks added since, and
 * the boot's requests for the placeholder would reach the network ("Failed to fetch", told instead of the cause).
 */
function interceptFetch(hook) {
  if (fetchHooks.length === 0) {
    unhookedFetch = globalThis.fetch;
    globalThis.fetch = (input, init) => {
      // The hooks of this moment: one that ends during the request leaves it as it began.
      const hooks = fetchHooks.slice();
      const plain = unhookedFetch;
      const send = (index) => (target, options) => (index < 0 ? plain(target, options) : hooks[index](target, options, send(index - 1)));
      return send(hooks.length - 1)(input, init);
    };
  }
  fetchHooks.push(hook);
  return () => {
    const index = fetchHooks.indexOf(hook);
    if (index >= 0) {
      fetchHooks.splice(index, 1);
      if (fetchHooks.length === 0) {
        globalThis.fetch = unhookedFetch;
      }
    }
  };
}

/**
 * Answer Pyodide's fetch of its wasm at `url` with the module the page compiled (`wasm`: a promise of a
 * WebAssembly.Module, or of null) until the returned function is called; with null the request is let through,
 * its response passed to `count` (the start's download counter).
 */
export function answerWasmLocally(url, wasm, count) {
  return answerLocally(url, async (send) => {
    const module = await wasm;
    if (module === null) {
      return count(await send(url));
    }
    const response = new Response(new Uint8Array(0), { headers: { "content-type": "application/wasm" } });
    precompiled.set(response, module);
    return response;
  });
}
