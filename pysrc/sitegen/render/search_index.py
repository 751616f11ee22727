"""The search index: every section's text, every glossary term and every reference, as a MiniSearch index.

The build writes `search-index.json` in the exact format MiniSearch's
`loadJSON` reads (serialisation version 2), so the browser loads it without
indexing anything. Its name is stable (no content hash): pages link to it by
that name, so a prose edit rewrites only its own page and the index, never
every page. The reader's script fetches it with `cache: "no-cache"`, so a
browser revalidates it instead of keeping a stale copy.

Why write MiniSearch's format from Python instead of running MiniSearch under
Node: the build needs no second Node process, and the dev server keeps the
last index between rebuilds (IndexState) and patches the documents an edit
changed, so an edit re-counts and re-encodes one section, not a thousand. The
file is still written whole (about 1 MB at 96 chapters, a millisecond to
write): a reader's browser fetches one index, and splitting it would cost
every search a request per part.
The format is MiniSearch's, not ours: `tests/content/test_search.py` loads
this file with MiniSearch under Node and checks it against an index MiniSearch
built itself from the same documents.

Tokenising and term processing must be identical here and in the browser's
query code (client/search.js): words are runs of letters and
digits; a term is lower-cased, stripped of accents, and British spellings are
mapped to American ones ("centred" → "centered"), on both sides, so either
spelling finds both; stop words ("the", "why", …) are dropped on both sides,
so a question matches and marks only the words that carry it. Math is kept in
the text as readable characters ("π_θ(a | s)"), so snippets have no holes.
"""

from __future__ import annotations

import json
import re
import unicodedata
import weakref
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from markdown_it.token import Token

from sitegen.kinds.links.term import find_definition_ranges
from sitegen.markup.tokens import CONTAINER_CLOSE, CONTAINER_OPEN, SECTION_LEVELS, read_heading_text
from sitegen.model import Page, Reference
from sitegen.session import SESSION, Slot

SEARCH_INDEX = "search-index.json"
# MiniSearch's options, shared with search.js: the indexed fields (in this order) and the stored ones.
FIELDS = ("title", "text")
STORED_FIELDS = ("kind", "title", "context", "url", "text")
FIELD_KEYS = tuple(str(field_id) for field_id in range(len(FIELDS)))
_WORD_SEPARATORS = re.compile(r"[\W_]+")

# Words that carry no meaning in a question, dropped from the index and from queries (search.js has the same list).
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "did",
        "for",
        "from",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "so",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "these",
        "they",
        "this",
        "those",
        "to",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
    ]
)

# TeX commands written as the characters they show; commands that only style or size their argument are dropped.
_TEX_CHARACTERS = {
    "pi": "π", "theta": "θ", "tau": "τ", "rho": "ρ", "epsilon": "ε", "varepsilon": "ε", "alpha": "α", "beta": "β",
    "sigma": "σ", "mu": "μ", "lambda": "λ", "delta": "δ", "sum": "Σ", "mid": "|", "cdot": "·", "times": "×", "le": "≤",
    "leq": "≤", "ge": "≥", "geq": "≥", "approx": "≈", "ne": "≠", "neq": "≠", "to": "→", "in": "∈", "infty": "∞",
    "ldots": "…", "dots": "…", "cdots": "…", "nabla": "∇", "ell": "ℓ", "sim": "~", "leftarrow": "←",
    "lvert": "|", "rvert": "|", "qquad": " ",
}  # fmt: skip
_TEX_STYLES = frozenset(
    {"text", "mathrm", "mathbb", "mathbf", "mathit", "mathcal", "operatorname", "left", "right", "quad",
     "big", "Big", "bigl", "bigr", "Bigl", "Bigr", "bigg", "Bigg"}
)  # fmt: skip
# Accents written as combining characters on their letter: \hat A → Â, \bar R → R̄.
_TEX_ACCENTS = {"hat": "\u0302", "bar": "\u0304", "tilde": "\u0303"}
# Spelled-out Greek read as the letter, on both sides (search.js has the same list): "pi old" finds π_old.
GREEK_NAMES = {"pi": "π", "rho": "ρ", "epsilon": "ε", "beta": "β", "sigma": "σ", "theta": "θ", "tau": "τ", "alpha": "α"}

