"""Every problem the build reports, once: its stable id, its section of docs/diagnostics.md, its text, what to do.

A call site reports an entry with its fields, `report(location, UNKNOWN_TERM,
key=..., suggestion=...)`; nothing else builds a diagnostic's text. An id
names the problem for good: it is never renamed, renumbered or reused, so a
link to `docs/diagnostics.md#ID` keeps working. The guide is generated from
this module and the cases of tests/site/bad_inputs/ (each case's about.md
names its id); tests/site/test_messages.py holds every entry to a case, or,
for a message no content file can cause, to the test named in `tested_by`.

`{suggestion}` is always `suggest_name(...)`: " (did you mean 'x'?)" or "".
"""

from __future__ import annotations

from sitegen.diagnostics import Message

FILES = "Files and folders"
FRONT_MATTER = "Front matter and YAML"
HEADINGS = "Headings and ids"
LINKS = "Links"
TERMS = "Glossary terms"
SOURCES = "Sources and references"
COMPUTED = "Computed values"
TABLES = "Tables"
CONTAINERS = "Containers"
FIGURES = "Figures"
LABS = "Labs"
LISTINGS = "Listings"
MATH = "Math"
CELLS = "Python cells"
MACHINE = "The machine, the command line and the templates"

# The guide's sections, in the order an author meets the problems: the files,
# what is at the top of a page, then the page's body from prose to code; last
# what no content file causes.
SECTIONS = (
    FILES,
    FRONT_MATTER,
    HEADINGS,
    LINKS,
    TERMS,
    SOURCES,
    COMPUTED,
    TABLES,
    CONTAINERS,
    FIGURES,
    LABS,
    LISTINGS,
    MATH,
    CELLS,
    MACHINE,
)

# --- Files and folders -----------------------------------------------------------

UNEXPECTED_MARKDOWN_FILE = Message(
    "file-unexpected-markdown",
    FILES,
    "unexpected Markdown file: chapters are named NN-slug.md (e.g. 03-scoring.md); the other pages are {others}",
    advice="Rename the file (chapter numbers are two ASCII digits), or move it out of `content/`.",
)
FILE_SUFFIX_CASE = Message(
    "file-suffix-case",
    FILES,
    "the file name must end in lower-case '{suffix}'",
    advice="Rename the file: `03-scoring.MD` would be skipped without a word on a case-sensitive file system.",
)
FILE_NOT_REGULAR = Message(
    "file-not-regular",
    FILES,
    "{reason}; only regular files are read",
    advice="Replace the folder, link, pipe or device with a regular file, or move it out of `content/`.",
)
FILE_CHANGED_TO_NOT_REGULAR = Message(
    "file-became-not-regular",
    FILES,
    "{kind}, not a regular file; only regular files are read",
    advice="The file became a pipe, device or folder while the build read it; make it a regular file.",
    tested_by="tests/site/test_messages.py::test_a_message_no_test_here_can_provoke_prints_exactly",
)
FILE_UNREADABLE = Message(
    "file-unreadable",
    FILES,
    "cannot be read ({reason})",
    advice="Give the build permission to read the file.",
    tested_by="tests/site/test_messages.py::test_a_message_no_test_here_can_provoke_prints_exactly",
)
FILE_TOO_LARGE = Message(
    "file-too-large",
    FILES,
    "too large to read: {size:,} bytes (the limit is 1 MiB, {limit:,} bytes); split it",
    advice="A content file may hold 1 MiB, about 45 times the longest chapter; its size is checked before a byte is read.",
    tested_by="tests/site/test_robustness.py::test_files_over_the_size_limit_are_diagnostics_and_are_never_read",
)
FILE_NOT_UTF8 = Message(
    "file-not-utf8",
    FILES,
    "not valid UTF-8: byte 0x{byte:02x} at column {column}; save the file as UTF-8",
    advice="The line and column (in bytes) are those of the first bad byte; the other files are still checked.",
)
FILE_NUL_BYTE = Message(
    "file-nul-byte",
    FILES,
    "a NUL byte at column {column}; remove it",
    advice="Often from a binary paste; delete it (the column counts bytes).",
)
FILE_CR_LINE_ENDINGS = Message(
    "file-cr-line-endings",
    FILES,
    "line {line} ends with a carriage return alone (CR line endings, as old Mac editors saved); "
    "save the file with LF line endings",
)
MISSING_CONTENTS_PAGE = Message(
    "contents-page-missing",
    FILES,
    "missing contents page: add index.md with front matter title: and lede:, then the one-paragraph promise",
)
BLOCK_TOO_LONG = Message(
    "block-too-long",
    FILES,
    "this block is {length} characters long (the limit is {limit}); split it",
    advice="A paragraph, heading or table over 20,000 characters is not parsed (the parser's time grows faster than its length).",
)
DUPLICATE_CHAPTER_NUMBER = Message("chapter-duplicate-number", FILES, "duplicate chapter number {number} (also {other})")
DUPLICATE_CHAPTER_SLUG = Message("chapter-duplicate-slug", FILES, "duplicate chapter slug '{slug}' (also {other})")

