"""constraints.txt: the exact versions `make site` and `make test` install, agreeing with pyproject.toml's ranges."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from site_testing import PROJECT_ROOT

CONSTRAINTS = PROJECT_ROOT / "constraints.txt"


def read_pins() -> dict[str, str]:
    """Return {canonical name: version} from constraints.txt, after checking every line is `name==version` or a comment."""
    pins: dict[str, str] = {}
    for line in CONSTRAINTS.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        match = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([0-9][A-Za-z0-9.+!-]*)", line)
        assert match, line
        name = canonicalize_name(match.group(1))
        assert name not in pins, f"{name} pinned twice"
        pins[name] = match.group(2)
    return pins


def read_requirements() -> list[Requirement]:
    project = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [Requirement(text) for text in [*project["dependencies"], *project["optional-dependencies"]["test"]]]


def test_every_requirement_is_pinned_within_its_range():
    pins = read_pins()
    for requirement in read_requirements():
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{name} is not in constraints.txt"
        assert requirement.specifier.contains(pins[name], prereleases=True), f"{name}=={pins[name]} is not {requirement}"


def test_what_the_pinned_packages_need_is_pinned_too_and_installed_at_that_version():
    pins = read_pins()
    needed = {canonicalize_name(requirement.name) for requirement in read_requirements()}
    seen: set[str] = set()
    while needed - seen:
        name = (needed - seen).pop()
        seen.add(name)
        assert name in pins, f"{name} is installed for the project but not pinned"
        assert metadata.version(name) == pins[name], f"{name} {metadata.version(name)} is installed, {pins[name]} pinned"
        for text in metadata.requires(name) or []:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                needed.add(canonicalize_name(requirement.name))
    assert metadata.version("pip") == pins["pip"]


def test_the_makefile_installs_every_python_package_from_the_constraints():
    makefile = (PROJECT_ROOT / "Makefile").read_text(encoding="utf-8")
    installs = [line.strip() for line in makefile.splitlines() if "pip install" in line and "download" not in line]
    assert len(installs) == 3
    assert all(line.endswith("-c constraints.txt") for line in installs), installs