# British → American, applied to whole terms after lower-casing (search.js has the same list).
_SPELLINGS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^(cent|fib|lit|met|theat)r(e|es|ed|ing)$"), "re"),
    (re.compile(r"^(behavi|col|fav|flav|harb|hon|hum|lab|neighb|rum|vap)our(s|ed|ing|ite|ites|able|ful)?$"), "our"),
    (re.compile(r"^(\w{3,})is(e|es|ed|ing|ation|ations|er|ers)$"), "ise"),
    (re.compile(r"^(anal|paral|catal)ys(e|es|ed|ing)$"), "yse"),
    (re.compile(r"^(cancel|channel|fuel|label|level|model|signal|total|travel|tunnel)l(ed|ing|er|ers)$"), "ll"),
    (re.compile(r"^(anal|catal|dial)ogue(s)?$"), "ogue"),
)


def americanise(term: str) -> str:
    """Return a lower-case term with a British spelling replaced by the American one (else unchanged)."""
    for pattern, kind in _SPELLINGS:
        match = pattern.match(term)
        if match is None:
            continue
        stem, suffix = match.group(1), match.group(2) or ""
        if kind == "re":
            return stem + "er" + {"e": "", "es": "s", "ed": "ed", "ing": "ing"}[suffix]
        if kind == "our":
            return stem + "or" + suffix
        if kind == "ise":
            return stem + "iz" + suffix
        if kind == "yse":
            return stem + "yz" + suffix
        if kind == "ll":
            return stem + suffix
        return stem + "og" + suffix
    return term


def tokenise(text: str) -> list[str]:
    """Split text into words exactly as search.js does (runs of letters and digits; empty pieces kept, as split() keeps them)."""
    return _WORD_SEPARATORS.split(text)


@lru_cache(maxsize=65536)
def process_term(term: str) -> str:
    """Return the indexed form of a word: lower case, no accents, American spelling ("" drops it)."""
    lowered = unicodedata.normalize("NFD", term.lower())
    plain = "".join(character for character in lowered if not unicodedata.combining(character))
    if plain in STOP_WORDS:
        return ""
    return GREEK_NAMES.get(plain) or americanise(plain)


@dataclass(frozen=True)
class SearchDocument:
    """One thing a reader can find: a chapter's opening, a section, a glossary term or a reference."""

    id: str
    kind: str
    title: str
    context: str
    url: str
    text: str


def describe_chapter(page: Page) -> str:
    """Return "Chapter 2 · Possibilities are not counts" for a chapter page."""
    number = page.chapter.number if page.chapter else 0
    return f"Chapter {number} · {page.title}"


def read_math(tex: str) -> str:
    """Return TeX as readable text: "\\pi_{\\text{beh}}(a \\mid s)" → "π_beh(a | s)", "\\frac{1}{K}" → "1/K", "\\hat A" → "Â".

    No TeX source is left for a snippet to show: environments, alignment marks,
    line breaks and sizing commands go; "\\|" is the norm bar ‖.
    """
    text = re.sub(r"\\(begin|end)\s*\{[^{}]*\}", " ", tex)
    text = text.replace("\\\\", " ").replace("\\|", "‖").replace("&", " ")
    text = re.sub(r"\\[,;:! ]", " ", text)
    text = re.sub(r"\\(?!frac\b|hat\b|bar\b|tilde\b)([A-Za-z]+) ?", read_command, text)
    text = read_fractions(text)
    text = re.sub(
        r"\\(hat|bar|tilde)\s*(?:\{+\s*(\S)\s*\}+|(\S))",
        lambda match: (match[2] or match[3]) + _TEX_ACCENTS[match[1]],
        text,
    )
    readable = " ".join(text.replace("{", "").replace("}", "").replace("-", "\u2212").split())
    return unicodedata.normalize("NFC", readable)  # Â as one letter, so it stays one word


