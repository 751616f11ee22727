"""The dev server (server.py tells its story): HTTP, server-sent events, the reload overlay, the watcher, the build process and its incremental session."""
