"""How the 404 page finds the site's root when the build does not know its address (no base_url).

The build writes a marker file at the root of dist/; the 404 page carries one
small inline script (client/inline/find-site-root.js) that probes the folders above the
missing address for it and then points the page's links, stylesheets and
scripts there. The script is allowed by its hash in that page's CSP only; the
other inline scripts are theme.js's bundle on every page (plan.py's head_script)
and, on a page whose labs read the address, the early request for the snapshot
(client/inline/request-snapshot-early.js), each allowed by its own hash. Not the build marker
(.rollouts-build): hosts may refuse to serve dot-files.
"""

from __future__ import annotations

import base64
import hashlib

from sitegen.files.paths import CLIENT_FOLDER, find_project_root

ROOT_MARKER = "rollouts-root.txt"
ROOT_MARKER_TEXT = "The root of a site built by rollouts: its 404 page looks for this file to find the contents.\n"
FIND_ROOT_SCRIPT = (find_project_root() / CLIENT_FOLDER / "inline/find-site-root.js").read_text(encoding="utf-8")
# On a lab page whose address holds lab settings, the head asks for the snapshot at once (docs/workers.md).
EARLY_SNAPSHOT_SCRIPT = (find_project_root() / CLIENT_FOLDER / "inline/request-snapshot-early.js").read_text(encoding="utf-8")


def allow_inline_script(policy: str, script: str) -> str:
    """Return the Content-Security-Policy with the script's SHA-256 added to script-src."""
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    return policy.replace("script-src 'self'", f"script-src 'self' 'sha256-{digest}'", 1)