# --- Front matter and YAML -------------------------------------------------------

MISSING_FRONT_MATTER = Message(
    "front-matter-missing",
    FRONT_MATTER,
    "missing front matter: start the file with a '---' line, then {fields}, then '---'",
)
FRONT_MATTER_NOT_YAML = Message(
    "front-matter-not-yaml",
    FRONT_MATTER,
    "front matter is not valid YAML: {problem}",
    advice="Quote a value that holds a colon, a '#' or a date you mean as text.",
)
FRONT_MATTER_NOT_MAPPING = Message("front-matter-not-mapping", FRONT_MATTER, "front matter must be 'name: value' lines")
UNKNOWN_FRONT_MATTER_FIELD = Message(
    "front-matter-unknown-field", FRONT_MATTER, "unknown front matter field '{name}'{suggestion}"
)
MISSING_FRONT_MATTER_FIELD = Message("front-matter-missing-field", FRONT_MATTER, "missing front matter field '{name}'")
BAD_FRONT_MATTER_FIELD = Message(
    "front-matter-bad-field",
    FRONT_MATTER,
    "front matter field '{name}' {rule}",
    advice="The rule names what the field takes (read/schema.py): text, or a chapter number from 1 to the chapter count.",
)
CHAPTER_NUMBER_MISMATCH = Message(
    "front-matter-chapter-mismatch",
    FRONT_MATTER,
    "front matter says chapter {chapter} but the file name says {number}",
    advice="Make the `chapter:` field and the file name's `NN` agree.",
)
SITE_CONFIG_NOT_YAML = Message(
    "site-config-not-yaml",
    FRONT_MATTER,
    "not valid YAML: {problem}",
    tested_by="tests/site/render/test_reader_pages.py::test_a_bad_site_yaml_is_one_line_naming_the_file_and_line",
)
SITE_CONFIG_NOT_MAPPING = Message(
    "site-config-not-mapping",
    FRONT_MATTER,
    "site.yaml must be 'name: value' lines",
    tested_by="tests/site/render/test_reader_pages.py::test_a_bad_site_yaml_is_one_line_naming_the_file_and_line",
)
UNKNOWN_SETTING = Message(
    "site-config-unknown-setting",
    FRONT_MATTER,
    "unknown setting '{name}' (known: {known})",
    tested_by="tests/site/render/test_reader_pages.py::test_a_bad_site_yaml_is_one_line_naming_the_file_and_line",
)
BAD_SETTING = Message(
    "site-config-bad-setting",
    FRONT_MATTER,
    "{name} {rule}",
    advice="Remove a user name or password from base_url (it is published in every page); a malformed address "
    "(a bad port, an unclosed `[`) gets the 'must be an absolute http(s) address' line; see publishing.md.",
    tested_by="tests/site/render/test_reader_pages.py::test_a_bad_site_yaml_is_one_line_naming_the_file_and_line",
)

# --- Headings and ids ------------------------------------------------------------

PAGE_TITLE_HEADING = Message(
    "heading-h1",
    HEADINGS,
    "use '##' and '###' for headings: the page title (from the front matter) is the page's only h1",
)
RESERVED_ID = Message("id-reserved", HEADINGS, "id '{id}' is reserved by the page template; choose another")
DERIVED_ID_TAKEN = Message(
    "id-derived-taken",
    HEADINGS,
    "id '{id}' starts with '{owner}-': the page template derives such ids from the anchor '{owner}' on this page; choose another",
)
ID_TAKEN = Message("id-taken", HEADINGS, "id '{id}' is already used on this page; choose another")
DERIVED_HEADING_ANCHOR_TAKEN = Message(
    "heading-anchor-derived-taken",
    HEADINGS,
    "heading anchor '{anchor}' starts with '{owner}-': the page template derives such ids from the anchor '{owner}' "
    "on this page; choose another",
)
HEADING_ANCHOR_TAKEN = Message(
    "heading-anchor-taken",
    HEADINGS,
    "heading anchor '{anchor}' is also the anchor of a figure, lab, exercise or glossary term on this page; rename the heading",
)

