"""Stage 1, read: everything the build reads from disk, once (load.py), and the checks of what authors write in YAML (schema.py)."""
