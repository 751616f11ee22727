"""The accelerators: the one seam between the build's story and what only makes it faster (docs/speed.md).

Each accelerator changes when or where work is done, never its result: a
build with all of them off (`ROLLOUTS_PLAIN=1`) writes the same bytes as one
with all of them on (tests/site/speed/test_plain_build.py). They are:

- beside.py (`beside`): a forked copy of the build parses and renders the later chapters on the second core;
  free_cores.py says whether a core is free for it;
- math_prefetch.py (`prefetch`): formulas guessed from the Markdown are sent to KaTeX while Python imports;
- collector.py (`collector`): the garbage collector's young collections spaced out for a build.

`ROLLOUTS_PLAIN` is read here and nowhere else: `1` (or `all`) turns every
accelerator off, a comma-separated list of their names turns off those.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

PLAIN_VARIABLE = "ROLLOUTS_PLAIN"


@dataclass(frozen=True)
class Accelerators:
    """Which accelerators a command uses; all on unless ROLLOUTS_PLAIN turns some off."""

    beside: bool = True
    prefetch: bool = True
    collector: bool = True


ALL_ON = Accelerators()
ALL_OFF = Accelerators(beside=False, prefetch=False, collector=False)
NAMES = tuple(Accelerators.__dataclass_fields__)


def read_accelerators(environ: Mapping[str, str] = os.environ) -> Accelerators:
    """Return the accelerators ROLLOUTS_PLAIN leaves on; raise ValueError naming a word it does not know."""
    value = environ.get(PLAIN_VARIABLE, "").strip()
    if value in ("", "0"):
        return ALL_ON
    if value in ("1", "all"):
        return ALL_OFF
    off = {word.strip() for word in value.split(",") if word.strip()}
    unknown = sorted(off - set(NAMES))
    if unknown:
        raise ValueError(
            f"{PLAIN_VARIABLE}={value}: no accelerator is called {unknown[0]!r} (1 or all, or some of: {', '.join(NAMES)})"
        )
    return Accelerators(**{name: name not in off for name in NAMES})
