"""The shipped stylesheets: KaTeX's pruned to the classes the math uses, ours minified by esbuild without changing a string."""

from __future__ import annotations

import re

from site_testing import PROJECT_ROOT, SAMPLE_CONTENT
from sitegen.assets.scripts import minify_scripts
from sitegen.assets.stylesheets import collect_classes, prune_stylesheet
from sitegen.model import StaticFile
from sitegen.pipeline import check_project, make_site
from sitegen.read.load import load_project

FONT_A = '@font-face{font-family:KaTeX_Main;src:url(a.woff2) format("woff2")}'
FONT_B = '@font-face{font-family:KaTeX_Size4;src:url(b.woff2) format("woff2")}'


def test_pruning_keeps_rules_whose_classes_are_all_used_and_the_fonts_they_name():
    css = (
        FONT_A + FONT_B + ".katex{font:normal 1.21em KaTeX_Main,serif}.katex .mfrac,.katex .sqrt{display:inline-block}"
        ".katex .delim-size4{font-family:KaTeX_Size4}.katex .accent-body:not(.accent-full){width:0}body{margin:0}"
    )
    assert prune_stylesheet(css, {"katex", "mfrac", "accent-body"}) == (
        FONT_A + ".katex{font:normal 1.21em KaTeX_Main,serif}.katex .mfrac{display:inline-block}"
        ".katex .accent-body:not(.accent-full){width:0}body{margin:0}"
    )


def test_collect_classes_reads_class_attributes():
    assert collect_classes(['<span class="katex"><span class="mord mathnormal">x</span></span>']) == {
        "katex",
        "mord",
        "mathnormal",
    }


def test_minifying_drops_comments_and_spaces_but_not_strings():
    css = '/* why */\n.a::after {\n  content: " (" attr(href) ") ; , {";\n  margin: 0 auto;\n}\n\n@media print {\n  .b > .c, .d { color: red; }\n}\n'
    project = load_project(PROJECT_ROOT)
    [minified] = minify_scripts((StaticFile("css/a.css", css.encode()),), project.esbuild, project.esbuild_version, None)
    # esbuild's minifier (as for the scripts): a::after is written a:after, the same pseudo-element.
    assert (
        minified.data.decode() == '.a:after{content:" (" attr(href) ") ; , {";margin:0 auto}@media print{.b>.c,.d{color:red}}\n'
    )


def test_the_built_site_ships_only_the_katex_rules_its_math_uses():
    files = make_site(check_project(load_project(PROJECT_ROOT, SAMPLE_CONTENT)))
    katex = next(data for name, data in files.items() if re.fullmatch(r"assets/katex\.[0-9a-f]{8}\.css", name)).decode()
    full = (PROJECT_ROOT / "node_modules/katex/dist/katex.min.css").read_text(encoding="utf-8")
    assert len(katex) < len(full) / 3
    assert ".katex .boxpad" in full and ".katex .boxpad" not in katex  # the sample content boxes nothing
    assert "font-family:KaTeX_Main" in katex and ".katex{" in katex
    site = next(data for name, data in files.items() if re.fullmatch(r"assets/site\.[0-9a-f]{8}\.css", name)).decode()
    assert "/*" not in site and "\n" not in site.rstrip("\n")