# --- Links -----------------------------------------------------------------------

RECORDED_LINK_TARGET = Message(
    "recorded-link-target", LINKS, "'recorded:' takes nothing after the colon (there is one recorded run), got {target}"
)
LINK_REFUSED = Message(
    "link-refused",
    LINKS,
    "links may only be web addresses (http://, https://), mailto:, or pages and anchors of this site",
)
LINK_TO_MISSING_PAGE = Message("link-missing-page", LINKS, "link to missing page '{page}'{suggestion}")
LINK_TO_MISSING_ANCHOR = Message("link-missing-anchor", LINKS, "link to missing anchor '#{anchor}' in {page}{suggestion}")
EXTERNAL_LINK_FAILED = Message(
    "link-external-failed",
    LINKS,
    "external link {url} failed: {status}",
    warning=True,
    advice="Only with `check --fetch-external`: the link is broken, or the host unreachable.",
    tested_by="tests/site/commands/test_check_command.py::test_fetch_external_reports_each_status_and_warns_about_failures",
)

# --- Glossary terms --------------------------------------------------------------

MISSING_GLOSSARY = Message(
    "glossary-missing",
    TERMS,
    "missing glossary: add glossary.md with front matter title: and lede:, then a definition list of terms",
)
UNKNOWN_TERM = Message("term-unknown", TERMS, "unknown glossary term '{key}'{suggestion}")
TERM_NOT_USED = Message(
    "term-not-used",
    TERMS,
    "glossary term '{key}' is not used in any chapter",
    warning=True,
    advice="Link to it from a chapter with `[text](term:KEY)`, or remove it.",
)
EMPTY_DEFINITION = Message(
    "term-empty-definition", TERMS, "glossary term {term} has an empty definition; write what it means after ': '"
)
TERM_WITHOUT_ANCHOR = Message(
    "term-without-anchor",
    TERMS,
    "glossary term {term} gives no anchor (it has no letter or digit); give it a key: '{text} {{#key}}'",
)
RESERVED_TERM_KEY = Message(
    "term-reserved-key", TERMS, "glossary term key '{key}' is reserved by the page template; choose another"
)
DUPLICATE_TERM_KEY = Message("term-duplicate-key", TERMS, "duplicate glossary term key '{key}' (first at line {first})")
TERMS_OUT_OF_ORDER = Message(
    "terms-out-of-order", TERMS, "glossary terms must be in alphabetical order: '{term}' comes after '{previous}'"
)

# --- Sources and references ------------------------------------------------------

REFERENCES_NOT_YAML = Message("references-not-yaml", SOURCES, "references are not valid YAML: {problem}")
REFERENCES_NOT_LIST = Message("references-not-list", SOURCES, "references.yaml must be a list of entries ('- key: ...')")
REFERENCE_NOT_MAPPING = Message(
    "reference-not-mapping", SOURCES, "each reference must be a mapping of fields (key:, short:, ...)"
)
UNKNOWN_REFERENCE_FIELD = Message("reference-unknown-field", SOURCES, "unknown reference field '{name}'{suggestion}")
MISSING_REFERENCE_FIELD = Message("reference-missing-field", SOURCES, "reference is missing required field '{name}'")
BAD_REFERENCE_KEY = Message("reference-bad-key", SOURCES, "reference key must be lower-case letters, digits and '-', got {key}")
RESERVED_REFERENCE_KEY = Message(
    "reference-reserved-key", SOURCES, "reference key '{key}' is reserved by the page template; choose another"
)
BAD_REFERENCE_SECTIONS = Message(
    "reference-bad-sections",
    SOURCES,
    "reference field 'sections' must map each anchor of the source's page to its section title (trajectories: Trajectories)",
)
UNQUOTED_ARXIV = Message(
    "reference-unquoted-arxiv",
    SOURCES,
    "reference field 'arxiv' must be quoted text (\"{value}\"), or YAML reads it as a number",
)
BAD_REFERENCE_FIELD = Message("reference-bad-field", SOURCES, "reference field '{name}' {rule}")
DUPLICATE_REFERENCE_KEY = Message("reference-duplicate-key", SOURCES, "duplicate reference key '{key}' (first at line {first})")
UNKNOWN_SOURCE_KEY = Message("cite-unknown-key", SOURCES, "unknown source key '{key}'{suggestion}")
REFERENCE_NEVER_CITED = Message(
    "reference-never-cited",
    SOURCES,
    "reference '{key}' is never cited",
    warning=True,
    advice="Cite it with `[text](cite:KEY)`, or remove it from references.yaml.",
)
SOURCE_WITHOUT_SECTIONS = Message(
    "cite-source-without-sections",
    SOURCES,
    "source '{key}' lists no sections to link to; add 'sections:' to its entry in references.yaml or cite it without '#{anchor}'",
)
UNKNOWN_SOURCE_SECTION = Message(
    "cite-unknown-section", SOURCES, "source '{key}' has no section '{anchor}'{suggestion} (sections: {sections})"
)
MISSING_REFERENCES = Message(
    "references-missing",
    SOURCES,
    "missing references: add references.yaml, a list of entries with key, short, authors, year, title, url",
)

