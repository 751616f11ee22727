"""The message catalogue (pysrc/sitegen/messages.py) holds every problem the build reports, each shown and used.

Read from the source where it is about the source: no call that reports a
problem passes it as text, each passes the fields its message's template
names, and each entry of the catalogue is reported somewhere. Each id is
readable and stable, and shown by a case of bad_inputs/ or checked by the
test it names.
"""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

from site_testing import PROJECT_ROOT

PYSRC = PROJECT_ROOT / "pysrc"
CATALOGUE = PYSRC / "sitegen" / "messages.py"
KEBAB_CASE = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+\Z")
# The calls that take a message, and where it stands among their arguments (`fail` is BlockStart.fail).
MESSAGE_ARGUMENT = {"report": 1, "finding": 0, "fail": 0, "CellRunaway": 0}
# Calls that once took text, and the constructor only `report` calls.
RETIRED = {"report_error", "report_warning", "Diagnostic"}


def list_sources() -> list[Path]:
    """Every module of pysrc/ but the catalogue itself."""
    return [path for path in sorted(PYSRC.rglob("*.py")) if path != CATALOGUE and "egg-info" not in str(path)]


def list_calls(names: set[str]) -> list[tuple[Path, ast.Call, str]]:
    """Return every call in pysrc/ of a function or method with one of these names: (module, call, name)."""
    found = []
    for path in list_sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
                if name in names:
                    found.append((path, node, name))
    return found


def is_text(node: ast.expr) -> bool:
    """Whether an argument is text written at the call: a string, an f-string, a sum or a `.format` of them."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp):
        return is_text(node.left) or is_text(node.right)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format"


def test_no_call_site_passes_free_text():
    problems = []
    for path, call, name in list_calls(set(MESSAGE_ARGUMENT) | RETIRED):
        where = f"{path.relative_to(PROJECT_ROOT)}:{call.lineno}"
        if name in RETIRED and not (name == "Diagnostic" and path.name == "diagnostics.py"):
            problems.append(f"{where}: {name}(...); report a catalogue entry with report(location, ENTRY, field=...)")
            continue
        position = MESSAGE_ARGUMENT.get(name)
        if position is not None and len(call.args) > position and is_text(call.args[position]):
            problems.append(f"{where}: {name}(...) is given text; give it an entry of sitegen/messages.py")
    assert problems == []


def test_ids_are_unique_kebab_case_and_each_entry_in_a_guide_section():
    from sitegen.messages import MESSAGES, SECTIONS

    ids = [message.id for message in MESSAGES]
    assert sorted(name for name in set(ids) if ids.count(name) > 1) == []
    assert [name for name in ids if not KEBAB_CASE.match(name)] == []
    assert [message.id for message in MESSAGES if message.section not in SECTIONS] == []
    assert len(MESSAGES) > 100  # the scan of the module's names finds the entries


def test_every_entry_is_reported_somewhere_in_pysrc():
    from sitegen import messages

    entries = {name for name, value in vars(messages).items() if isinstance(value, messages.Message)}
    used: set[str] = set()
    for path in list_sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                used.add(node.id)
            elif isinstance(node, ast.Attribute):
                used.add(node.attr)
    assert sorted(entries - used) == []


def test_each_call_gives_the_fields_its_template_names():
    from sitegen import messages

    entries = {name: value for name, value in vars(messages).items() if isinstance(value, messages.Message)}
    problems = []
    checked = 0
    for path, call, name in list_calls(set(MESSAGE_ARGUMENT)):
        position = MESSAGE_ARGUMENT[name]
        entry = call.args[position] if len(call.args) > position else None
        if not isinstance(entry, ast.Name) or entry.id not in entries or any(k.arg is None for k in call.keywords):
            continue  # an entry passed on (`kind.missing`, `runaway.message`) or fields spread from a Finding
        expected = entries[entry.id].field_names()
        if name == "CellRunaway":
            expected -= {"number"}  # the cell's number is added where the runaway is reported
        given = {keyword.arg for keyword in call.keywords}
        checked += 1
        if given != expected:
            problems.append(
                f"{path.relative_to(PROJECT_ROOT)}:{call.lineno}: {entry.id} given {sorted(given)}, names {sorted(expected)}"
            )
    assert problems == []
    assert checked > 100


def test_every_id_has_a_case_or_names_the_test_that_checks_its_text():
    from diagnostics_guide import read_cases
    from sitegen.messages import MESSAGES

    shown = {name for case in read_cases() for name in case.ids}
    problems = []
    for message in MESSAGES:
        if message.id in shown and message.tested_by:
            problems.append(f"{message.id}: a case shows it; drop tested_by")
        elif message.id not in shown and not message.tested_by:
            problems.append(f"{message.id}: add a case to tests/site/bad_inputs/, or name the test that checks its text")
        elif message.tested_by:
            file, _, test = message.tested_by.partition("::")
            path = PROJECT_ROOT / file
            tree = ast.parse(path.read_text(encoding="utf-8")) if path.is_file() else ast.Module(body=[], type_ignores=[])
            if test not in {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}:
                problems.append(f"{message.id}: {message.tested_by} is no test")
    assert problems == []


# Messages of failures no test here can bring about (a file that turns into a pipe as it is read, node missing from a
# machine that runs these tests, an esbuild that dies without saying where): their exact text, fields filled in.
RARE = [
    (
        "FILE_CHANGED_TO_NOT_REGULAR",
        {"kind": "a named pipe (FIFO)"},
        "a named pipe (FIFO), not a regular file; only regular files are read",
    ),
    ("FILE_UNREADABLE", {"reason": "Permission denied"}, "cannot be read (Permission denied)"),
    ("NODE_MISSING_FOR_CELLS", {}, "node is not installed; Python cells run in Pyodide under node"),
    ("CELL_RUNNER_FAILED", {"problem": "no such op"}, "the Python cell runner failed: no such op"),
    ("KATEX_STOPPED", {}, "the KaTeX process stopped unexpectedly"),
    ("ESBUILD_FAILED", {"output": "Killed"}, "esbuild failed: Killed"),
    ("EDITOR_NOT_BUNDLED", {"output": "esbuild failed"}, "the cell editor could not be bundled: esbuild failed"),
]


@pytest.mark.parametrize(("entry", "fields", "text"), RARE, ids=[entry for entry, _, _ in RARE])
def test_a_message_no_test_here_can_provoke_prints_exactly(entry, fields, text):
    from sitegen import messages
    from sitegen.diagnostics import Location, report

    message = getattr(messages, entry)
    assert message.tested_by == "tests/site/test_messages.py::test_a_message_no_test_here_can_provoke_prints_exactly"
    assert report(Location("content/01-rollout.md", 3), message, **fields).format() == f"content/01-rollout.md:3: {text}"


def test_the_rare_messages_are_those_that_name_that_test():
    from sitegen import messages

    named = {m.id for m in messages.MESSAGES if m.tested_by.endswith("::test_a_message_no_test_here_can_provoke_prints_exactly")}
    assert {getattr(messages, entry).id for entry, _, _ in RARE} == named


def test_a_template_is_what_str_format_reads():
    from sitegen.messages import MESSAGES

    # Every field is a plain name (format specs allowed): no `{0}`, `{a.b}` or `{a[0]}` a reader could not fill in.
    for message in MESSAGES:
        for _, name, _, conversion in string.Formatter().parse(message.template):
            assert name is None or (name.isidentifier() and conversion is None), message.id
