"""The ROLLOUTS_BASE_URL environment variable: the published address, given by the deploy job instead of site.yaml.

A CI job knows where it publishes (GitHub Pages' configure-pages action
outputs it), so the workflow passes it in the environment and the build step
stays exactly `make site`. When the variable is set and not empty it wins
over site.yaml's base_url; a missing trailing slash is added.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from sitegen.diagnostics import BuildFailed, Location, report
from sitegen.messages import BASE_URL_VARIABLE_BAD
from sitegen.read.site_config import describe_base_url_problem

BASE_URL_VARIABLE = "ROLLOUTS_BASE_URL"


def override_base_url(configured: str, environment: Mapping[str, str] = os.environ) -> str:
    """Return ROLLOUTS_BASE_URL (ending in "/") when set and not blank, else the configured base URL; fail on a bad value."""
    value = environment.get(BASE_URL_VARIABLE, "").strip()
    if not value:
        return configured
    # The same checks as site.yaml's base_url (credentials, a bad port, characters a URL cannot hold as they are).
    problem = describe_base_url_problem(value)
    if problem:
        raise BuildFailed([report(Location(BASE_URL_VARIABLE, 0), BASE_URL_VARIABLE_BAD, rule=problem)])
    return value if value.endswith("/") else value + "/"
