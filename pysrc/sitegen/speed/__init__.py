"""The accelerators: the one seam between the build's story and what only makes it faster (docs/speed.md).

An accelerator changes when or where work is done, never its result: a build
with every accelerator off (`ROLLOUTS_PLAIN=1`) writes the same bytes as one
with all of them on (tests/site/speed/test_plain_build.py). One is left,
kept only while it pays at least a tenth of a cold build at 6 or 96 chapters; head_start.py sets it up for
build_site:

- beside.py (`beside`): a forked copy of the build parses and renders the later chapters on the second core,
  when free_cores.py says other work leaves one free.

`ROLLOUTS_PLAIN` is read here and nowhere else, once per command (commands/cli.py):
`1` (or `all`) turns every accelerator off, a comma-separated list of their names turns those off.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields

PLAIN_VARIABLE = "ROLLOUTS_PLAIN"


@dataclass(frozen=True)
class Accelerators:
    """Which accelerators a command uses: each field is one, named as ROLLOUTS_PLAIN names it."""

    beside: bool = True


ALL_ON = Accelerators()
NAMES = tuple(field.name for field in fields(Accelerators))
ALL_OFF = Accelerators(**dict.fromkeys(NAMES, False))


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
