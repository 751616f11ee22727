"""The ROLLOUTS_BASE_URL environment variable: the published address, given by the deploy job instead of site.yaml.

A CI job knows where it publishes (GitHub Pages' configure-pages action
outputs it), so the workflow passes it in the environment and the build step
stays exactly `make site`. When the variable is set and not empty it wins
over site.yaml's base_url; a missing trailing slash is added.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import urlsplit

from sitegen.diagnostics import BuildFailed, Diagnostic, Location

BASE_URL_VARIABLE = "ROLLOUTS_BASE_URL"


def override_base_url(configured: str, environment: Mapping[str, str] = os.environ) -> str:
    """Return ROLLOUTS_BASE_URL (ending in "/") when set and not blank, else the configured base URL; fail on a bad value."""
    value = environment.get(BASE_URL_VARIABLE, "").strip()
    if not value:
        return configured
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        message = f"must be an absolute http(s) address like https://example.org/rollouts/, got {value!r}"
        raise BuildFailed([Diagnostic(Location(BASE_URL_VARIABLE, 0), message)])
    return value if value.endswith("/") else value + "/"
