"""Stage 2, check: parse each page alone (markdown.py, parse.py), KaTeX in one batch (formulas.py), the Python cells (cells.py), the cross-page checks (validate.py). Writes nothing but caches."""
