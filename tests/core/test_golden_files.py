"""The golden-file helper never rewrites a golden file unless asked to."""

import pytest

from golden_files import GoldenFiles


def test_mismatch_fails_and_leaves_the_file_alone(tmp_path):
    (tmp_path / "a.txt").write_text("old\n", encoding="utf-8")
    with pytest.raises(pytest.fail.Exception, match="line 1:\n  golden: 'old'\n  output: 'new'"):
        GoldenFiles(tmp_path, update=False).check("a.txt", "new\n")
    assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "old\n"


def test_missing_file_fails_and_is_not_created(tmp_path):
    with pytest.raises(pytest.fail.Exception, match="is missing; run pytest with --update-golden"):
        GoldenFiles(tmp_path, update=False).check("b.txt", "new\n")
    assert not (tmp_path / "b.txt").exists()


def test_update_rewrites(tmp_path):
    (tmp_path / "a.txt").write_text("old\n", encoding="utf-8")
    GoldenFiles(tmp_path, update=True).check("a.txt", "new\n")
    assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "new\n"