# --- Computed values -------------------------------------------------------------

EMPTY_COMPUTED_VALUE = Message("computed-empty", COMPUTED, "empty computed value '{{{{ }}}}'")
UNKNOWN_COMPUTED_VALUE = Message("computed-unknown", COMPUTED, "unknown computed value '{name}'{suggestion}")
MALFORMED_COMPUTED_PARAMETER = Message(
    "computed-malformed-parameter", COMPUTED, "computed value '{name}': write parameters as key=value, got '{word}'"
)
COMPUTED_PARAMETER_TWICE = Message("computed-parameter-twice", COMPUTED, "computed value '{name}' sets '{key}' twice")
UNKNOWN_COMPUTED_PARAMETER = Message(
    "computed-unknown-parameter", COMPUTED, "computed value '{name}' has no parameter '{key}' (parameters: {parameters})"
)
MISSING_COMPUTED_PARAMETER = Message(
    "computed-missing-parameter", COMPUTED, "computed value '{name}' needs the parameter '{key}'"
)
BAD_COMPUTED_PARAMETER = Message(
    "computed-bad-parameter",
    COMPUTED,
    "bad parameter for computed value '{name}': {problem}",
    advice="The problem is the core's own message: it names the parameter and what it takes.",
)
UNCLOSED_COMPUTED_VALUE = Message(
    "computed-unclosed", COMPUTED, "unclosed computed value: '{{{{' without '}}}}' on the same line"
)

# --- Tables ----------------------------------------------------------------------

TABLE_ROW_CELLS = Message("table-row-cells", TABLES, "this table row has {cells} cells and its header {columns}; {consequence}")
TABLE_FORMULA_BAR = Message(
    "table-formula-bar",
    TABLES,
    "in a table, '\\|' is an escaped cell border, so this formula would show a single bar: "
    "write \\Vert for a double bar (or \\vert for a single one)",
)

# --- Containers ------------------------------------------------------------------

EXERCISE_WITHOUT_ANSWER = Message(
    "exercise-without-answer", CONTAINERS, "exercise has no '::: answer' container (the worked answer)"
)
EXERCISE_TWO_ANSWERS = Message("exercise-two-answers", CONTAINERS, "exercise has more than one 'answer' container")
NESTED_TOO_DEEPLY = Message(
    "nested-too-deeply",
    CONTAINERS,
    "nested too deeply: the Markdown parser stops at {limit} levels (a list level counts 2, a quote or container 1) "
    "and would drop {lost}; flatten this list or quote",
)
UNCLOSED_FENCE = Message("fence-unclosed", CONTAINERS, "unclosed fenced block '{{{name}}}': add a line '{marker}' where it ends")
STRAY_CONTAINER_CLOSE = Message("container-stray-close", CONTAINERS, "stray ':::' (a closing marker with no container open)")
UNCLOSED_CONTAINER = Message("container-unclosed", CONTAINERS, "unclosed container '{name}': add a line '{marker}' where it ends")
UNKNOWN_BLOCK_KIND = Message("block-unknown-kind", CONTAINERS, "unknown {syntax} kind '{name}'{suggestion}; known kinds: {known}")
BLOCK_MISPLACED = Message("block-misplaced", CONTAINERS, "{kind} {syntax} belongs {places}{reason}")

# --- Figures ---------------------------------------------------------------------

