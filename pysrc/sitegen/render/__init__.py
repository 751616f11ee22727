"""Stage 3, render: each page's HTML (pages.py) and what pages show beside the prose (previews, page meta, search index, sitemap, generated figures). Pure but for caches."""
