#!/usr/bin/env python3
"""Build the Rollouts site, run the lab from the command line, or serve while authoring.

Thin on purpose: everything lives in pysrc/sitegen (see sitegen.cli).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "pysrc"))

from sitegen.cli import main

if __name__ == "__main__":
    sys.exit(main())