BAD_FIGURE_FILE_NAME = Message(
    "figure-bad-file-name",
    FIGURES,
    "figure file names are lower-case letters, digits and hyphens (like training-loop.svg), got '{name}'",
)
FIGURE_TOO_DEEP = Message("figure-svg-too-deep", FIGURES, "figure SVG nests elements more than {depth} deep")
FIGURE_DOCTYPE = Message(
    "figure-svg-doctype", FIGURES, "figure SVG must not contain a DOCTYPE (it is not needed, and can declare entities)"
)
FIGURE_PROCESSING_INSTRUCTION = Message(
    "figure-svg-processing-instruction",
    FIGURES,
    "figure SVG must not contain a processing instruction (<?{target} ...?>)",
)
FIGURE_NOT_XML = Message("figure-not-xml", FIGURES, "figure is not valid SVG/XML: {problem}")
FIGURE_NOT_SVG = Message(
    "figure-not-svg",
    FIGURES,
    'figure must be an <svg> element in the SVG namespace (xmlns="http://www.w3.org/2000/svg")',
)
FIGURE_ELEMENT_REFUSED = Message(
    "figure-svg-element-refused",
    FIGURES,
    "figure SVG must not contain <{element}> elements (only drawing elements are allowed)",
)
FIGURE_STYLE_ATTRIBUTE = Message(
    "figure-svg-style-attribute",
    FIGURES,
    "figure SVG must not contain a style attribute (the site's Content-Security-Policy blocks it)",
    advice="Use the presentation attributes (fill, stroke, font-size, …) instead.",
)
FIGURE_EVENT_HANDLER = Message(
    "figure-svg-event-handler", FIGURES, "figure SVG must not contain an event-handler attribute ({attribute}=)"
)
FIGURE_ATTRIBUTE_REFUSED = Message(
    "figure-svg-attribute-refused",
    FIGURES,
    "figure SVG must not contain the attribute {attribute}= (not a drawing attribute)",
)
FIGURE_OUTSIDE_LINK = Message(
    "figure-svg-outside-link", FIGURES, 'figure SVG links may only point inside the figure (href="#id"), got {value}'
)
FIGURE_BACKSLASH = Message(
    "figure-svg-backslash",
    FIGURES,
    "figure SVG attribute values must not contain a backslash (a CSS escape can hide a url()), got {value}",
)
FIGURE_OUTSIDE_URL = Message(
    "figure-svg-outside-url", FIGURES, "figure SVG may only use url(#id) references inside the figure, got {value}"
)
FIGURE_NO_TITLE = Message("figure-svg-no-title", FIGURES, "figure SVG needs a <title> (the figure's title)")
FIGURE_NO_DESCRIPTION = Message("figure-svg-no-description", FIGURES, "figure SVG needs a <desc> (the figure's long description)")
FIGURE_CONTAINER_ARGUMENTS = Message(
    "figure-container-arguments", FIGURES, "figure container takes one figure name, e.g. '::: figure context-growth'"
)
MISSING_FIGURE_FILE = Message(
    "figure-missing-file",
    FIGURES,
    "missing figure file '{file}'",
    advice="Add the SVG under `content/figures/`, or fix the name.",
)
FIGURE_SHOWN_TWICE = Message(
    "figure-shown-twice",
    FIGURES,
    "figure '{name}' is already shown at {first}",
    advice="Show each figure once; link to it elsewhere with `[text](figure:NAME)`.",
)
FIGURE_OUTSIDE_CHAPTER = Message(
    "figure-outside-chapter", FIGURES, "figures belong in chapters (they are numbered in reading order)"
)
FIGURE_NOT_SHOWN = Message(
    "figure-not-shown",
    FIGURES,
    "figure is not shown on any page",
    warning=True,
    advice="Place it with `::: figure NAME`, or delete the file.",
)
UNKNOWN_FIGURE = Message("figure-link-unknown", FIGURES, "unknown figure '{name}'{suggestion}")
FIGURE_LINK_NOT_SHOWN = Message(
    "figure-link-not-shown", FIGURES, "figure '{name}' is not shown on any page (add '::: figure {name}')"
)
IMAGE_IN_PROSE = Message(
    "image-in-prose", FIGURES, "images are not supported in the prose; use a '::: figure NAME' container with an SVG"
)

# --- Labs ------------------------------------------------------------------------

