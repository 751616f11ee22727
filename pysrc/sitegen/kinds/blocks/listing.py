"""`::: listing FILE NAME...`: functions from the core's own source, with a caption (the container's Markdown)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from markupsafe import Markup

from sitegen.context import SiteContext
from sitegen.kinds.blocks.base import BlockKind, BlockStart
from sitegen.read.listings import ListingError, extract_listing
from sitegen.render.highlight import render_code_block


@dataclass(frozen=True)
class ListingData:
    """The core file, the names shown, and their source text."""

    file: str
    names: tuple[str, ...]
    code: str


class ListingKind(BlockKind[ListingData]):
    """A listing of the core's code, taken from the source at build time so it cannot drift."""

    name = "listing"
    partial = "partials/listing.html"

    def check(self, start: BlockStart) -> ListingData:
        """The first word is a core file, the rest names in it."""
        if not start.arguments:
            raise start.fail(
                "listing container needs a file and function names, e.g. '::: listing rollout_lab/sampling.py next_state'"
            )
        file, names = start.arguments[0], start.arguments[1:]
        try:
            code = extract_listing(dict(start.core_modules), file, names)
        except ListingError as error:
            raise start.fail(str(error)) from error
        return ListingData(file=file, names=names, code=code)

    def render_context(self, data: ListingData, body: Markup, site: SiteContext) -> Mapping[str, object]:
        """Return the file, the names, the code and the caption."""
        return {"file": data.file, "names": data.names, "code": Markup(render_code_block(data.code, "python")), "caption": body}


KIND = ListingKind()