def read_command(match: re.Match[str]) -> str:
    """Return one TeX command as its character (or its name: "\\ln" → "ln"), keeping the space after it."""
    name = match[1]
    shown = _TEX_CHARACTERS.get(name, "" if name in _TEX_STYLES else name)
    return shown + (" " if match[0][-1] == " " else "")


def read_fractions(text: str) -> str:
    """Return text with each \\frac{a}{b} as a/b, its parts in brackets when they hold more than one word."""
    while (start := text.find("\\frac")) >= 0:
        numerator, after = read_group(text, start + len("\\frac"))
        denominator, end = read_group(text, after)
        parts = [part if " " not in part.strip() else f"({part.strip()})" for part in (numerator, denominator)]
        text = f"{text[:start]}{parts[0]}/{parts[1]}{text[end:]}"
    return text


def read_group(text: str, start: int) -> tuple[str, int]:
    """Return the TeX argument at `start` (a braced group, or one character) without its braces, and where it ends."""
    index = start
    while index < len(text) and text[index] == " ":
        index += 1
    if index >= len(text):
        return "", index
    if text[index] != "{":
        return text[index], index + 1
    depth = 0
    for end in range(index, len(text)):
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        if depth == 0:
            return text[index + 1 : end], end + 1
    return text[index + 1 :], len(text)


# Between a table's cells, and between its rows, so a snippet of a table reads as one: "x · The prompt — t · The step".
CELL_SEPARATOR, ROW_SEPARATOR = " \u00b7 ", " \u2014 "


def read_plain_text(tokens: Sequence[Token]) -> str:
    """Return the readable text of a run of block tokens (markup dropped, math as readable text, computed values filled in).

    A table's cells are kept apart by CELL_SEPARATOR and its rows by ROW_SEPARATOR.
    """
    parts: list[str] = []
    first_row = first_cell = True
    for token in tokens:
        if token.type == "table_open":
            first_row = True
        elif token.type == "tr_open":
            parts.append("" if first_row else ROW_SEPARATOR)
            first_row, first_cell = False, True
        elif token.type in ("th_open", "td_open"):
            parts.append("" if first_cell else CELL_SEPARATOR)
            first_cell = False
        if token.type == CONTAINER_OPEN and token.meta.get("title"):
            parts.append(f" {token.meta['title']}. ")
        if token.type == "math_block":
            parts.append(f" {read_math(token.content)} ")
        for child in token.children or []:
            if child.type in ("text", "code_inline"):
                parts.append(child.content)
            elif child.type == "computed_value":
                parts.append(str(child.meta.get("text", "")))
            elif child.type == "math_inline":
                parts.append(read_math(child.content))
            elif child.type in ("softbreak", "hardbreak"):
                parts.append(" ")
        if token.type.endswith("_close") or token.type == CONTAINER_CLOSE:
            parts.append(" ")
    return " ".join("".join(parts).split())


def split_sections(page: Page) -> Iterator[tuple[str, str, Sequence[Token]]]:
    """Yield (anchor, heading text, body tokens) for the page's opening (anchor "") and each h2/h3 section."""
    tokens = page.tokens
    anchor, heading, start = "", page.title, 0
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.type == "heading_open" and token.tag in SECTION_LEVELS and token.attrGet("id") and index + 1 < len(tokens):
            yield anchor, heading, tokens[start:index]
            anchor, heading = str(token.attrGet("id")), read_heading_text(tokens[index + 1])
            index += 3  # heading_open, inline, heading_close
            start = index
            continue
        index += 1
    yield anchor, heading, tokens[start:]


# The dev server reuses a parsed Page while its file is unchanged, so a page's documents are kept by page.
_PAGE_DOCUMENTS: weakref.WeakKeyDictionary[Page, tuple[SearchDocument, ...]] = SESSION.keep(
    "search documents", weakref.WeakKeyDictionary()
)


