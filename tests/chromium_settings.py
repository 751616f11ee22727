"""How Debian's Chromium is launched, for the browser tests and the benchmarks alike.

`playwright install` cannot download browsers here, so /usr/bin/chromium is
used, with everything that would phone home switched off (nothing may leave
127.0.0.1). The tests find this module on pytest's path (tests/ holds the
root conftest); the benchmarks put tests/ on sys.path themselves.
"""

from __future__ import annotations

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = (
    "--no-sandbox",  # we run as root
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def chromium_launch_options() -> dict:
    """Return Playwright's launch options for Debian's Chromium (a fresh dict each time, safe to extend)."""
    return {"executable_path": CHROMIUM, "args": list(CHROMIUM_ARGS)}
