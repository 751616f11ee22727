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

# Chromium 156 loads the address bar's drop-down (two WebUI pages, chrome://omnibox-popup.top-chrome/) in a
# renderer of its own for every window, so for every context a test opens, though a headless window never shows it:
# 0.45 s of CPU in that renderer and 0.1 s in the browser's, a sixth of what a Python start costs (measured,
# docs/benchmarks.md, issue 41). These two features are those pages.
HIDDEN_UI_FEATURES = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup")

# Chromium takes the last --disable-features and drops the earlier ones (measured), so ours must repeat the list
# Playwright passes before it (playwright-core's chromiumSwitches.ts, at the version constraints.txt pins), or those
# would be switched back on. test_chromium_settings.py fails, naming them, if a new Playwright adds one.
PLAYWRIGHT_DISABLED_FEATURES = (
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable",
    "LensOverlay",
    "MediaRouter",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AimEnabled",
    "PreconnectToSearch",
    "msForceBrowserSignIn",
    "msEdgeUpdateLaunchServicesPreferredVersion",
)
# Chromium starts a spare renderer ahead of a window's next navigation, so that a reader following a link need not wait
# for a process. A test's context is new and closed a second later: its spare is started and thrown away unused. Over
# 109 browser tests that was 8 % of their CPU (docs/benchmarks.md, issue 41, ninth round). The tests go without it; the
# benchmarks, which time what a reader sees, keep it.
TEST_ONLY_DISABLED_FEATURES = ("SpareRendererForSitePerProcess",)


def chromium_launch_options(for_tests: bool = False) -> dict:
    """Return Playwright's launch options for Debian's Chromium (a fresh dict each time, safe to extend).

    `for_tests`: also without what only pays off over a long-lived window (TEST_ONLY_DISABLED_FEATURES).
    """
    features = (*PLAYWRIGHT_DISABLED_FEATURES, *HIDDEN_UI_FEATURES, *(TEST_ONLY_DISABLED_FEATURES if for_tests else ()))
    return {"executable_path": CHROMIUM, "args": [*CHROMIUM_ARGS, "--disable-features=" + ",".join(features)]}
