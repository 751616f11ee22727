"""Golden files beside the tests: compared exactly, rewritten only on `--update-golden`."""

from dataclasses import dataclass
from pathlib import Path

import pytest

GOLDEN_DIRECTORY = Path(__file__).parent / "golden"


@dataclass(frozen=True)
class GoldenFiles:
    """Compare produced text with a stored file; write it only when explicitly asked to."""

    directory: Path
    update: bool

    def check(self, name: str, text: str) -> None:
        """Assert that `text` equals the golden file `name` byte for byte (or rewrite it on --update-golden)."""
        path = self.directory / name
        if self.update:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8", newline="\n")
            return
        if not path.exists():
            # A missing golden is never created silently: that would turn the
            # first run of a broken core into the reference.
            pytest.fail(f"golden file {path} is missing; run pytest with --update-golden, review it, commit it")
        expected = path.read_text(encoding="utf-8")
        if text != expected:
            pytest.fail(
                f"{path} differs from the output:\n{describe_first_difference(expected, text)}\n"
                "If the change is intended, run pytest with --update-golden and review the diff."
            )


def describe_first_difference(expected: str, actual: str) -> str:
    """Name the first differing line of two texts, for a readable failure."""
    expected_lines, actual_lines = expected.splitlines(), actual.splitlines()
    for number, (want, got) in enumerate(zip(expected_lines, actual_lines), start=1):
        if want != got:
            return f"line {number}:\n  golden: {want!r}\n  output: {got!r}"
    return f"golden has {len(expected_lines)} lines, output has {len(actual_lines)}"
