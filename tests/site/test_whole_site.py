"""Whole-site checks on the built sample: links resolve, one h1 per page, figures in order, determinism."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import zipfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from rollout_lab import run_lab
from site_testing import PROJECT_ROOT, SAMPLE_CONTENT, snapshot_folder
from sitegen.assets.site_root import EARLY_SNAPSHOT_SCRIPT, FIND_ROOT_SCRIPT, allow_inline_script
from sitegen.pipeline import build_site
from sitegen.publish.output_folder import OutputFolderRefused, adopt_folder
from sitegen.read.load import load_project
from sitegen.render.pages import CONTENT_SECURITY_POLICY

PAGES = [
    "01-rollout.html",
    "02-possibilities.html",
    "03-scoring.html",
    "404.html",
    "glossary.html",
    "index.html",
    "offline.html",
    "references.html",
]


class PageScan(HTMLParser):
    """Collect what the tests look at in one HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: list[str] = []
        self.urls: list[tuple[str, str]] = []
        self.h1_count = 0
        self.text: list[str] = []
        self.style_attributes = 0
        self.event_handlers = 0
        self.scripts: list[dict[str, str | None]] = []
        self.meta: list[dict[str, str | None]] = []
        self.html_lang: str | None = None
        self.inline_scripts: list[str] = []  # the text of each script without src or type, in order
        self._in_inline_script = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "html":
            self.html_lang = attributes.get("lang")
        if "id" in attributes:
            self.ids.append(attributes["id"] or "")
        for name in ("href", "src"):
            if attributes.get(name) is not None:
                self.urls.append((tag, attributes[name] or ""))
        if tag == "h1":
            self.h1_count += 1
        if "style" in attributes:
            self.style_attributes += 1
        self.event_handlers += sum(1 for name in attributes if name.startswith("on"))
        if tag == "script":
            self.scripts.append(attributes)
            self._in_inline_script = "src" not in attributes and "type" not in attributes
            if self._in_inline_script:
                self.inline_scripts.append("")
        if tag == "meta":
            self.meta.append(attributes)

    def handle_data(self, data):
        if self._in_inline_script:
            self.inline_scripts[-1] += data
        self.text.append(data)

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_inline_script = False


def scan(path: Path) -> PageScan:
    parser = PageScan()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def test_the_site_has_exactly_the_expected_pages(built_sample):
    assert sorted(p.name for p in built_sample.glob("*.html")) == PAGES


def test_every_internal_href_and_src_resolves_to_a_file_and_anchor(built_sample):
    scans = {page: scan(built_sample / page) for page in PAGES}
    broken = []
    for page, result in scans.items():
        for tag, url in result.urls:
            parts = urlsplit(url)
            if parts.scheme or url.startswith(("//", "data:")):
                continue
            target = parts.path or page
            if not (built_sample / target).is_file():
                broken.append(f"{page}: <{tag}> {url} (no file)")
            elif parts.fragment and target.endswith(".html") and parts.fragment not in scans[target].ids:
                broken.append(f"{page}: <{tag}> {url} (no anchor)")
    assert broken == []


def test_each_page_has_exactly_one_h1_a_language_and_unique_ids(built_sample):
    for page in PAGES:
        result = scan(built_sample / page)
        assert result.h1_count == 1, page
        assert result.html_lang == "en", page
        assert len(result.ids) == len(set(result.ids)), page


def expected_inline_scripts(page: str, head_script: str, text: str) -> list[str]:
    """Every page opens with theme.js's bundle; a page whose labs read the address then asks for the snapshot early
    (client/inline/request-snapshot-early.js); the 404 page, without a base_url, finds the site's root (site_root.py)."""
    early = [EARLY_SNAPSHOT_SCRIPT] if "data-lab-address" in text else []
    return [head_script, *early, *([FIND_ROOT_SCRIPT] if page == "404.html" else [])]


