"""Every built page is valid HTML: the Nu HTML Checker (npm vnu-jar, run with Java) reports no error.

One run checks every page (the checker's start-up dominates). `make test`
installs a Java runtime with apt where `java` is missing.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VNU_JAR = ROOT / "node_modules/vnu-jar/build/dist/vnu.jar"


# Java starts and checks every page: seconds of CPU, out of `make test-fast`.
@pytest.mark.slow
def test_the_nu_html_checker_finds_no_error_on_any_built_page(built_site: Path):
    java = shutil.which("java")
    assert java, "java is missing: `make test` installs it (apt-get install -y default-jre-headless)"
    pages = sorted(str(path) for path in built_site.rglob("*.html"))
    assert len(pages) >= 10
    completed = subprocess.run(
        [java, "-jar", str(VNU_JAR), "--errors-only", "--format", "json", "--exit-zero-always", *pages],
        capture_output=True,
        text=True,
        check=True,
    )
    messages = json.loads(completed.stderr or completed.stdout)["messages"]
    problems = [f"{Path(m.get('url', '')).name}:{m.get('lastLine', 0)}: {m['message']}" for m in messages]
    assert problems == []
