"""Fixtures for the pipeline's tests: a built sample site, golden-file permission."""

from __future__ import annotations

from pathlib import Path

import pytest

from site_testing import PROJECT_ROOT, SAMPLE_CONTENT


@pytest.fixture(scope="session")
def built_sample(tmp_path_factory) -> Path:
    """Build the sample content once per session and return its dist folder."""
    from sitegen.load import load_project
    from sitegen.pipeline import build_site

    out_dir = tmp_path_factory.mktemp("sample-site") / "dist"
    build_site(load_project(PROJECT_ROOT, SAMPLE_CONTENT), out_dir)
    return out_dir
