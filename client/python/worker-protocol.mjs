// The request loop the three runtimes share (docs/workers.md, "Messages"): requests {id, op, args} answered with
// {id, ok, result | error}, progress and segments on the way.

/** A response that succeeded. */
export function success(result) {
  return { ok: true, result };
}

/** A failed response: the one error shape, {message, field} (field names the setting at fault, or is null). */
export function failure(message, field = null) {
  return { ok: false, error: { message, field } };
}

/** The reader-facing text of a failure: a PythonError's message is the whole traceback; its last line says what went wrong. */
export function describeFailure(error) {
  const text = String(error?.message ? error.message : error).trim();
  const lines = text.split("\n");
  return lines[lines.length - 1] || "unknown error";
}

/**
 * Return `handle(request, emit)`, answering one request {id, op, args} with
 * {id, ok, result | error}. "init" starts the runtime once (`start(args,
 * report)`, resolving to an object with a `version`, and optionally a `reply`
 * whose fields init's result carries beside it); `report(progress)` sends
 * {id, progress} to the first init's caller while it starts); every other op is
 * `ops[op](runtime, args, emit)`, resolving to a response. `emit(segment)`
 * sends {id, segment} before the response (a cell's output as it is written).
 * Nothing is thrown: every failure becomes a response.
 *
 * `guard(failStart)` is called once to hook the environment's
 * unhandled-rejection event: when a runtime file fails to download, Pyodide
 * leaves the rejected fetch unhandled and waits forever. failStart(reason)
 * turns that into a failed start and returns true while the start is under
 * way (Pyodide may leave more than one such rejection, so they stay silenced
 * once the start has failed; the page then ends the worker); after a
 * successful start it returns false, and later ones surface as the bugs they
 * would be.
 */
export function createServer({ start, ops, guard, send }) {
  let runtime = null; // Promise of start()'s result, set by the first "init".
  let failStart = null; // Rejects `runtime` until it has started.
  guard((reason) => {
    if (failStart === null) {
      return false;
    }
    failStart(reason);
    return true;
  });

  async function answer(op, args, emit, report) {
    if (op === "init") {
      if (runtime === null) {
        const failed = new Promise((_, reject) => {
          failStart = reject;
        });
        runtime = Promise.race([start(args, report), failed]);
        runtime.then(
          () => {
            failStart = null;
          },
          () => {},
        );
      }
      const { version, reply = {} } = await runtime;
      return success({ version, ...reply });
    }
    if (runtime === null) {
      return failure(`"${op}" needs "init" first`);
    }
    const handler = Object.hasOwn(ops, op) ? ops[op] : null;
    if (handler === null) {
      return failure(`unknown request "${op}"`);
    }
    return handler(await runtime, args, emit);
  }

  return async (request) => {
    const { id, op, args } = request ?? {};
    let response;
    try {
      response = await answer(
        op,
        Array.isArray(args) ? args : [],
        (segment) => send({ id, segment }),
        (progress) => send({ id, progress }),
      );
    } catch (error) {
      response = failure(describeFailure(error));
    }
    send({ id, ...response });
  };
}

/** Serve requests in a module Web Worker (`scope` is its global scope): each message a request, answered as it finishes. */
export function serveWorker(scope, { start, ops }) {
  const handle = createServer({
    start,
    ops,
    send: (message) => scope.postMessage(message),
    guard: (failStart) =>
      scope.addEventListener("unhandledrejection", (event) => {
        if (failStart(event.reason)) {
          event.preventDefault();
        }
      }),
  });
  scope.addEventListener("message", (event) => handle(event.data));
}
