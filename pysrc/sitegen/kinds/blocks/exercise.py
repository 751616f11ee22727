"""`:::: exercise TITLE` with its one `::: answer` inside: a task, and its worked answer behind a disclosure.

A chapter also prints every answer at its end (for paper), so the answer
keeps its exercise's anchor and title. The printed copy carries no `id`: an
id inside an answer (the anchor of a chapter's first link to a glossary term,
say) belongs to the answer in the text, and a page holds each id once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from markupsafe import Markup

from sitegen.context import SiteContext
from sitegen.diagnostics import Diagnostic, report
from sitegen.kinds.blocks.base import Block, BlockKind, BlockStart
from sitegen.messages import (
    EXERCISE_TWO_ANSWERS,
    EXERCISE_WITHOUT_ANSWER,
)

DEFAULT_EXERCISE_TITLE = "Your turn"
# An id attribute in a start tag of the renderer's own HTML, whose attribute values escape <, > and ".
ID_ATTRIBUTE = re.compile(r'(<[A-Za-z][^<>]*?)\s+id="[^"]*"')


@dataclass(frozen=True)
class ExerciseData:
    """An exercise's anchor (exercise-N, numbered on its page) and title."""

    anchor: str
    title: str


@dataclass(frozen=True)
class AnswerData:
    """A worked answer, and the exercise it answers."""

    exercise_anchor: str
    exercise_title: str


@dataclass(frozen=True)
class PrintedAnswer:
    """An exercise's worked answer, repeated at the end of its chapter for print."""

    exercise_anchor: str
    exercise_title: str
    body: Markup


class ExerciseKind(BlockKind[ExerciseData]):
    """A task for the reader; it holds exactly one answer."""

    name = "exercise"
    partial = "partials/exercise.html"

    def check(self, start: BlockStart) -> ExerciseData:
        """Any words are the title; none gives the default one."""
        return ExerciseData(anchor=f"exercise-{start.number}", title=" ".join(start.arguments) or DEFAULT_EXERCISE_TITLE)

    def anchor(self, data: ExerciseData) -> str:
        """Return exercise-N."""
        return data.anchor

    def check_children(self, block: Block, children: Sequence[Block]) -> Iterable[Diagnostic]:
        """An exercise holds exactly one answer."""
        answers = [child for child in children if child.kind == AnswerKind.name]
        if not answers:
            yield report(block.location, EXERCISE_WITHOUT_ANSWER)
        for extra in answers[1:]:
            yield report(extra.location, EXERCISE_TWO_ANSWERS)

    def render_context(self, data: ExerciseData, body: Markup, site: SiteContext) -> Mapping[str, object]:
        """Return the anchor, the title and the task."""
        return {"anchor": data.anchor, "title": data.title, "body": body}


class AnswerKind(BlockKind[AnswerData]):
    """An exercise's worked answer."""

    name = "answer"
    partial = "partials/answer.html"
    parents = frozenset({ExerciseKind.name})

    def check(self, start: BlockStart) -> AnswerData:
        """Remember the exercise (`parents` made sure there is one)."""
        assert start.parent is not None and isinstance(start.parent.data, ExerciseData)
        return AnswerData(start.parent.data.anchor, start.parent.data.title)

    def render_context(self, data: AnswerData, body: Markup, site: SiteContext) -> Mapping[str, object]:
        """Return the answer."""
        return {"body": body}

    def page_context(self, blocks: Sequence[tuple[AnswerData, Markup]]) -> Mapping[str, object]:
        """Return the page's answers again, for the chapter's end in print (chapter.html), in reading order."""
        return {"answers": [PrintedAnswer(data.exercise_anchor, data.exercise_title, without_ids(body)) for data, body in blocks]}


def without_ids(body: Markup) -> Markup:
    """Return an answer's HTML with every id attribute taken out, for its printed copy."""
    return Markup(ID_ATTRIBUTE.sub(r"\1", str(body)))


EXERCISE = ExerciseKind()
ANSWER = AnswerKind()
