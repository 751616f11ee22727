"""Generated methods run from code kept in the tool's cache (sitegen/kept_code.py): the same code as exec compiles."""

from __future__ import annotations

import collections
import dataclasses
import marshal
from pathlib import Path
from types import CodeType

from sitegen.kept_code import GENERATING_MODULES, name_code_file, read_code, reuse_generated_code


def make_classes() -> tuple[type, type]:
    """Return a frozen dataclass with a default and a factory, and a namedtuple, made afresh."""

    @dataclasses.dataclass(frozen=True)
    class Chapter:
        number: int
        title: str = "Untitled"
        sections: tuple[str, ...] = dataclasses.field(default_factory=tuple)

    return Chapter, collections.namedtuple("Span", ["start", "end"])


def method_codes(chapter: type, span: type) -> list[CodeType]:
    """Return the code of every method the two classes were given as generated source."""
    names = ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__")
    codes = [getattr(chapter, name).__code__ for name in names]
    return [*codes, span.__new__.__code__]


def test_generated_methods_run_from_kept_code_are_the_methods_exec_compiles(tmp_path: Path):
    with reuse_generated_code(tmp_path):
        first = make_classes()
    kept = read_code(name_code_file(tmp_path))
    assert {mode for mode, _source in kept} == {"exec", "eval"}  # dataclass's methods, namedtuple's __new__
    assert all(marshal.loads(marshal.dumps(code)) == code for code in kept.values())
    with reuse_generated_code(tmp_path):
        again = make_classes()
    plain = make_classes()
    # Code equality: the same bytecode, constants, names and line table.
    assert method_codes(*again) == method_codes(*plain) == method_codes(*first)
    for chapter, span in (again, plain):
        one = chapter(3, "Rollouts", ("a", "b"))
        assert (repr(one), one == chapter(3, "Rollouts", ("a", "b")), hash(one) == hash(chapter(3, "Rollouts", ("a", "b")))) == (
            "make_classes.<locals>.Chapter(number=3, title='Rollouts', sections=('a', 'b'))",
            True,
            True,
        )
        assert chapter(4).sections == () and span(1, 2).end == 2
        try:
            one.title = "changed"  # type: ignore[misc]
        except dataclasses.FrozenInstanceError:
            pass
        else:
            raise AssertionError("a frozen dataclass took a new value")


def test_a_changed_class_is_compiled_afresh_never_given_the_kept_code_of_the_old_one(tmp_path: Path):
    with reuse_generated_code(tmp_path):

        @dataclasses.dataclass
        class Before:
            tokens: int

    with reuse_generated_code(tmp_path):

        @dataclasses.dataclass
        class After:  # the same class with a field renamed and one added: other source, so another key
            draws: int
            kept: bool = True

    assert vars(After(5)) == {"draws": 5, "kept": True} and vars(Before(5)) == {"tokens": 5}
    sources = [source for _mode, source in read_code(name_code_file(tmp_path))]
    assert any("self.tokens=tokens" in source for source in sources)
    assert any("self.draws=draws" in source and "self.kept=kept" in source for source in sources)


def test_the_block_leaves_the_modules_as_it_found_them_and_nested_blocks_do_nothing(tmp_path: Path):
    with reuse_generated_code(tmp_path):
        with reuse_generated_code(tmp_path / "inner"):
            make_classes()
        assert all("exec" in vars(module) for module in GENERATING_MODULES)
    assert not any("exec" in vars(module) or "eval" in vars(module) for module in GENERATING_MODULES)
    assert not (tmp_path / "inner").exists()
    assert read_code(name_code_file(tmp_path))


def test_a_damaged_or_foreign_file_is_ignored_and_made_again(tmp_path: Path):
    path = name_code_file(tmp_path)
    for damaged in (b"", b"not a hash\nnot marshal", b"0" * 64 + b"\n\x00"):
        path.write_bytes(damaged)
        assert read_code(path) == {}
        with reuse_generated_code(tmp_path):
            chapter, _span = make_classes()
        assert chapter(1).title == "Untitled"
        assert len(read_code(path)) == 7  # six methods of the dataclass, and the namedtuple's __new__


def test_a_cache_that_cannot_be_written_only_compiles_as_usual(tmp_path: Path):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder\n")
    with reuse_generated_code(blocked):
        chapter, span = make_classes()
    assert (chapter(2).number, span(0, 1).start) == (2, 0)
    assert not name_code_file(blocked).exists()