def test_pages_carry_the_contract_csp_and_nothing_inline_but_the_head_scripts(built_sample):
    head_script = scan(built_sample / "index.html").inline_scripts[0]
    early_pages = []
    for page in PAGES:
        result = scan(built_sample / page)
        text = (built_sample / page).read_text(encoding="utf-8")
        csp = [m.get("content") for m in result.meta if m.get("http-equiv") == "Content-Security-Policy"]
        expected = expected_inline_scripts(page, head_script, text)
        policy = CONTENT_SECURITY_POLICY
        for script in expected:  # each allowed by its hash, as the page adds them
            policy = allow_inline_script(policy, script)
        assert csp == [policy], page
        assert result.inline_scripts == expected, page
        assert result.scripts[0] == {}, page  # the head script comes first, before any stylesheet or other script
        assert result.style_attributes == 0, page
        assert result.event_handlers == 0, page
        for script in result.scripts[1:]:
            assert (
                script.get("src")
                or script.get("type") == "application/json"
                or (page, script.get("data-marker"))
                == (
                    "404.html",
                    "rollouts-root.txt",
                )
                or script.get("data-snapshot")
            ), page
        if EARLY_SNAPSHOT_SCRIPT in expected:
            early_pages.append(page)
            # Second, before any stylesheet (a script after one waits for it), naming the labs' own parameters.
            assert result.scripts[1]["data-snapshot"].startswith("lab/python-snapshot."), page
            parameters = sorted(set(re.findall(r'data-url-parameter="([^"]+)"', text)))
            assert result.scripts[1]["data-parameters"] == " ".join(parameters), page
            assert text.index("data-snapshot=") < text.index('rel="stylesheet"'), page
        assert "<style" not in text
    assert early_pages  # the sample has a lab in the address
    assert "rollouts-theme" in head_script  # the reader's chosen colour scheme, read before the first paint
    assert not list((built_sample / "assets").glob("theme.*.js"))  # written into the pages, not shipped as a file


def test_the_publishing_guide_says_which_inline_scripts_the_pages_carry(built_sample):
    # The test above holds the pages to it; the guide once said that every page but the 404 page had none.
    counts = {page: len(scan(built_sample / page).inline_scripts) for page in PAGES}
    early = {page for page in PAGES if "data-lab-address" in (built_sample / page).read_text(encoding="utf-8")}
    assert counts == {page: 2 if page == "404.html" or page in early else 1 for page in PAGES}
    guide = " ".join((PROJECT_ROOT / "docs" / "publishing.md").read_text(encoding="utf-8").split())
    assert (
        "Every page carries one inline script, theme.js's bundle (it sets the colour scheme before the first paint), "
        "allowed by its hash in every page's Content-Security-Policy. A page whose labs read their settings from the "
        "address carries a second one, which asks for Python's snapshot at once when the address holds such settings "
        "(`client/inline/request-snapshot-early.js`, allowed by its hash in that page's policy only); the 404 page "
        "carries another, below."
    ) in guide
    assert "every other page has no inline script" not in guide


def test_figures_are_numbered_in_reading_order(built_sample):
    numbers = []
    for page in ["01-rollout.html", "02-possibilities.html", "03-scoring.html"]:
        numbers += re.findall(
            r'<span class="figure-number">Figure (\d{3}):</span>', (built_sample / page).read_text(encoding="utf-8")
        )
    assert numbers == ["001", "002"]


def test_figure_references_name_the_figure_number(built_sample):
    chapter_2 = (built_sample / "02-possibilities.html").read_text(encoding="utf-8")
    assert '<a class="figure-ref" href="01-rollout.html#figure-context-growth">Figure 001</a>' in chapter_2


def test_glossary_lists_the_chapters_that_use_each_term_linking_their_first_use(built_sample):
    glossary = (built_sample / "glossary.html").read_text(encoding="utf-8")
    used_in = {}
    for key, block in re.findall(r'<dt id="([^"]+)">(.*?)</dd>', glossary, re.DOTALL):
        used_in[key] = (
            re.findall(r'<a href="(\d\d-[a-z-]+\.html#use-[a-z-]+)">', block.split('class="used-in"')[-1])
            if 'class="used-in"' in block
            else []
        )
    assert used_in == {
        "centred-signal": ["03-scoring.html#use-centred-signal"],
        "prompt": ["01-rollout.html#use-prompt"],
        "reward": ["03-scoring.html#use-reward"],
        "rollout": ["01-rollout.html#use-rollout"],
        "softmax": ["02-possibilities.html#use-softmax"],
        "stochastic-policy": ["02-possibilities.html#use-stochastic-policy"],
        "temperature": ["02-possibilities.html#use-temperature"],
        "verifier": ["03-scoring.html#use-verifier"],
    }


def test_chapter_pages_show_number_breadcrumb_lede_and_pager(built_sample):
    page = (built_sample / "02-possibilities.html").read_text(encoding="utf-8")
    assert (
        '<p class="chapter-count"><span class="chapter-number" aria-hidden="true">02</span> '
        '<span class="chapter-count-label">Chapter 2 of 3</span></p>'
    ) in page
    assert '<li><a href="index.html">Contents</a></li>' in page
    assert "<h1>Possibilities are not counts</h1>" in page
    assert 'rel="prev" href="01-rollout.html"' in page
    assert 'rel="next" href="03-scoring.html"' in page