def remember_page_documents(page: Page, documents: tuple[SearchDocument, ...]) -> None:
    """Take these as the page's documents: made from its tokens elsewhere (beside.py: a copy's page, summarised here)."""
    _PAGE_DOCUMENTS[page] = documents


def list_page_documents(page: Page) -> tuple[SearchDocument, ...]:
    """Return a chapter's opening and each of its sections as search documents (remembered per parsed page)."""
    cached = _PAGE_DOCUMENTS.get(page)
    if cached is not None:
        return cached
    number = page.chapter.number if page.chapter else 0
    # A chapter's sections say "Chapter 2 · Title"; the notation page's say its title.
    where = describe_chapter(page) if page.chapter else page.title
    documents = []
    for anchor, heading, body in split_sections(page):
        text = read_plain_text(body)
        if not anchor:
            opening = f"{page.lede} {text}".strip()
            documents.append(
                SearchDocument(
                    page.output_name,
                    "chapter" if page.chapter else "page",
                    page.title,
                    f"Chapter {number}" if page.chapter else "Page",
                    page.output_name,
                    opening,
                )
            )
        else:
            url = f"{page.output_name}#{anchor}"
            documents.append(SearchDocument(url, "section", heading, where, url, text))
    _PAGE_DOCUMENTS[page] = tuple(documents)
    return _PAGE_DOCUMENTS[page]


def list_search_documents(
    pages: Sequence[Page], glossary: Page | None, references: Sequence[Reference] = ()
) -> tuple[SearchDocument, ...]:
    """Return the openings and sections of the pages given (the searchable kinds'), every glossary term, then every reference."""
    return (*(document for page in pages for document in list_page_documents(page)), *list_other_documents(glossary, references))


def list_other_documents(glossary: Page | None, references: Sequence[Reference] = ()) -> tuple[SearchDocument, ...]:
    """Return the documents that are not a page's section: every glossary term, then every reference."""
    documents: list[SearchDocument] = []
    if glossary is not None:
        for key, (title, start, end) in find_definition_ranges(glossary.tokens).items():
            url = f"{glossary.output_name}#{key}"
            documents.append(SearchDocument(url, "term", title, "Glossary", url, read_plain_text(glossary.tokens[start:end])))
    for reference in references:
        url = f"references.html#{reference.key}"
        about = " ".join(
            part for part in (", ".join(reference.authors), str(reference.year), reference.venue, reference.note) if part
        )
        documents.append(SearchDocument(url, "reference", reference.title, f"References · {reference.short}", url, about))
    return tuple(documents)


@lru_cache(maxsize=8192)
def count_terms(text: str) -> tuple[int, tuple[tuple[str, int], ...]]:
    """Return MiniSearch's field length (distinct raw tokens) and each processed term's count, in first-seen order."""
    tokens = tokenise(text)
    counts = Counter(filter(None, map(process_term, tokens)))  # counted in C, in first-seen order
    return len(set(tokens)), tuple(counts.items())


# What one document adds to the index: per field, its length and its terms' counts (count_terms).
DocumentTerms = tuple[tuple[int, tuple[tuple[str, int], ...]], ...]


@dataclass(eq=False)
class IndexState:
    """An index in the making, kept between writes so that an edit patches it instead of counting every document again.

    `postings` is MiniSearch's index: term → field → document → count, each
    level in the order MiniSearch's addAll inserts it (documents in order, then
    fields, then terms in first-seen order). `first` says where each term was
    first seen, (document, field, rank), which is its place in the index's
    term order; `entries` holds each term's JSON and `stored` each
    document's stored fields, ready to splice as bytes.
    """

    documents: list[SearchDocument]
    terms: list[DocumentTerms]
    postings: dict[str, dict[int, dict[int, int]]]
    first: dict[str, tuple[int, int, int]]
    order: list[str]
    entries: dict[str, bytes]
    stored: list[bytes]


