"""The render stage: every page of the site as HTML, the search index and the sitemap.

The pages' assets were planned before (assets/plan.py): rendering only looks
their URLs up in the `SiteContext`. What publishing makes from all the files
(the offline manifest, _headers) comes after (publish/finish.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

from sitegen.context import SiteContext
from sitegen.kinds.pages import PAGE_KINDS
from sitegen.model import NOT_FOUND_PAGE, OFFLINE_PAGE, REFERENCES_PAGE, Page, ParsedProject
from sitegen.render.pages import (
    render_not_found_page,
    render_offline_page,
    render_page,
    render_references_page,
    report_template_errors,
)
from sitegen.render.search_index import SEARCH_INDEX, SearchDocument, list_search_documents, write_search_index
from sitegen.render.sitemap import SITEMAP, write_sitemap

PageRenderer = Callable[[Page, SiteContext], str]
IndexWriter = Callable[[Sequence[SearchDocument]], bytes]


def render_site(
    parsed: ParsedProject,
    site: SiteContext,
    render: PageRenderer = render_page,
    with_offline_page: bool = False,
    rendered_last: frozenset[str] = frozenset(),
    write_index: IndexWriter = write_search_index,
) -> dict[str, bytes]:
    """Return every page's HTML and the site-wide files made from the pages, by their paths under dist/.

    `render` replaces `render_page` (the dev server passes one that reuses the
    HTML of pages whose inputs did not change); `with_offline_page`: the page
    the service worker shows for a page it did not keep; `rendered_last`: the
    output names `render` asked for after every other page's (a forked copy
    renders them meanwhile: beside.py); `write_index` replaces
    `write_search_index` (the copy makes the index too). A template error
    raises BuildFailed naming its `site_templates/NAME:LINE`.
    """
    with report_template_errors():
        # The pages first: the dev server publishes an edited page the moment it is rendered (serve/incremental.py).
        in_order = sorted(parsed.pages, key=lambda page: page.output_name in rendered_last)
        html = {page.output_name: encode_page(render(page, site)) for page in in_order}
        files: dict[str, bytes] = {page.output_name: html[page.output_name] for page in parsed.pages}
        # A stable name, outside the hashed assets: pages do not change when the index does (search_index.py).
        searchable = [page for page in parsed.pages if PAGE_KINDS[page.kind].searchable]
        files[SEARCH_INDEX] = write_index(list_search_documents(searchable, parsed.glossary, parsed.references))
        files[REFERENCES_PAGE] = render_references_page(site).encode()
        files[NOT_FOUND_PAGE] = render_not_found_page(site).encode()
        if site.base_url:
            page_names = [page.output_name for page in parsed.pages] + [REFERENCES_PAGE]
            files[SITEMAP] = write_sitemap(site.base_url, page_names)
        if with_offline_page:
            files[OFFLINE_PAGE] = render_offline_page(site, OFFLINE_PAGE).encode()
    return files


# Remembered: the dev server reuses the HTML of every page an edit did not touch, and encoding 96 chapters' HTML
# again on every edit cost more than rendering the one that changed (a string keeps its own hash).
@lru_cache(maxsize=1024)
def encode_page(html: str) -> bytes:
    """Return a page's HTML as the bytes written."""
    return html.encode()