LAB_WITHOUT_WIDGET = Message("lab-without-widget", LABS, "lab container needs a widget name: {widgets}")
UNKNOWN_LAB_WIDGET = Message("lab-unknown-widget", LABS, "unknown lab widget '{widget}'{suggestion}; known widgets: {widgets}")
MALFORMED_LAB_SETTING = Message("lab-malformed-setting", LABS, "bad lab parameter '{word}': write settings as key=value")
LAB_SETTING_TWICE = Message("lab-setting-twice", LABS, "the lab sets '{key}' twice")
BAD_LAB_OPTION = Message("lab-bad-option", LABS, "bad lab option {key}={value} for the {widget} widget: {key} is one of {values}")
UNKNOWN_LAB_SETTING = Message(
    "lab-unknown-setting", LABS, "bad lab parameter '{key}' for the {widget} widget{suggestion}; settings: {settings}"
)
BAD_LAB_SETTING = Message(
    "lab-bad-setting",
    LABS,
    "bad lab parameter: {problem}",
    advice="The problem is the core's own message (the one the browser shows): it names the setting and its range.",
)
LAB_LINK_UNKNOWN_WIDGET = Message(
    "lab-link-unknown-widget", LABS, "{link}: unknown lab widget {widget}{suggestion}; known widgets: {widgets}"
)
LAB_LINK_WITHOUT_LAB = Message(
    "lab-link-without-lab",
    LABS,
    "{link} sets the page's {widget} lab, but this page shows none (labs on this page: {shown})",
    advice="A `lab:` link changes a lab on its own page: place the lab there, or link to the page that has it.",
)
LAB_LINK_WITHOUT_SETTINGS = Message(
    "lab-link-without-settings", LABS, "{link} names no setting to change: write them after '?', e.g. 'lab:sampler?T=2'"
)
LAB_LINK_MALFORMED_SETTING = Message(
    "lab-link-malformed-setting",
    LABS,
    "{link} has {part} where a setting goes: write each as parameter=value, joined by '&'",
)
LAB_LINK_UNKNOWN_PARAMETER = Message(
    "lab-link-unknown-parameter",
    LABS,
    "{link}: the {widget} lab has no parameter {parameter}{suggestion}; its parameters: {parameters}",
)
LAB_LINK_PARAMETER_TWICE = Message("lab-link-parameter-twice", LABS, "{link}: sets {parameter} twice")
LAB_LINK_HIDDEN_PARAMETER = Message(
    "lab-link-hidden-parameter",
    LABS,
    "{link}: the {widget} lab it sets ({view}) does not show {parameter}: link to a lab that does",
)
LAB_LINK_BAD_VALUE = Message(
    "lab-link-bad-value",
    LABS,
    "{link}: bad value for {parameter}: {problem}",
    advice="The problem is the core's own message (the one the browser shows): it names the setting and its range.",
)

# --- Listings --------------------------------------------------------------------

LISTING_ARGUMENTS = Message(
    "listing-arguments",
    LISTINGS,
    "listing container needs a file and function names, e.g. '::: listing rollout_lab/sampling.py next_state'",
)
LISTING_UNKNOWN_FILE = Message("listing-unknown-file", LISTINGS, "listing names unknown file '{file}'{suggestion}")
LISTING_NO_FUNCTIONS = Message(
    "listing-no-functions", LISTINGS, "listing of '{file}' names no functions (e.g. '::: listing {file} function_name')"
)
LISTING_UNKNOWN_FUNCTION = Message("listing-unknown-function", LISTINGS, "listing: '{file}' has no function '{name}'{suggestion}")

# --- Math ------------------------------------------------------------------------

UNCLOSED_DOLLAR = Message(
    "math-unclosed-dollar",
    MATH,
    "unclosed '{marker}': the formula has no closing '{marker}' and shows as plain text (write '\\$' for a dollar sign)",
    warning=True,
    advice="Close the formula, or escape the dollar sign (`$5` before a digit is prose already). Likewise `$$`.",
)
MATH_ERROR = Message(
    "math-error",
    MATH,
    "math error: {problem}",
    advice="KaTeX's own message; the formula's line is the one reported.",
)
EMPTY_FORMULA = Message("math-empty", MATH, "math error: empty formula")

# --- Python cells ----------------------------------------------------------------

