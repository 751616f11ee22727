"""The files made from all the others, last: the offline manifest with its service worker, then `_headers`.

The manifest lists every file the reader may keep, with a revision of its
bytes (offline.py), and `_headers` gives every file its caching rule
(host_headers.py), so both wait for the pages and their assets.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from sitegen.context import SiteAssets
from sitegen.publish.host_headers import HEADERS_FILE, plan_header_rules, write_headers
from sitegen.publish.offline import (
    OFFLINE_SIZES,
    SERVICE_WORKER,
    SERVICE_WORKER_SOURCE,
    plan_offline_manifest,
    write_offline_sizes,
    write_service_worker,
)


def finish_site(files: Mapping[str, bytes | Path], assets: SiteAssets) -> dict[str, bytes | Path]:
    """Return the site's files with what publishing adds: sw.js and offline.json (unless `offline: false`), _headers."""
    finished = dict(files)
    if assets.offline:
        manifest = plan_offline_manifest(finished, assets.immutable, assets.python_only)
        finished[SERVICE_WORKER] = write_service_worker(manifest, SERVICE_WORKER_SOURCE.read_bytes())
        finished[OFFLINE_SIZES] = write_offline_sizes(manifest)
    uncached = [SERVICE_WORKER] if SERVICE_WORKER in finished else []
    finished[HEADERS_FILE] = write_headers(plan_header_rules(finished, assets.immutable, uncached, assets.workers))
    return finished
