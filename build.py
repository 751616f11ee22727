#!/usr/bin/env python3
"""Build the Rollouts site, run the lab from the command line, or serve while authoring.

Thin on purpose: everything lives in pysrc/sitegen (see sitegen.commands.cli).
"""

import sys

if __name__ == "__main__":
    try:
        from pathlib import Path

        sys.path.insert(0, str(Path(__file__).resolve().parent / "pysrc"))
        from sitegen.commands.cli import exit_at_once, main

        exit_at_once(main())
    except KeyboardInterrupt:  # Ctrl-C before main() took over (while the imports run): quiet, like any other Ctrl-C
        sys.exit(130)
