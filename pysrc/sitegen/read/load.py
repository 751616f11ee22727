"""Read everything a build needs from disk, once: the first stage and one of only two that do I/O."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import TypedDict

from sitegen.diagnostics import BuildFailed, Diagnostic, Location, report
from sitegen.files.limited_read import FileTooLarge, NotARegularFile, read_limited
from sitegen.files.paths import (
    CLIENT_ASSET_FOLDER,
    CLIENT_FOLDER,
    COMPUTED_VALUES_CACHE,
    CORE_CACHE,
    CORE_FOLDER,
    ESBUILD,
    ESBUILD_PACKAGE,
    KATEX_DIST,
    MATH_CACHE,
    MINISEARCH_SCRIPT,
    PYODIDE_PACKAGE,
    RUNTIME_CACHE,
    SCRIPT_CACHE,
    STATIC_FOLDER,
    STDLIB_CACHE,
    TEMPLATE_CACHE,
    TEMPLATES_FOLDER,
    find_project_root,
)
from sitegen.kinds.pages import list_single_pages
from sitegen.kinds.pages.chapter import CHAPTER_FILE
from sitegen.messages import (
    CONTENT_FOLDER_NOT_FOUND,
    FILE_SUFFIX_CASE,
    FRONT_END_FILE_MISSING,
    PROJECT_FILE_NOT_REGULAR,
    PROJECT_FILE_TOO_LARGE,
)
from sitegen.model import Project, Source, StaticFile
from sitegen.read.base_url_override import override_base_url
from sitegen.read.history import CommitDates, read_last_updated
from sitegen.read.site_config import read_site_config
from sitegen.read.source_files import UnreadableSource, read_source_text

PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")


def load_project(
    root: Path | None = None, content_dir: str | Path | None = None, commit_dates: CommitDates | None = None
) -> Project:
    """Read the content folder (default root/content), the templates, the core and the front-end packages.

    `content_dir` is printed in diagnostics exactly as given, so an author who
    typed `--content drafts` sees `drafts/03-scoring.md:14: ...`. `commit_dates`:
    git already asked about that folder (the build starts it early); else git is asked here, while the rest is read.
    """
    root = (root or find_project_root()).resolve()
    if content_dir is None:
        content_path, content_label = root / "content", "content"
    else:
        content_label = str(content_dir).rstrip("/") or "."
        content_path = Path(content_dir).resolve()
    if not content_path.is_dir():
        raise BuildFailed([report(Location(content_label, 0), CONTENT_FOLDER_NOT_FOUND)])

    if commit_dates is None:
        with CommitDates(content_path) as own_dates:
            return load_project(root, content_dir, own_dates)
    content = load_content(content_path, content_label)
    site_config = read_site_config(root)
    katex_dist = root / KATEX_DIST
    pyodide_dir = root / PYODIDE_PACKAGE
    esbuild_package = root / ESBUILD_PACKAGE / "package.json"
    require_files(
        [katex_dist / "katex.min.css", katex_dist / "katex.js", root / ESBUILD, esbuild_package, root / MINISEARCH_SCRIPT]
        + [pyodide_dir / n for n in PYODIDE_FILES],
        root,
    )

    templates_dir = root / TEMPLATES_FOLDER
    static_dir = templates_dir / STATIC_FOLDER

    def read(path: Path) -> bytes:
        return read_project_file(path, root)

    templates = tuple(
        (path.relative_to(templates_dir).as_posix(), read(path).decode("utf-8"))
        for path in sorted(templates_dir.rglob("*.html"))
        if static_dir not in path.parents
    )
    static_files = tuple(
        sorted(
            [
                StaticFile(path.relative_to(static_dir).as_posix(), read(path))
                for path in static_dir.rglob("*")
                if path.is_file() and not path.name.startswith(".")
            ]
            + [StaticFile(f"{CLIENT_ASSET_FOLDER}/{path.name}", read(path)) for path in (root / CLIENT_FOLDER).glob("*.js")],
            key=lambda static_file: static_file.name,
        )
    )
    # MiniSearch's ES module build (its default export), imported by reader.js on the search box's first use.
    static_files += (StaticFile("js/minisearch.js", read(root / MINISEARCH_SCRIPT)),)
    core_dir = root / CORE_FOLDER
    core_modules = tuple(
        (f"rollout_lab/{path.relative_to(core_dir).as_posix()}", read(path).decode("utf-8"))
        for path in sorted(core_dir.rglob("*.py"))
    )
    return Project(
        root=root,
        content_dir=content_path,
        content_label=content_label,
        **content,
        core_modules=core_modules,
        templates=templates,
        static_files=static_files,
        katex_stylesheet=read(katex_dist / "katex.min.css").decode("utf-8"),
        katex_fonts=tuple(StaticFile(p.name, read(p)) for p in sorted((katex_dist / "fonts").glob("*.woff2"))),
        katex_script=katex_dist / "katex.js",
        pyodide_files=tuple(pyodide_dir / name for name in PYODIDE_FILES),
        esbuild=root / ESBUILD,
        esbuild_version=json.loads(read(esbuild_package))["version"],
        template_cache=root / TEMPLATE_CACHE,
        math_cache=root / MATH_CACHE,
        script_cache=root / SCRIPT_CACHE,
        stdlib_cache=root / STDLIB_CACHE,
        runtime_cache=root / RUNTIME_CACHE,
        core_cache=root / CORE_CACHE,
        values_cache=root / COMPUTED_VALUES_CACHE,
        base_url=override_base_url(site_config.base_url),
        site_config=site_config,
        last_updated=read_last_updated(content_path, commit_dates),
    )


REFERENCES_FILE = "references.yaml"


class ContentFields(TypedDict):
    """The Project fields read from the content folder."""

    chapters: tuple[Source, ...]
    stray_markdown: tuple[Source, ...]
    page_sources: tuple[tuple[str, Source], ...]
    references: Source | None
    figures: tuple[Source, ...]
    file_problems: tuple[Diagnostic, ...]


def load_content(content_path: Path, content_label: str) -> ContentFields:
    """Read the content folder's sources: the Project fields chapters, stray_markdown, page_sources (one file per
    page kind, kinds/pages/), references, figures, and file_problems (files that cannot be read as text, each a diagnostic that stops no other check)."""
    file_problems: list[Diagnostic] = []

    def read_source(path: Path) -> Source | None:
        name = path.relative_to(content_path).as_posix()
        try:
            return Source(path=f"{content_label}/{name}", name=name, text=read_source_text(path, f"{content_label}/{name}"))
        except UnreadableSource as unreadable:
            file_problems.append(unreadable.diagnostic)
            return None if unreadable.text is None else Source(path=f"{content_label}/{name}", name=name, text=unreadable.text)

    def read_all(paths: list[Path]) -> tuple[Source, ...]:
        return tuple(source for source in map(read_source, paths) if source is not None)

    markdown_files = list_files(content_path, ".md", content_label, file_problems)
    figures_path = content_path / "figures"
    figure_files = list_files(figures_path, ".svg", f"{content_label}/figures", file_problems) if figures_path.is_dir() else []
    page_names = {kind.source_name: kind.name for kind in list_single_pages()}
    optional = {
        name: read_source(content_path / name) if os.path.lexists(content_path / name) else None
        for name in (*page_names, REFERENCES_FILE)
    }
    return {
        "chapters": read_all([p for p in markdown_files if CHAPTER_FILE.match(p.name)]),
        "stray_markdown": read_all([p for p in markdown_files if not CHAPTER_FILE.match(p.name) and p.name not in page_names]),
        "page_sources": tuple((kind, source) for name, kind in page_names.items() if (source := optional[name]) is not None),
        "references": optional[REFERENCES_FILE],
        "figures": read_all(figure_files),
        "file_problems": tuple(file_problems),
    }


def list_files(folder: Path, suffix: str, shown_as: str, problems: list[Diagnostic]) -> list[Path]:
    """Return the folder's entries named *SUFFIX (whatever they are: read_source says if one is not a file), sorted.

    A name whose suffix differs only in case (`03-scoring.MD`) would be skipped
    without a word on a case-sensitive file system: it is a diagnostic instead.
    """
    found = []
    for path in sorted(folder.iterdir()):
        if path.name.endswith(suffix):
            found.append(path)
        elif path.name.lower().endswith(suffix):
            problems.append(report(Location(f"{shown_as}/{path.name}", 0), FILE_SUFFIX_CASE, suffix=suffix))
    return found


def reload_content(project: Project) -> Project:
    """Return the project with its content folder read again (the dev server's cheap reload after a content edit)."""
    if not project.content_dir.is_dir():
        raise BuildFailed([report(Location(project.content_label, 0), CONTENT_FOLDER_NOT_FOUND)])
    return replace(project, **load_content(project.content_dir, project.content_label))


# A template, a static file, a module of the core, KaTeX's stylesheet or a font: the largest is under 100 KB.
PROJECT_FILE_LIMIT = 8 * 2**20


def read_project_file(path: Path, root: Path) -> bytes:
    """Return the bytes of a file of the project's own; a FIFO, a device or a file over 8 MiB fails the build, unread."""
    shown = Location((path.relative_to(root) if path.is_relative_to(root) else path).as_posix(), 0)
    try:
        return read_limited(path, PROJECT_FILE_LIMIT)
    except FileTooLarge as error:
        raise BuildFailed([report(shown, PROJECT_FILE_TOO_LARGE, size=error.size)]) from None
    except NotARegularFile as error:
        raise BuildFailed([report(shown, PROJECT_FILE_NOT_REGULAR, kind=error.kind)]) from None


def require_files(paths: list[Path], root: Path) -> None:
    """Fail with one line per missing front-end file (they come from `npm ci`)."""
    missing = [p for p in paths if not p.is_file()]
    if missing:
        raise BuildFailed(report(Location(str(p.relative_to(root)), 0), FRONT_END_FILE_MISSING) for p in missing)
