"""sitemap.xml, written only when site.yaml gives a base URL: a sitemap must list absolute URLs.

Without a base URL the site stays relative-only and hostable anywhere, so no
sitemap (and no canonical tags) are written rather than guessed ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from sitegen.model import INDEX_PAGE

SITEMAP = "sitemap.xml"


def page_url(base_url: str, page_name: str) -> str:
    """Return a page's absolute URL; the contents page is the base URL itself."""
    return base_url if page_name == INDEX_PAGE else base_url + page_name


def write_sitemap(base_url: str, page_names: Sequence[str]) -> bytes:
    """Return sitemap.xml listing the pages in the order given."""
    urls = "".join(f"  <url><loc>{escape(page_url(base_url, name), quote=False)}</loc></url>\n" for name in page_names)
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{urls}</urlset>\n'
    ).encode()
