"""Files on disk: fixed locations (paths.py), atomic writes, bounded reads, checksums taken once, the tool's cache."""
