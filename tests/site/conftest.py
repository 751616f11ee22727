"""Fixtures for the pipeline's tests: a built sample site, golden-file permission."""

from __future__ import annotations

from pathlib import Path

import pytest

from site_testing import PROJECT_ROOT, SAMPLE_CONTENT


@pytest.fixture(scope="session")
def built_sample(tmp_path_factory) -> Path:
    """Build the sample content once per session and return its dist folder."""
    from sitegen.pipeline import build_site
    from sitegen.read.load import load_project

    out_dir = tmp_path_factory.mktemp("sample-site") / "dist"
    build_site(load_project(PROJECT_ROOT, SAMPLE_CONTENT), out_dir)
    return out_dir


@pytest.fixture(scope="module")
def sample():
    """The checked sample project (its glossary, references and figures) and a KaTeX process."""
    from sitegen.check.formulas import KatexProcess
    from sitegen.pipeline import check_project
    from sitegen.read.load import load_project

    project = load_project(PROJECT_ROOT, SAMPLE_CONTENT)
    checked = check_project(project)
    assert not checked.diagnostics, [d.format() for d in checked.diagnostics]
    with KatexProcess(project.katex_script) as katex:
        yield checked, katex
