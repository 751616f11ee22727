"""The switches the tests launch Chromium with (chromium_settings.py) do what they say, in the Chromium launched."""

from __future__ import annotations

import os
from pathlib import Path

from playwright.sync_api import Browser

from chromium_settings import HIDDEN_UI_FEATURES, TEST_ONLY_DISABLED_FEATURES
from sitegen.speed.free_cores import read_children


def read_chromium_command_lines() -> list[list[str]]:
    """The command lines of the Chromium browser processes (not their renderers or helpers) under this process."""
    command_lines = []
    waiting = [os.getpid()]
    while waiting:
        pid = waiting.pop()
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
            waiting += read_children(Path(f"/proc/{pid}/task"))
        except OSError:
            continue  # it ended while listed
        if argv[0].endswith("/chromium") and not any(arg.startswith("--type=") for arg in argv):
            command_lines.append(argv)
    return command_lines


def test_the_last_disable_features_switch_keeps_every_feature_an_earlier_one_disables(browser: Browser):
    command_lines = read_chromium_command_lines()
    assert command_lines, "no Chromium started by this test process"
    for argv in command_lines:
        lists = [arg.removeprefix("--disable-features=").split(",") for arg in argv if arg.startswith("--disable-features=")]
        # Chromium reads only the last one: what an earlier one (Playwright's) disables must be repeated in it.
        switched_back_on = sorted({feature for earlier in lists[:-1] for feature in earlier} - set(lists[-1]))
        assert switched_back_on == [], "add to chromium_settings.PLAYWRIGHT_DISABLED_FEATURES: " + ",".join(switched_back_on)
        assert set(HIDDEN_UI_FEATURES) | set(TEST_ONLY_DISABLED_FEATURES) <= set(lists[-1])


def test_a_new_context_loads_no_address_bar_page(browser: Browser, open_context):
    page = open_context().new_page()
    page.goto("about:blank")
    session = browser.new_browser_cdp_session()
    try:
        urls = [target["url"] for target in session.send("Target.getTargets")["targetInfos"]]
    finally:
        session.detach()
    assert [url for url in urls if url.startswith("chrome://")] == []
