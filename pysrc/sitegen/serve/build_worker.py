"""The dev server's build process: `python -m sitegen.serve.build_worker ROOT OUT [--content DIR] [--strict]`.

The server (server.py) runs the pipeline in this separate process so that an
edit under pysrc/ takes effect the robust way: the server ends this process
and starts a fresh one, which imports the edited code from scratch.
(`importlib.reload` would leave the old classes alive in every object built
before, functools caches keyed by them, and Jinja environments compiled
against them.) The process keeps its SiteSession and its KaTeX process
between rebuilds, so rebuilds after content or template edits stay fast.

Protocol, one JSON object per line. Requests on stdin:
`{"reload": "content"}` (only the content folder changed) or
`{"reload": "all"}` (templates or static files too; also the first build).
Answers on stdout:
`{"ok": true, "written": [...], "rendered": [...], "warnings": [...], "seconds": 0.04}`
or `{"ok": false, "problems": ["path:line: message", ...]}`.
The process ends when stdin closes, stopping KaTeX with it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from functools import partial
from pathlib import Path
from typing import TextIO

from sitegen.check.formulas import start_katex
from sitegen.diagnostics import BuildFailed
from sitegen.files.atomic import write_atomically
from sitegen.publish.write import update_site
from sitegen.serve.incremental import SiteSession


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    """Read the command line the server passes."""
    parser = argparse.ArgumentParser(prog="sitegen.serve.build_worker")
    parser.add_argument("root", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--content", default=None)
    parser.add_argument("--strict", action="store_true")
    return parser.parse_args(argv)


def answer_requests(requests: TextIO, answers: TextIO, session: SiteSession, out_dir: Path) -> None:
    """Rebuild once per request line and answer each with one JSON line, until the requests end."""
    previous = None  # first update compares with what is on disk; later ones with what was written
    for line in requests:
        if not line.strip():
            continue
        request = json.loads(line)
        early: dict[str, bytes] = {}
        publish = partial(publish_page, out_dir, early)
        try:
            # Pages go early only over what this process wrote last (`previous`): what is on disk is then known.
            rebuild = session.rebuild(request.get("reload") == "all", publish if previous is not None else None)
            changed = update_site(rebuild.files, out_dir, {**previous, **early} if previous is not None else None)
            previous = dict(rebuild.files)
            answer = {
                "ok": True,
                "written": sorted({*changed, *early}),
                "rendered": list(rebuild.rendered),
                "warnings": [warning.format() for warning in rebuild.warnings],
                "seconds": round(rebuild.seconds, 4),
            }
        except BuildFailed as failure:
            answer = {"ok": False, "problems": [diagnostic.format() for diagnostic in failure.diagnostics]}
        except OSError as error:
            answer = {"ok": False, "problems": [f"{error.filename or out_dir}: {error.strerror or error}"]}
        except Exception as error:  # noqa: BLE001 - a bug, or half-edited code under pysrc/: report it and keep serving
            answer = {
                "ok": False,
                "problems": [
                    f"build.py serve: the build stopped with {type(error).__name__}: {error} (traceback in the terminal)"
                ],
                "traceback": traceback.format_exc(),
            }
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


def publish_page(out_dir: Path, published: dict[str, bytes], name: str, data: bytes) -> None:
    """Write a page ahead of the rest of its rebuild (atomically, as update_site would), and note it in `published`."""
    write_atomically(out_dir / name, data)
    published[name] = data


def main(argv: list[str] | None = None) -> int:
    """Serve build requests from the dev server until it closes stdin."""
    arguments = parse_arguments(argv)
    # Answers go to the real stdout; anything else printed (by a stray print
    # in code being edited) goes to stderr and cannot break the protocol.
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    sys.stdout = sys.stderr
    root = arguments.root.resolve()
    try:
        with start_katex(root) as katex:
            session = SiteSession(root, arguments.content, katex, strict=arguments.strict)
            try:
                answer_requests(sys.stdin, answers, session, arguments.out.resolve())
            finally:
                session.close()
    except BuildFailed as failure:  # no node, no KaTeX: nothing can be built
        answers.write(json.dumps({"ok": False, "problems": [d.format() for d in failure.diagnostics], "fatal": True}) + "\n")
        answers.flush()
        return 1
    except (KeyboardInterrupt, BrokenPipeError):
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
