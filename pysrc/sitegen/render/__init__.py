"""Stage 4, render: every page's HTML (site.py, pages.py) and what pages show beside the prose (previews, page meta, search index, sitemap, generated figures). Pure but for caches."""
