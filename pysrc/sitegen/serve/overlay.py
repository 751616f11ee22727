"""What the dev server adds to every page it serves: a reload script that also shows a failed build's problems over the page.

The tag is added while serving, never written (dist/ stays exactly what
`build.py` writes); the script and its stylesheet are same-origin files
(the pages' CSP forbids inline scripts, client/dev/) read on each request, so
editing them needs no restart.
"""

from __future__ import annotations

import re

from sitegen.files.paths import CLIENT_FOLDER, find_project_root

DEV_PREFIX = "/__rollouts__/"
EVENTS_PATH = DEV_PREFIX + "events"
DEV_FILES = {
    DEV_PREFIX + "reload.js": ("reload.js", "text/javascript; charset=utf-8"),
    DEV_PREFIX + "reload.css": ("reload.css", "text/css; charset=utf-8"),
}
_HEAD_END = re.compile(rb"</head>", re.IGNORECASE)
# Served before the first good build: it reloads (and shows the problems) by itself.
NOT_BUILT_PAGE = (
    b'<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Not built yet</title>\n</head>\n'
    b"<body>\n<main>\n<h1>Not built yet</h1>\n<p>The first build has not succeeded yet; the terminal lists the problems. "
    b"This page reloads by itself after the next good build.</p>\n</main>\n</body>\n</html>\n"
)


def add_reload_script(html: bytes, build: int) -> bytes:
    """Return a page with the reload script's tag before </head>; `data-build` tells the script which build it shows."""
    # data-rollouts-dev: offline.js registers no service worker under the dev server (no page from a cache while editing).
    tag = f'<script src="{DEV_PREFIX}reload.js" data-build="{build}" data-rollouts-dev defer></script>\n'.encode()
    return _HEAD_END.sub(lambda match: tag + match.group(0), html, count=1)


def read_dev_file(name: str) -> bytes:
    """Return the reload script or its stylesheet (client/dev/NAME)."""
    return (find_project_root() / CLIENT_FOLDER / "dev" / name).read_bytes()
