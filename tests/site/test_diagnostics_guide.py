"""docs/diagnostics.md is generated from the message catalogue and the bad-input cases, and must not go stale.

It is rewritten only with `pytest --update-golden`, like every golden file:
then review the diff and commit it with the change that caused it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from diagnostics_guide import BAD_INPUTS, GUIDE, read_case, read_cases, sort_lines, write_guide


def test_the_guide_is_what_the_bad_inputs_say(update_golden):
    guide = write_guide(read_cases())
    if update_golden:
        GUIDE.write_text(guide, encoding="utf-8", newline="\n")
    stored = GUIDE.read_text(encoding="utf-8") if GUIDE.is_file() else ""
    assert stored == guide, (
        f"{GUIDE} is stale: a message, a bad input's messages or about.md changed. "
        "Run pytest tests/site/test_diagnostics_guide.py --update-golden, review the diff, commit it."
    )


def test_every_message_a_case_expects_is_in_the_guide_verbatim():
    # Independent of write_guide's layout: read the committed guide and each case's expected.txt.
    guide = GUIDE.read_text(encoding="utf-8")
    for case in sorted(p for p in BAD_INPUTS.iterdir() if p.is_dir()):
        for line in (case / "expected.txt").read_text(encoding="utf-8").splitlines():
            assert f"\n{line}\n" in guide, f"{case.name}: {line!r} is not in {GUIDE.name}"


def test_a_case_whose_about_md_does_not_account_for_its_lines_is_refused(tmp_path: Path):
    case = tmp_path / "some_case"
    case.mkdir()
    (case / "expected.txt").write_text("content/01-rollout.md:12: a NUL byte at column 18; remove it\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"about\.md: missing"):
        read_case(case)
    (case / "about.md").write_text("title: A problem\nids: file-nul\n\nFix it.\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"unknown id 'file-nul'; the ids are those of pysrc/sitegen/messages\.py"):
        read_case(case)
    (case / "about.md").write_text("title: A problem\nids: file-nul-byte\n", encoding="utf-8")
    with pytest.raises(ValueError, match="then what to do"):
        read_case(case)
    (case / "about.md").write_text("title: A problem\nids: link-refused\n\nFix it.\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"some_case: 'content/01-rollout.md:12: a NUL byte .*' matches 0 of the ids"):
        sort_lines(read_case(case))
    (case / "about.md").write_text("title: A problem\nids: file-nul-byte link-refused\n\nFix it.\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"about\.md names 'link-refused', which prints no line of expected\.txt"):
        sort_lines(read_case(case))
    (case / "about.md").write_text("title: A problem\nids: file-nul-byte\n\nFix it.\n", encoding="utf-8")
    assert sort_lines(read_case(case)) == {"file-nul-byte": ["content/01-rollout.md:12: a NUL byte at column 18; remove it"]}
