"""The token world's table, texts and rewards are issue 37's, as written there."""

import pytest

from rollout_lab import CANDIDATES, LENGTH_RULES, TOKEN_STATES
from rollout_lab.tokens.world import COMPLETION_PATHS, END, STOP_TOKENS, extend_text, join_tokens, score_text, spell_path

# Issue 37's table, row by row: state (prefix), then its options' tokens and logits in order.
ISSUE_TABLE = [
    ("", [("5", 2.0), ("The", 1.2), ("6", 0.6)]),
    ("5", [("<end>", 1.0), (".", 0.0)]),
    ("6", [("<end>", 1.0), (".", 0.0)]),
    ("The", [(" answer is", 0.0)]),
    ("The answer is", [(" 5", 1.0), (" 6", -0.5)]),
    ("The answer is 5", [(".", 1.0), ("<end>", 0.0)]),
    ("The answer is 6", [(".", 1.0), ("<end>", 0.0)]),
]
EIGHT = ["5", "5.", "6", "6.", "The answer is 5", "The answer is 5.", "The answer is 6", "The answer is 6."]


def test_the_table_is_the_issues():
    assert [(s.prefix, [(o.token, o.logit) for o in s.options]) for s in TOKEN_STATES] == ISSUE_TABLE


def test_the_first_step_is_the_one_action_worlds():
    assert [o.logit for o in TOKEN_STATES[0].options] == [c.logit for c in CANDIDATES]
    # Each first token begins its one-action answer, in CANDIDATES' order.
    assert all(c.completion.startswith(o.token) for o, c in zip(TOKEN_STATES[0].options, CANDIDATES))


def test_end_and_full_stop_end_a_rollout():
    assert (END, STOP_TOKENS) == ("<end>", ("<end>", "."))


def test_there_are_eight_completions_two_or_four_tokens_long():
    texts = [join_tokens(spell_path(path)) for path in COMPLETION_PATHS]
    assert sorted(texts) == sorted(EIGHT)
    assert sorted({len(path) for path in COMPLETION_PATHS}) == [2, 4]
    for path in COMPLETION_PATHS:
        tokens = spell_path(path)
        assert tokens[-1] in STOP_TOKENS and not set(tokens[:-1]) & set(STOP_TOKENS)
        # The text is the tokens joined without <end>.
        assert join_tokens(tokens) == "".join(t for t in tokens if t != "<end>")


def test_every_state_is_reached_and_each_step_is_offered_by_the_prefix_so_far():
    reached = set()
    for path in COMPLETION_PATHS:
        text = ""
        for state_index, option_index in path:
            assert TOKEN_STATES[state_index].prefix == text
            reached.add(state_index)
            text = extend_text(text, TOKEN_STATES[state_index].options[option_index].token)
    assert reached == set(range(len(TOKEN_STATES)))


@pytest.mark.parametrize(
    ("text", "reward"),
    [
        ("5", 1.0),
        ("5.", 0.75),
        ("The answer is 5", 0.75),
        ("The answer is 5.", 0.75),
        ("6", 0.0),
        ("6.", 0.0),
        ("The answer is 6", 0.0),
        ("The answer is 6.", 0.0),
        # Beyond the eight: the rule reads the last digit, wherever it is.
        ("", 0.0),
        ("56", 0.0),
        ("65", 0.75),
        ("5 and 6", 0.0),
    ],
)
def test_the_reward_is_the_toy_verifiers(text, reward):
    assert score_text(text) == reward


def test_the_length_rules_are_the_issues():
    assert LENGTH_RULES == ("sequence_mean", "token_sum")