# The last index written, for the next write to patch: the dev server writes the whole index after every edit, and
# an edit changes a few of its thousand documents. Taken out while a patch runs, so a failed one is never reused.
_LAST_INDEX: Slot[IndexState] = SESSION.keep("search index", Slot())
# Patching pays while few documents changed; past this share, counting everything again is as quick.
PATCH_LIMIT = 0.25


def write_search_index(documents: Sequence[SearchDocument]) -> bytes:
    """Return the index as MiniSearch's toJSON() would write it after addAll(documents) with our options.

    The bytes are the same whether the index was counted afresh or patched
    from the last one (tests/site/render/test_search_index_patch.py).
    """
    state, _LAST_INDEX.value = _LAST_INDEX.value, None
    if state is None or not patch_index(state, documents):
        state = index_documents(documents)
    _LAST_INDEX.value = state
    return encode_index(state)


def prepare_documents(documents: Iterable[SearchDocument]) -> None:
    """Count the documents' terms and encode their stored fields now: both are remembered, so an index of them later
    finds that part done (a copy of the build does this while it waits for the rest of the documents: beside.py)."""
    for document in documents:
        list_terms(document)
        encode_stored_fields(document)


def list_terms(document: SearchDocument) -> DocumentTerms:
    """Return what a document adds to the index: each field's length and term counts."""
    return tuple(count_terms(getattr(document, field)) for field in FIELDS)


def index_documents(documents: Sequence[SearchDocument]) -> IndexState:
    """Return the index of these documents, counted afresh."""
    terms = [list_terms(document) for document in documents]
    postings: dict[str, dict[int, dict[int, int]]] = {}
    first: dict[str, tuple[int, int, int]] = {}
    for short_id, fields in enumerate(terms):
        for field_id, (_length, counts) in enumerate(fields):
            for rank, (term, count) in enumerate(counts):
                by_field = postings.get(term)
                if by_field is None:
                    postings[term] = {field_id: {short_id: count}}
                    first[term] = (short_id, field_id, rank)
                elif field_id in by_field:
                    by_field[field_id][short_id] = count
                else:
                    by_field[field_id] = {short_id: count}
    order = list(postings)
    entries = {term: encode_entry(term, postings[term]) for term in order}
    stored = [encode_stored(short_id, document) for short_id, document in enumerate(documents)]
    return IndexState(list(documents), terms, postings, first, order, entries, stored)


def patch_index(state: IndexState, documents: Sequence[SearchDocument]) -> bool:
    """Bring `state` to these documents in place, if only a few changed in place; say whether it did.

    A document added or removed shifts every later short id: that is counted afresh.
    """
    if len(documents) != len(state.documents):
        return False
    changed = [
        short_id
        for short_id, (old, new) in enumerate(zip(state.documents, documents, strict=True))
        if old is not new and old != new
    ]
    if len(changed) > PATCH_LIMIT * len(documents):
        return False
    seen: set[str] = set()  # every term of a changed document, old or new: its first use may have moved
    recount: set[str] = set()  # the terms whose postings changed: their entries are encoded again
    for short_id in changed:
        old_counts = list_counts(state.terms[short_id])
        new_terms = list_terms(documents[short_id])
        new_counts = list_counts(new_terms)
        for field_id, term in old_counts.keys() - new_counts.keys():
            by_field = state.postings[term]
            del by_field[field_id][short_id]
            if not by_field[field_id]:
                del by_field[field_id]
            recount.add(term)
        for (field_id, term), count in new_counts.items():
            by_field = state.postings.setdefault(term, {})
            by_document = by_field.setdefault(field_id, {})
            if by_document.get(short_id) == count:
                continue
            in_order = short_id in by_document or not by_document or short_id > next(reversed(by_document))
            by_document[short_id] = count
            if not in_order:  # MiniSearch would have met this document before the later ones
                by_field[field_id] = dict(sorted(by_document.items()))
            recount.add(term)
        seen.update(term for _field_id, term in old_counts)
        seen.update(term for _field_id, term in new_counts)
        state.terms[short_id] = new_terms
        state.documents[short_id] = documents[short_id]
        state.stored[short_id] = encode_stored(short_id, documents[short_id])
    reorder = False
    for term in sorted(seen):
        by_field = state.postings[term]
        if not by_field:
            del state.postings[term], state.first[term], state.entries[term]
            reorder = True
            continue
        if term in recount:
            # Fields in the order MiniSearch first met them: by the first document that has the term in each.
            by_field = dict(sorted(by_field.items(), key=lambda item: (next(iter(item[1])), item[0])))
            state.postings[term] = by_field
            state.entries[term] = encode_entry(term, by_field)
        first = find_first_use(state.terms, term, by_field)
        if state.first.get(term) != first:
            state.first[term] = first
            reorder = True
    if reorder:
        state.order = sorted(state.postings, key=state.first.__getitem__)
    return True


