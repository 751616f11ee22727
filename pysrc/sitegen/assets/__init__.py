"""The files pages point at, under content-hashed names: static files, minified scripts and stylesheets, the editor bundle, KaTeX, the core's zip, the Pyodide runtime."""
