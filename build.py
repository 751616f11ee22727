#!/usr/bin/env python3
"""Build the Rollouts site, run the lab from the command line, or serve while authoring.

Thin on purpose: everything lives in pysrc/sitegen (see sitegen.cli).
"""

import sys
from pathlib import Path

if __name__ == "__main__":
    try:
        sys.path.insert(0, str(Path(__file__).resolve().parent / "pysrc"))
        from sitegen.cli import main

        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl-C before main() took over (while Python imports): quiet, like any other Ctrl-C
        sys.exit(130)
