"""The command line: cli.py parses the arguments; one module per command (build, check, preview, lab); serve lives in serve/."""
