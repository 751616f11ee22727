"""Command line: `build.py [build|check|serve|lab]`.

Maps every expected failure to a short message and an exit status, never a
traceback: 1 for content problems, 2 for bad command-line values.
"""

import argparse
import contextlib
import errno
import os
import re
import sys
from typing import NoReturn

from sitegen.diagnostics import excerpt, quote
from sitegen.speed import Accelerators, read_accelerators

# Every command imports its modules when it runs: the dev server's process
# never needs Jinja or markdown-it (its build process does), `lab` needs
# neither, and the no-change build should not pay for the core.


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    """Read the command line."""
    parser = argparse.ArgumentParser(prog="build.py", description="Build the Rollouts tutorial site.")
    commands = parser.add_subparsers(dest="command")

    lab = commands.add_parser("lab", help="run a lab widget's core once and print its record")
    # Its options come from the core's widgets (sitegen/commands/lab.py): only
    # `build.py lab` imports the core for them, so other commands skip it.
    if (sys.argv[1:] if argv is None else argv)[:1] == ["lab"]:
        from sitegen.commands.lab import add_lab_arguments

        add_lab_arguments(lab)

    # `build.py` alone builds content/ into dist/.
    build = commands.add_parser("build", help="build the site (the default command)")
    build.add_argument("--content", default=None, metavar="DIR", help="content folder (default: content/)")
    build.add_argument("--out", default=None, metavar="DIR", help="output folder (default: dist/)")
    build.add_argument("--strict", action="store_true", help="treat warnings (unused terms, uncited sources, ...) as errors")
    build.add_argument("--quiet", action="store_true", help="print only problems: no summary line, no progress")

    check = commands.add_parser("check", help="validate everything without writing, and list the external links")
    check.add_argument("--content", default=None, metavar="DIR", help="content folder (default: content/)")
    check.add_argument("--strict", action="store_true", help="treat warnings as errors")
    check.add_argument(
        "--fetch-external", action="store_true", help="also fetch each external link (short timeout) and report its status"
    )

    serve = commands.add_parser("serve", help="build, serve on 127.0.0.1, rebuild and reload on every change")
    # A string, checked in main(): argparse's own error is a usage block, ours is one line.
    serve.add_argument("--port", default="8000", help="port (default 8000; 0 picks a free one)")
    serve.add_argument("--content", default=None, metavar="DIR", help="content folder (default: content/)")
    serve.add_argument("--out", default=None, metavar="DIR", help="output folder (default: dist/)")
    serve.add_argument("--strict", action="store_true", help="treat warnings as errors")

    preview = commands.add_parser("preview", help="serve the built site as a static host would (sub-path, _headers, 404 page)")
    preview.add_argument("--port", default="8000", help="port (default 8000; 0 picks a free one)")
    preview.add_argument("--out", default=None, metavar="DIR", help="the built site (default: dist/)")

    return parser.parse_args(argv)


def run_lab_command(arguments: argparse.Namespace) -> int:
    """Print one lab record; a bad setting is one line on stderr and exit status 2."""
    from sitegen.commands.lab import read_lab_settings, render_lab_output

    try:
        output = render_lab_output(arguments.widget, read_lab_settings(arguments), arguments.output_format)
    except ValueError as error:
        print(f"build.py lab: {excerpt(str(error), 200)}", file=sys.stderr)
        return 2
    try:
        print(output, flush=True)
    except BrokenPipeError:
        # `build.py lab | head` closed the pipe early: not an error worth a traceback.
        sys.stdout = None  # stops the interpreter flushing the closed pipe at exit
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command named on the command line and return the exit status.

    Ctrl-C ends any command quietly with status 130 (the shell's convention);
    a closed output pipe (`build.py check | head -1`) ends it quietly too.
    """
    try:
        accelerators = read_accelerators()
    except ValueError as problem:
        print(f"build.py: {problem}", file=sys.stderr)
        return 2
    try:
        return run_command(parse_arguments(argv), accelerators)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
        return 1


def exit_at_once(status: int) -> NoReturn:
    """End the process with `status` once `main` returned, without tearing the interpreter down (build.py's exit).

    Freeing every module and object one by one costs a cold build 60-130 ms of
    CPU after its last file is written; the operating system takes the memory
    back at once. Nothing is left to do by then: every file a command writes is
    closed, node and the dev server's build process are stopped. What Python's
    own exit would still do is done here: stdout and stderr are flushed, and a
    failed flush exits with 120, as Python's does.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            status = 120
    os._exit(status)


def read_port(text: str) -> int | None:
    """Return the port number typed, or None unless it is a whole number from 0 to 65535 in ASCII digits."""
    return int(text) if re.fullmatch(r"[0-9]{1,5}", text) and int(text) <= 65535 else None


def find_path_problem(text: str) -> str:
    """Return why a folder typed on the command line cannot be a path at all ("" when it can): a symbolic link loop,
    or a name longer than the file system allows. Whether it exists, and what it is, each command decides."""
    longest = max((len(os.fsencode(part)) for part in text.split("/")), default=0)
    limit = read_name_limit(text)
    if longest > limit:
        return f"a name in it is longer than the file system allows ({longest} bytes; the limit is {limit})"
    try:
        os.stat(text)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "it goes through a loop of symbolic links"
        if error.errno == errno.ENAMETOOLONG:
            return "it is longer than the file system allows"
    return ""


def read_name_limit(text: str) -> int:
    """Return the longest file name the file system under the typed path allows (255 where it cannot tell)."""
    folder = os.path.dirname(os.path.abspath(text))
    while folder:
        try:
            return os.pathconf(folder, "PC_NAME_MAX")
        except (OSError, ValueError):
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
    return 255


def run_command(arguments: argparse.Namespace, accelerators: Accelerators) -> int:
    """Run one parsed command, with the accelerators ROLLOUTS_PLAIN left on."""
    for option in ("content", "out"):
        value = getattr(arguments, option, None)
        problem = find_path_problem(value) if value is not None else ""
        if problem:
            print(f"build.py {arguments.command or 'build'}: --{option} {quote(value)}: {problem}", file=sys.stderr)
            return 2
    if arguments.command in ("serve", "preview"):
        port = read_port(arguments.port)
        if port is None:
            print(
                f"build.py {arguments.command}: --port must be a whole number from 0 to 65535, got {quote(arguments.port)}",
                file=sys.stderr,
            )
            return 2
        arguments.port = port
    if arguments.command == "lab":
        return run_lab_command(arguments)
    if arguments.command in (None, "build"):
        from sitegen.commands.build import run_build

        return run_build(
            getattr(arguments, "content", None),
            getattr(arguments, "out", None),
            strict=getattr(arguments, "strict", False),
            quiet=getattr(arguments, "quiet", False),
            accelerators=accelerators,
        )
    if arguments.command == "check":
        from sitegen.commands.check import run_check

        return run_check(arguments.content, strict=arguments.strict, fetch_external=arguments.fetch_external)
    if arguments.command == "serve":
        from sitegen.serve.server import run_serve

        return run_serve(arguments.content, arguments.out, arguments.port, strict=arguments.strict)
    if arguments.command == "preview":
        from sitegen.commands.preview import run_preview

        return run_preview(arguments.out, arguments.port)
    raise SystemExit(f"build.py: unknown command {arguments.command!r}")
