"""Every file the code reads beside itself under pysrc/ is declared as package data, so an installed copy has it."""

from __future__ import annotations

import tomllib

from site_testing import PROJECT_ROOT


def test_every_non_python_file_under_pysrc_is_package_data():
    declared = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    pysrc = PROJECT_ROOT / "pysrc"
    found = {
        (path.parent.relative_to(pysrc).as_posix().replace("/", "."), path.name)
        for path in pysrc.rglob("*")
        if path.is_file() and path.suffix not in {".py", ".pyc"} and "egg-info" not in path.as_posix()
    }
    assert sorted(found - {(package, name) for package, names in declared.items() for name in names}) == []