CELL_ARGUMENTS = Message(
    "cell-arguments",
    CELLS,
    "a python cell takes no words after '{{python}}' (got '{words}'); write options as '#| key: value' lines at the top of the cell",
)
BAD_CELL_OPTION_LINE = Message(
    "cell-bad-option-line", CELLS, "bad cell option '{line}': write '#| key: value', e.g. '#| timeout: 30'"
)
UNKNOWN_CELL_OPTION = Message("cell-unknown-option", CELLS, "unknown cell option '{key}'{suggestion}; options: {options}")
BAD_CELL_EXPECT = Message(
    "cell-bad-expect",
    CELLS,
    "bad cell option 'expect: {value}': the only value is 'expect: error' (the cell is meant to raise)",
)
BAD_CELL_TIMEOUT = Message(
    "cell-bad-timeout",
    CELLS,
    "bad cell option 'timeout: {value}': a number of seconds above 0 and at most {limit:g}",
)
EMPTY_CELL = Message("cell-empty", CELLS, "empty cell: write some Python after the '```{{python}}' line")
CELL_RAISED = Message(
    "cell-raised",
    CELLS,
    "cell {number} raised {error}; fix it, or add '#| expect: error' if it is meant to raise",
    advice="Reported at the line of the cell that raised; later cells on the page are not run.",
)
CELL_RAISED_NOTHING = Message("cell-raised-nothing", CELLS, "cell has '#| expect: error' but raised nothing")
CELL_STOPPED_PYTHON = Message(
    "cell-stopped-python",
    CELLS,
    "cell {number} stopped Python: {reason}; Pyodide cannot go on after that "
    "(os.abort, os._exit, a stack overflow, memory out of bounds); Python was restarted",
    tested_by="tests/site/check/test_cell_runner.py::test_a_cell_that_makes_pyodide_fail_for_good_is_reported_at_the_cell_and_later_pages_run",
)
CELL_REFUSED = Message(
    "cell-refused",
    CELLS,
    "cell {number} stopped Python: {reason}; a cell has no processes, network, JavaScript or files outside Python's own; "
    "Python was restarted",
    advice="A cell computes and prints: the standard library and rollout_lab, nothing outside Python (authoring.md).",
)
CELL_TIMEOUT = Message(
    "cell-timeout",
    CELLS,
    "cell {number} ran past its timeout of {seconds:g} s (set '#| timeout: N' if it needs longer); Python was restarted",
)
CELL_MEMORY = Message(
    "cell-memory",
    CELLS,
    "cell {number} used more than {limit} MiB of memory; Python was restarted",
    advice="The cell's Python grew past the runner's memory limit; make it lighter.",
    tested_by="tests/site/check/test_cell_runner.py::test_a_cell_past_the_memory_limit_is_stopped_and_the_next_page_runs",
)
CELL_FORGED_OUTPUT = Message(
    "cell-forged-output",
    CELLS,
    "cell {number} wrote output the kernel never writes (unescaped control characters, an unknown stream or more than "
    "{limit:,} characters): a cell on its page changed cell_kernel; Python was restarted",
    tested_by="tests/site/check/test_cell_runner.py::test_the_build_checks_the_runners_output_as_the_kernel_bounds_it",
)
CELL_OVERSIZED_ANSWER = Message(
    "cell-oversized-answer",
    CELLS,
    "cell {number} wrote an answer longer than any the kernel writes ({limit:,} characters): "
    "a cell on its page changed cell_kernel; Python was restarted",
    tested_by="tests/site/check/test_cell_runner.py::test_an_answer_too_long_to_be_the_kernels_is_not_read",
)
CELL_FLOODED_ERRORS = Message(
    "cell-flooded-errors",
    CELLS,
    "cell {number} made the runner write more than {limit:,} characters to its standard error; Python was restarted",
    tested_by="tests/site/check/test_runner_answers.py::test_a_runner_flooding_its_standard_error_is_stopped_and_nothing_reaches_the_terminal",
)
CELL_BROKE_KERNEL = Message(
    "cell-broke-kernel",
    CELLS,
    "cell {number} made the cell kernel fail ({problem}): a cell on its page broke what the kernel relies on "
    "(sys.stdout, sys.stderr, cell_kernel); Python was restarted",
    tested_by="tests/site/check/test_cell_runner.py::test_a_cell_that_breaks_its_own_streams_is_that_cells_error_and_every_other_problem_is_reported",
)
CELL_MALFORMED_ANSWER = Message(
    "cell-malformed-answer",
    CELLS,
    "cell {number} got an answer from the runner that it never gives ({reason}): a cell on its page changed "
    "cell_kernel or the runner; Python was restarted",
    tested_by="tests/site/check/test_runner_answers.py::test_a_forged_answer_is_the_cells_error_at_its_line",
)

# --- The machine, the command line and the templates -----------------------------

