"""`[text](recorded:)`: the lab's recorded run, the JSON file the build writes (assets.site_assets.RECORDED_RUN)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from markdown_it.token import Token

from sitegen.diagnostics import Diagnostic, quote, report
from sitegen.kinds.links.base import LinkScheme, list_uses
from sitegen.messages import (
    RECORDED_LINK_TARGET,
)
from sitegen.model import ParsedProject

RECORDED_RUN_URL = "lab/recorded-run.json"


class RecordedScheme(LinkScheme):
    """A link to the recorded run: `recorded:` names nothing, so anything after the colon is a mistake."""

    name = "recorded"

    def classify(self, link: Token, target: str, siblings: Sequence[Token]) -> None:
        """Point the link at the recorded run; keep what followed the colon, for check."""
        link.attrSet("href", RECORDED_RUN_URL)
        link.meta["key"] = target

    def check(self, parsed: ParsedProject, figure_files: Mapping[str, str]) -> Iterable[Diagnostic]:
        """A `recorded:` link with anything after the colon (`recorded:nope`) is an error: there is one recorded run."""
        return [
            report(use.location, RECORDED_LINK_TARGET, target=quote(use.key))
            for _page, use in list_uses(parsed.pages, self.name)
            if use.key
        ]


SCHEME = RecordedScheme()
