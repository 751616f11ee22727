"""Regular expressions compiled from programs kept in the tool's cache (sitegen/kept_patterns.py): the same patterns as re's."""

from __future__ import annotations

import re
import threading
from pathlib import Path

from sitegen.kept_patterns import make_program, name_programs_file, read_programs, reuse_compiled_patterns

# Groups, names, flags given inline and as arguments, bytes: what a program carries besides its code.
PATTERNS: list[tuple[str | bytes, int]] = [
    (r"(?P<year>\d{4})-(?P<month>\d\d)(?:-(\d\d))?", 0),
    (r"(?i)^ {0,3}(`{3,}|~{3,})\s*\{python\}", re.MULTILINE),
    (rb"\x00+(?=[^\x00])", 0),
    (r"(?<![\\$])\$(?![\s$])(?:[^$\\\n]|\\.)+?(?<!\s)\$(?!\d)", re.DOTALL),
]
TEXTS: list[str | bytes] = ["2026-12-03 and 2026-12", "  ~~~~{python}\n```{Python}", b"\x00\x00a", r"a $x+1$ b $$ $5"]


def compile_fresh(pattern: str | bytes, flags: int) -> re.Pattern[str] | re.Pattern[bytes]:
    """Compile through re._compiler, not re's own memory of patterns already compiled in this process."""
    re.purge()
    return re.compile(pattern, flags)


def test_a_pattern_compiled_from_its_kept_program_is_the_pattern_re_compiles(tmp_path: Path):
    with reuse_compiled_patterns(tmp_path):
        first = [compile_fresh(pattern, flags) for pattern, flags in PATTERNS]
    kept = read_programs(name_programs_file(tmp_path))
    assert set(kept) == set(PATTERNS)
    with reuse_compiled_patterns(tmp_path):
        again = [compile_fresh(pattern, flags) for pattern, flags in PATTERNS]
    plain = [compile_fresh(pattern, flags) for pattern, flags in PATTERNS]
    assert again == plain == first  # Pattern equality: the same pattern text, flags and program
    for compiled, reference, text in zip(again, plain, TEXTS, strict=True):
        assert (compiled.groupindex, compiled.groups, compiled.flags) == (reference.groupindex, reference.groups, reference.flags)
        assert [m.groups() for m in compiled.finditer(text)] == [m.groups() for m in reference.finditer(text)]  # type: ignore[arg-type]


def test_only_the_patterns_the_blocks_own_thread_compiles_are_kept(tmp_path: Path):
    other = threading.Thread(target=compile_fresh, args=("another thread's [a-z]+", 0))
    with reuse_compiled_patterns(tmp_path):
        compile_fresh("the block's [a-z]+", 0)
        other.start()
        other.join()
    compile_fresh("after the block [a-z]+", 0)
    assert set(read_programs(name_programs_file(tmp_path))) == {("the block's [a-z]+", 0)}


def test_a_damaged_or_foreign_file_is_ignored_and_made_again(tmp_path: Path):
    path = name_programs_file(tmp_path)
    for damaged in (b"", b"not a hash\nnot marshal", b"0" * 64 + b"\n\x00"):
        path.write_bytes(damaged)
        assert read_programs(path) == {}
        with reuse_compiled_patterns(tmp_path):
            assert compile_fresh(r"\b(\w+)\s+\1\b", 0).findall("the the cat") == ["the"]
        assert read_programs(path) == {(r"\b(\w+)\s+\1\b", 0): make_program(r"\b(\w+)\s+\1\b", 0)}


def test_a_cache_that_cannot_be_written_only_compiles_as_usual(tmp_path: Path):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder\n")
    with reuse_compiled_patterns(blocked):
        assert compile_fresh("[0-9]+ cells", 0).match("12 cells")
    assert not name_programs_file(blocked).exists()
