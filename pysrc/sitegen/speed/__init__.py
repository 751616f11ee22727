"""The accelerators, the one seam between the build's story and what only makes it faster (docs/speed.md)."""
