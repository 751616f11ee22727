"""The dev server's search index is patched per edited document; the bytes must equal an index counted afresh."""

from __future__ import annotations

from dataclasses import replace

import pytest

from sitegen.render import search_index
from sitegen.render.search_index import SearchDocument, encode_index, index_documents, patch_index, write_search_index


def make_documents() -> list[SearchDocument]:
    texts = [
        "Rollouts sample a trajectory from the policy",
        "A reward scores the whole trajectory once it ends",
        "Temperature flattens or sharpens the policy before sampling",
        "The group mean is subtracted from every reward in the group",
        "Provenance says which policy produced each sample",
        "Collecting data is not learning until an update uses it",
    ]
    # Twelve documents, the six texts twice: patching pays only while few of them changed (PATCH_LIMIT).
    return [
        SearchDocument(f"{number:02}.html#s", "section", f"Section {number} title", "Chapter 1", f"{number:02}.html#s", text)
        for number, text in enumerate(texts + texts, start=1)
    ]


def edit_text(index: int, text: str):
    return lambda documents: [replace(d, text=text) if i == index else d for i, d in enumerate(documents)]


def edit_title(index: int, title: str):
    return lambda documents: [replace(d, title=title) if i == index else d for i, d in enumerate(documents)]


def rename(index: int, anchor: str):
    return lambda documents: [replace(d, id=anchor, url=anchor) if i == index else d for i, d in enumerate(documents)]


def both(*edits):
    def apply(documents):
        for edit in edits:
            documents = edit(documents)
        return documents

    return apply


# Each edit: (what it does, the edit, whether the index is patched rather than counted afresh).
EDITS = [
    ("a sentence added to a middle document", edit_text(2, "Temperature flattens the policy. A new sentence arrives"), True),
    ("a word's only use removed (the term leaves the index)", edit_text(4, "Provenance says which policy produced it"), True),
    ("a term first used later now used first", edit_text(0, "Learning from provenance: rollouts sample a trajectory"), True),
    ("a term's first use removed (its first use moves later)", edit_text(0, "Rollouts draw a path"), True),
    ("words reordered in the document that introduces them", edit_text(0, "trajectory policy the from a sample Rollouts"), True),
    ("a count changed in place", edit_text(3, "The group group group mean is subtracted from every reward"), True),
    ("a title changed (the other field)", edit_title(1, "Reward once the trajectory ends"), True),
    ("a term moves from text to title first", edit_title(5, "Update learning data"), True),
    ("an anchor renamed (a heading edit)", rename(3, "04.html#group-mean"), True),
    ("an empty text", edit_text(5, ""), True),
    ("two documents changed", both(edit_text(1, "Scores and rewards"), edit_text(4, "Sampling policy again")), True),
    ("most documents changed: counted afresh", lambda ds: [replace(d, text=d.text + " extra") for d in ds], False),
    ("a document added: counted afresh", lambda ds: [*ds, replace(ds[0], id="13.html", url="13.html")], False),
    ("a document removed: counted afresh", lambda ds: ds[:-1], False),
]


@pytest.mark.parametrize(("edit", "patched"), [(edit, patched) for _name, edit, patched in EDITS], ids=[e[0] for e in EDITS])
def test_a_patched_index_is_the_index_counted_afresh(edit, patched):
    before = make_documents()
    after = edit(before)
    state = index_documents(before)
    assert patch_index(state, after) is patched
    expected = encode_index(index_documents(after))
    if patched:
        assert encode_index(state) == expected
    # Through the entry point the build calls, after a write of the documents before.
    write_search_index(before)
    assert write_search_index(after) == expected


def test_edits_in_a_row_keep_the_index_exact():
    documents = make_documents()
    write_search_index(documents)
    for _name, edit, _patched in EDITS[:11]:
        documents = edit(documents)
        assert write_search_index(documents) == encode_index(index_documents(documents))


def test_a_patch_that_fails_leaves_no_index_behind(monkeypatch):
    documents = make_documents()
    write_search_index(documents)

    def broken(*_arguments):
        raise RuntimeError("broken patch")

    monkeypatch.setattr(search_index, "patch_index", broken)
    with pytest.raises(RuntimeError):
        write_search_index(edit_text(0, "changed")(documents))
    assert search_index._LAST_INDEX.value is None