CONTENT_FOLDER_NOT_FOUND = Message(
    "content-folder-not-found",
    MACHINE,
    "content folder not found",
    advice="`--content` names no folder.",
    tested_by="tests/site/commands/test_build_cli.py::test_a_missing_content_folder_is_one_line",
)
PROJECT_FILE_TOO_LARGE = Message(
    "project-file-too-large",
    MACHINE,
    "too large to read: {size:,} bytes (the limit for a file of the project is 8 MiB)",
    advice="A file of the project itself (a template, a static file, the core, KaTeX's files) may hold 8 MiB.",
    tested_by="tests/site/test_robustness.py::test_a_huge_site_yaml_a_template_or_a_static_file_is_one_line_and_never_read",
)
PROJECT_FILE_NOT_REGULAR = Message(
    "project-file-not-regular",
    MACHINE,
    "{kind}, not a regular file; only regular files are read",
    advice="A template, static file or module of the project is a pipe or a device; make it a regular file.",
    tested_by="tests/site/test_robustness.py::test_a_huge_site_yaml_a_template_or_a_static_file_is_one_line_and_never_read",
)
FRONT_END_FILE_MISSING = Message(
    "front-end-file-missing",
    MACHINE,
    "missing; run `npm ci` (see the Makefile)",
    advice="Set up the front-end packages (`make site` does); every missing file is listed.",
    tested_by="tests/site/test_robustness.py::test_without_node_modules_every_missing_front_end_file_is_listed",
)
BASE_URL_VARIABLE_BAD = Message(
    "base-url-variable-bad",
    MACHINE,
    "{rule}",
    advice="ROLLOUTS_BASE_URL takes what site.yaml's base_url takes (publishing.md).",
    tested_by="tests/site/read/test_base_url_override.py::test_a_bad_value_fails_the_build_naming_the_variable",
)
NODE_MISSING_FOR_CELLS = Message(
    "cells-node-missing",
    MACHINE,
    "node is not installed; Python cells run in Pyodide under node",
    advice="The machine lacks what `make site` installs; run `make site` again.",
    tested_by="tests/site/test_messages.py::test_a_message_no_test_here_can_provoke_prints_exactly",
)
CELL_RUNNER_STOPPED = Message(
    "cell-runner-stopped",
    MACHINE,
    "the Python cell runner (node) stopped unexpectedly{said}",
    advice="Node died (its last words follow the colon); run the build again, or `make site` if it keeps happening.",
    tested_by="tests/site/check/test_runner_answers.py::test_a_runner_that_stops_says_its_last_words_escaped_on_one_line",
)
CELL_RUNNER_FAILED = Message(
    "cell-runner-failed",
    MACHINE,
    "the Python cell runner failed: {problem}",
    tested_by="tests/site/test_messages.py::test_a_message_no_test_here_can_provoke_prints_exactly",
)
NODE_MISSING_FOR_MATH = Message(
    "math-node-missing",
    MACHINE,
    "node is not installed; KaTeX needs it to render the math in the content",
    advice="node is needed only when a formula is not in `.cache/math.json`; `make site` installs it.",
    tested_by="tests/site/test_robustness.py::test_node_is_needed_only_when_a_formula_must_be_rendered",
)
KATEX_MISSING = Message(
    "katex-missing",
    MACHINE,
    "KaTeX is missing; run `npm ci`",
    tested_by="tests/site/check/test_formulas.py::test_a_missing_katex_is_one_line_saying_how_to_install_it",
)
KATEX_STOPPED = Message(
    "katex-stopped",
    MACHINE,
    "the KaTeX process stopped unexpectedly",
    tested_by="tests/site/test_messages.py::test_a_message_no_test_here_can_provoke_prints_exactly",
)
ESBUILD_FAILED = Message(
    "esbuild-failed",
    MACHINE,
    "esbuild failed: {output}",
    tested_by="tests/site/test_messages.py::test_a_message_no_test_here_can_provoke_prints_exactly",
)
SCRIPT_ERROR = Message(
    "script-error",
    MACHINE,
    "{problem} (esbuild, column {column})",
    advice="A syntax error in a script of `client/` or `site_templates/static/`, for whoever edits them.",
    tested_by="tests/site/assets/test_minified_scripts.py::test_a_script_esbuild_cannot_parse_fails_the_build_in_one_line",
)
EDITOR_NOT_BUNDLED = Message(
    "editor-not-bundled",
    MACHINE,
    "the cell editor could not be bundled: {output}",
    advice="The machine lacks what `make site` installs; run `make site` again.",
    tested_by="tests/site/test_messages.py::test_a_message_no_test_here_can_provoke_prints_exactly",
)
TEMPLATE_ERROR = Message(
    "template-error",
    MACHINE,
    "template error: {problem}",
    advice="A template problem (Jinja's message), for whoever edits `site_templates/`.",
    tested_by="tests/site/serve/test_serve_incremental.py::test_a_template_error_is_one_line_naming_the_template_and_line",
)


# Every entry above, in the order the guide lists them within a section.
MESSAGES = tuple(value for value in list(globals().values()) if isinstance(value, Message))
