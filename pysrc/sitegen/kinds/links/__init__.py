"""The registry of link schemes: what `[text](NAME:...)` may name. See base.py for the interface."""

from __future__ import annotations

from sitegen.kinds.links import cite, figure, lab, recorded, term
from sitegen.kinds.links.base import LinkScheme

SCHEMES: dict[str, LinkScheme] = {
    scheme.name: scheme for scheme in (term.SCHEME, cite.SCHEME, figure.SCHEME, recorded.SCHEME, lab.SCHEME)
}


def find_scheme(href: str) -> LinkScheme | None:
    """Return the scheme whose prefix starts this address, or None."""
    name, colon, _ = href.partition(":")
    scheme = SCHEMES.get(name) if colon else None
    return scheme
