"""A cell's probe (issue 42): print every route it finds from Python to Pyodide's own API, one a line.

Run as a cell, at build time under Node and in the page's cell worker: it
looks at every module in sys.modules, every object the garbage collector
tracks and everything they refer to, and names each JavaScript object among
them that exposes a part of Pyodide's API (its public object, its file
system, its Emscripten module, Node's sockets). A sealed cell prints nothing.
"""

import gc
import sys

from pyodide.ffi import JsProxy

API_PARTS = ("public_api", "FS", "_module", "_nodeSock")


def find_exposed(value):
    """Return the API parts a JavaScript object exposes (none for anything else)."""
    if not isinstance(value, JsProxy):
        return []
    return [part for part in API_PARTS if safe_hasattr(value, part)]


def safe_hasattr(value, name):
    try:
        return hasattr(value, name)
    except Exception:  # noqa: BLE001 -- a proxy that throws on lookup exposes nothing this way
        return False


def describe_routes():
    """Return one line per route found: where it is held, and what it exposes."""
    routes = set()
    for name, module in list(sys.modules.items()):
        if exposed := find_exposed(module):
            routes.add(f"sys.modules[{name!r}]: {', '.join(exposed)}")
    for holder in gc.get_objects():
        for value in [holder, *gc.get_referents(holder)]:
            if exposed := find_exposed(value):
                routes.add(f"held by a {type(holder).__name__}: {', '.join(exposed)}")
    return sorted(routes)


print("".join(f"{route}\n" for route in describe_routes()), end="")
print("scanned")
