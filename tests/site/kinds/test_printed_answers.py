"""A chapter's printed answers repeat each worked answer without its ids (kinds/blocks/exercise.py).

The answer in the text keeps them: the first link of a chapter to a glossary
term is the target of the glossary's "Used in" line wherever it stands, and
an answer is where it stood in chapters 4 and 7. A page holds each id once.
"""

from markupsafe import Markup

from sitegen.kinds.blocks.exercise import ANSWER, AnswerData

ANSWER_BODY = Markup(
    '<p>The <a id="use-softmax" class="term" href="glossary.html#softmax">softmax</a> turns'
    ' <span data-id="x">gaps</span> into <code>id="kept"</code>.</p>'
)


def test_the_printed_copy_has_no_id_and_keeps_everything_else():
    (printed,) = ANSWER.page_context([(AnswerData("exercise-1", "Predict first"), ANSWER_BODY)])["answers"]
    assert printed.body == Markup(
        '<p>The <a class="term" href="glossary.html#softmax">softmax</a> turns'
        ' <span data-id="x">gaps</span> into <code>id="kept"</code>.</p>'
    )
    assert (printed.exercise_anchor, printed.exercise_title) == ("exercise-1", "Predict first")