def list_counts(terms: DocumentTerms) -> dict[tuple[int, str], int]:
    """Return a document's term counts keyed by (field, term)."""
    return {(field_id, term): count for field_id, (_length, counts) in enumerate(terms) for term, count in counts}


def find_first_use(terms: list[DocumentTerms], term: str, by_field: dict[int, dict[int, int]]) -> tuple[int, int, int]:
    """Return (document, field, rank) of the term's first occurrence, MiniSearch's order of insertion."""
    short_id, field_id = min((next(iter(by_document)), field_id) for field_id, by_document in by_field.items())
    counts = terms[short_id][field_id][1]
    return short_id, field_id, next(rank for rank, (name, _count) in enumerate(counts) if name == term)


def encode_entry(term: str, by_field: dict[int, dict[int, int]]) -> bytes:
    """Return one term's entry of the index's JSON: [term, {field: {document: count}}]."""
    return encode_json([term, {FIELD_KEYS[field_id]: by_document for field_id, by_document in by_field.items()}]).encode()


def encode_stored(short_id: int, document: SearchDocument) -> bytes:
    """Return one document's entry of the stored fields' JSON: "short id": {field: value}."""
    return f'"{short_id}":{encode_stored_fields(document)}'.encode()


def encode_index(state: IndexState) -> bytes:
    """Return the JSON of an index, as json.dumps would write MiniSearch's toJSON() object."""
    documents = state.documents
    field_length: dict[str, list[int]] = {}
    average = [0.0] * len(FIELDS)
    for short_id, fields in enumerate(state.terms):
        lengths = [length for length, _counts in fields]
        for field_id, length in enumerate(lengths):
            # MiniSearch keeps a running mean; the same operations in the same order give the same double.
            average[field_id] = (average[field_id] * short_id + length) / (short_id + 1)
        field_length[str(short_id)] = lengths
    before = {
        "documentCount": len(documents),
        "nextId": len(documents),
        "documentIds": {str(short_id): document.id for short_id, document in enumerate(documents)},
        "fieldIds": {field: field_id for field_id, field in enumerate(FIELDS)},
        "fieldLength": field_length,
        "averageFieldLength": [int(value) if value.is_integer() else value for value in average],
    }
    # The whole object's JSON, spliced from its parts: the stored fields (most of the bytes: every section's
    # text) and the index, from each document's and each term's JSON, kept as bytes between writes.
    return b"".join(
        (
            encode_json(before)[:-1].encode(),
            b',"storedFields":{',
            b",".join(state.stored),
            b'},"dirtCount":0,"index":[',
            b",".join([state.entries[term] for term in state.order]),
            b'],"serializationVersion":2}',
        )
    )


def encode_json(value: object) -> str:
    """Return the index's JSON for a value: compact, characters as they are (not \\u escapes)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# Remembered: when the dev server counts the index afresh (a section added or
# removed), nearly every document is one it encoded before.
@lru_cache(maxsize=16384)
def encode_stored_fields(document: SearchDocument) -> str:
    """Return the JSON of the fields a search result shows, in STORED_FIELDS order."""
    return encode_json({field: getattr(document, field) for field in STORED_FIELDS})
