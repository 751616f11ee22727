"""`build.py preview`: serve the built dist/ as the static host will, before it is published.

Under the sub-path of the configured base URL (ROLLOUTS_BASE_URL or
site.yaml's base_url), or /rollouts/ without one, so relative links are
tested as on a project site; with the `_headers` applied and the 404 page for
missing addresses (static_server.SubPathServer). Unlike `build.py serve` it
does not build, watch or reload: it shows exactly the files that would ship.
"""

from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import urlsplit

from sitegen.diagnostics import BuildFailed
from sitegen.files.paths import find_project_root
from sitegen.read.base_url_override import override_base_url
from sitegen.read.site_config import read_base_url
from sitegen.serve.static_server import SubPathServer

DEFAULT_PREFIX = "/rollouts/"


def choose_prefix(base_url: str) -> str:
    """Return the base URL's path, or /rollouts/ (a project site's kind of address) without one."""
    return urlsplit(base_url).path if base_url else DEFAULT_PREFIX


def run_preview(out: str | None, port: int) -> int:
    """Serve the output folder until Ctrl-C; exit status 1 when there is no built site or a bad base URL."""
    root = find_project_root()
    out_dir = Path(out) if out is not None else root / "dist"
    if not (out_dir / "index.html").is_file():
        print(f"build.py preview: no built site in {out_dir} (run `make site` first)", file=sys.stderr)
        return 1
    try:
        prefix = choose_prefix(override_base_url(read_base_url(root)))
    except BuildFailed as failure:
        print("\n".join(d.format() for d in failure.diagnostics), file=sys.stderr)
        return 1
    try:
        server = SubPathServer(out_dir, prefix, port)
    except OSError as error:
        print(f"build.py preview: cannot listen on 127.0.0.1:{port}: {error.strerror}", file=sys.stderr)
        return 2
    print(f"Previewing {out_dir} at http://127.0.0.1:{server.server_address[1]}{prefix} (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