def test_contents_page_lists_chapters_with_ledes_and_links_the_glossary(built_sample):
    page = (built_sample / "index.html").read_text(encoding="utf-8")
    assert "<h1>Rollouts</h1>" in page
    titles = re.findall(r'<span class="toc-title">([^<]+)</span>', page)
    assert titles == ["What was the rollout?", "Possibilities are not counts", "Start with a scoring rule"]
    assert "One sampled trajectory, from the prompt to the last generated token." in page
    assert '<a href="glossary.html">glossary</a>' in page


def test_references_page_has_full_entries(built_sample):
    page = (built_sample / "references.html").read_text(encoding="utf-8")
    assert '<li class="reference" id="deepseekmath">' in page
    assert "arXiv:2402.03300." in page
    assert '<span class="reference-authors">Long Ouyang et al.</span> (2022).' in page
    assert '<a class="reference-link" href="https://arxiv.org/abs/2402.03300">' in page


def test_recorded_run_is_exactly_the_default_record(built_sample):
    text = (built_sample / "lab" / "recorded-run.json").read_text(encoding="utf-8")
    assert text == json.dumps(run_lab(), indent=2) + "\n"


def test_core_archive_holds_the_core_modules_with_fixed_timestamps(built_sample):
    (archive_path,) = (built_sample / "lab").glob("rollout_lab.*.zip")
    data = archive_path.read_bytes()
    assert archive_path.name == f"rollout_lab.{hashlib.sha256(data).hexdigest()[:8]}.zip"
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = archive.namelist()
        core = PROJECT_ROOT / "pysrc" / "rollout_lab"
        expected = sorted(f"rollout_lab/{p.relative_to(core).as_posix()}" for p in core.rglob("*.py"))
        assert names == expected
        assert {info.date_time for info in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        assert archive.read("rollout_lab/widgets/sampler.py") == (core / "widgets/sampler.py").read_bytes()


def test_pyodide_runtime_is_four_files_the_stdlibs_parts_the_lock_file_the_compressed_wasm_and_zstds_in_a_folder_named_by_version_and_hash(
    built_sample,
):
    (folder,) = (built_sample / "pyodide").iterdir()
    digest = hashlib.sha256()
    for path in sorted(folder.iterdir()):
        digest.update(f"{path.name}\0{hashlib.sha256(path.read_bytes()).hexdigest()}\0".encode())
    assert folder.name == f"314.0.7-{digest.hexdigest()[:8]}"
    names = sorted(p.name for p in folder.iterdir())
    # Derived from the runtime: the lock file without packages (lab_stdlib.py), and the standard library's
    # directory and parts in place of python_stdlib.zip (stdlib_parts.py).
    lock = [name for name in names if re.fullmatch(r"pyodide-lock\.[0-9a-f]{8}\.json", name)]
    (directory,) = [name for name in names if re.fullmatch(r"python_stdlib\.[0-9a-f]{8}\.json", name)]
    parts = [name for name in names if re.fullmatch(r"python_stdlib-\d\d-[\w.]+\.[0-9a-f]{8}\.zip", name)]
    assert len(lock) == 1
    listed = json.loads((folder / directory).read_text(encoding="utf-8"))["parts"]
    assert sorted(part["name"] for part in listed) == parts
    # And the gzip copy of the WebAssembly the pages compile (compressed_wasm.py), its one compressed form.
    (compressed,) = [name for name in names if re.fullmatch(r"pyodide\.asm\.wasm\.gz\.[0-9a-f]{8}\.bin", name)]
    plain = (folder / "pyodide.asm.wasm").read_bytes()
    assert gzip.decompress((folder / compressed).read_bytes()) == plain
    # And the gzip copy of the snapshot's zstd decoder, npm @bokuweb/zstd-wasm's WebAssembly (runtime.py).
    decoder = PROJECT_ROOT / "node_modules/@bokuweb/zstd-wasm/dist/web/zstd.wasm"
    assert gzip.decompress((folder / "zstd-decoder.wasm.gz.bin").read_bytes()) == decoder.read_bytes()
    assert [name for name in names if name not in [*lock, directory, *parts, compressed, "zstd-decoder.wasm.gz.bin"]] == [
        "pyodide-lock.json",
        "pyodide.asm.mjs",
        "pyodide.asm.wasm",
        "pyodide.mjs",
    ]


def test_asset_names_carry_their_content_hash(built_sample):
    for path in (built_sample / "assets").iterdir():
        _stem, digest, _extension = path.name.rsplit(".", 2)
        assert digest == hashlib.sha256(path.read_bytes()).hexdigest()[:8], path.name


def test_katex_stylesheet_points_only_at_shipped_woff2_fonts(built_sample):
    (stylesheet,) = (built_sample / "assets").glob("katex.*.css")
    urls = re.findall(r"url\(([^)]+)\)", stylesheet.read_text(encoding="utf-8"))
    assert urls and all(url.endswith(".woff2") and (built_sample / "assets" / url).is_file() for url in urls)


def test_pages_with_math_fetch_its_two_common_fonts_ahead_and_others_none(built_sample):
    preloads = {
        page.name: re.findall(
            r'<link rel="preload" href="([^"]+)" as="font" type="font/woff2" crossorigin>', page.read_text(encoding="utf-8")
        )
        for page in built_sample.glob("*.html")
    }
    with_math = {name for name in preloads if 'class="katex' in (built_sample / name).read_text(encoding="utf-8")}
    assert with_math and with_math != set(preloads)
    for name, fonts in preloads.items():
        expected = ["KaTeX_Main-Regular", "KaTeX_Math-Italic"] if name in with_math else []
        assert [font.split("/")[-1].split(".")[0] for font in fonts] == expected, name
        assert all((built_sample / font).is_file() for font in fonts), name


def test_math_styles_are_classes_defined_in_the_math_stylesheet(built_sample):
    (stylesheet,) = (built_sample / "assets").glob("math.*.css")
    defined = set(re.findall(r"\.(ks-[0-9a-f]{8})\{", stylesheet.read_text(encoding="utf-8")))
    used = set()
    for page in PAGES:
        used |= set(re.findall(r"\b(ks-[0-9a-f]{8})\b", (built_sample / page).read_text(encoding="utf-8")))
    assert used and used == defined


def test_two_builds_are_byte_identical(built_sample, tmp_path):
    again = tmp_path / "dist"
    build_site(load_project(PROJECT_ROOT, SAMPLE_CONTENT), again)
    assert snapshot_folder(again) == snapshot_folder(built_sample)


def test_a_rebuild_replaces_the_previous_site_and_leaves_no_temporary_folders(tmp_path):
    out_dir = tmp_path / "dist"
    out_dir.mkdir()
    (out_dir / "stale.html").write_text("old", encoding="utf-8")
    adopt_folder(out_dir)  # marked as an earlier build that wrote stale.html marks it
    build_site(load_project(PROJECT_ROOT, SAMPLE_CONTENT), out_dir)
    assert not (out_dir / "stale.html").exists()
    assert (out_dir / "index.html").is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["dist"]


def test_a_folder_that_is_not_a_build_is_never_replaced(tmp_path):
    out_dir = tmp_path / "photos"
    out_dir.mkdir()
    (out_dir / "cat.jpg").write_bytes(b"a cat")
    with pytest.raises(OutputFolderRefused, match="not an earlier build"):
        build_site(load_project(PROJECT_ROOT, SAMPLE_CONTENT), out_dir)
    assert [p.name for p in out_dir.iterdir()] == ["cat.jpg"]
    assert [p.name for p in tmp_path.iterdir()] == ["photos"]


def test_a_marked_folder_with_a_file_its_marker_does_not_list_is_never_replaced(tmp_path):
    out_dir = tmp_path / "www"
    out_dir.mkdir()
    (out_dir / "index.html").write_text("an earlier build's", encoding="utf-8")
    adopt_folder(out_dir)
    (out_dir / "cat.jpg").write_bytes(b"a cat")
    with pytest.raises(OutputFolderRefused) as refusal:
        build_site(load_project(PROJECT_ROOT, SAMPLE_CONTENT), out_dir)
    assert str(refusal.value) == (
        f"will not build into '{out_dir}': it holds files no earlier build wrote there: 'cat.jpg'; "
        "move them or choose another folder"
    )
    assert sorted(p.name for p in out_dir.iterdir()) == [".rollouts-build", "cat.jpg", "index.html"]


def test_windows_line_endings_and_a_byte_order_mark_change_nothing(built_sample, tmp_path):
    from site_testing import copy_sample

    # Both copies outside git, so neither page has a "last updated" date from history.
    plain = copy_sample(tmp_path / "plain")
    build_site(load_project(PROJECT_ROOT, plain), tmp_path / "plain-dist")
    content = copy_sample(tmp_path)
    chapter = content / "01-rollout.md"
    chapter.write_bytes(b"\xef\xbb\xbf" + chapter.read_bytes().replace(b"\n", b"\r\n"))
    build_site(load_project(PROJECT_ROOT, content), tmp_path / "dist")
    assert (tmp_path / "dist" / "01-rollout.html").read_bytes() == (tmp_path / "plain-dist" / "01-rollout.html").read_bytes()
