"""`[text](recorded:)`: the lab's recorded run, the JSON file the build writes (assets.site_assets.RECORDED_RUN)."""

from __future__ import annotations

from collections.abc import Sequence

from markdown_it.token import Token

from sitegen.kinds.links.base import LinkScheme

RECORDED_RUN_URL = "lab/recorded-run.json"


class RecordedScheme(LinkScheme):
    """A link to the recorded run; it names nothing that could be missing, so it is no use to check."""

    name = "recorded"

    def classify(self, link: Token, target: str, siblings: Sequence[Token]) -> None:
        """Point the link at the recorded run."""
        link.attrSet("href", RECORDED_RUN_URL)


SCHEME = RecordedScheme()
