"""The token world: the toy task generated one token at a time (issue 37's table, exactly).

A state is the prefix generated so far. Each state offers options in a fixed
order, each with a made-up logit; the policy at temperature T is the softmax of
logit / T within a state. `<end>` and `.` end a rollout, and the text is the
tokens joined without `<end>`, so there are eight completions, two or four
tokens long. The first state's logits are the one-action world's on purpose:
its three answers are the first tokens here.
"""

from dataclasses import dataclass

END = "<end>"
# Choosing either of these ends the rollout: the stop token is an action like any other.
STOP_TOKENS = (END, ".")


@dataclass(frozen=True)
class TokenOption:
    """One token a state offers, with its made-up logit."""

    token: str
    logit: float


@dataclass(frozen=True)
class TokenState:
    """A prefix and the options offered after it, in the table's order."""

    prefix: str
    options: tuple[TokenOption, ...]


# The logits are invented for teaching; no model produced them. The start's
# are CANDIDATES' logits, in CANDIDATES' order ("The" stands for "The answer is 5.").
TOKEN_STATES: tuple[TokenState, ...] = (
    TokenState("", (TokenOption("5", 2.0), TokenOption("The", 1.2), TokenOption("6", 0.6))),
    TokenState("5", (TokenOption(END, 1.0), TokenOption(".", 0.0))),
    TokenState("6", (TokenOption(END, 1.0), TokenOption(".", 0.0))),
    TokenState("The", (TokenOption(" answer is", 0.0),)),
    TokenState("The answer is", (TokenOption(" 5", 1.0), TokenOption(" 6", -0.5))),
    TokenState("The answer is 5", (TokenOption(".", 1.0), TokenOption(END, 0.0))),
    TokenState("The answer is 6", (TokenOption(".", 1.0), TokenOption(END, 0.0))),
)
STATE_INDEX = {state.prefix: index for index, state in enumerate(TOKEN_STATES)}

# The longest completion's length in tokens, `<end>` counted ("The", " answer is", " 5", "<end>").
LONGEST_COMPLETION = 4

DEFAULT_TOKEN_LEARNING_RATE = 1.0
# "sequence_mean": w_i = 1/|o_i|, GRPO's per-completion average; "token_sum": w_i = 1/4, a
# constant (the longest completion), Dr. GRPO's fix for the length bias.
LENGTH_RULES = ("sequence_mean", "token_sum")
DEFAULT_LENGTH_RULE = "sequence_mean"


def extend_text(text: str, token: str) -> str:
    """Return the text after this token: `<end>` adds nothing, every other token its own characters."""
    return text if token == END else text + token


def score_text(text: str) -> float:
    """Return the toy verifier's reward: 1 for exactly "5"; 0.75 if the last digit is 5 but the text is not just "5"; else 0."""
    if text == "5":
        return 1.0
    digits = [character for character in text if character in "0123456789"]
    return 0.75 if digits and digits[-1] == "5" else 0.0


def list_paths() -> tuple[tuple[tuple[int, int], ...], ...]:
    """Return every completion as its (state index, option index) steps, depth first in the table's option order."""
    paths: list[tuple[tuple[int, int], ...]] = []

    def walk(text: str, steps: tuple[tuple[int, int], ...]) -> None:
        state_index = STATE_INDEX[text]
        for option_index, option in enumerate(TOKEN_STATES[state_index].options):
            taken = (*steps, (state_index, option_index))
            if option.token in STOP_TOKENS:
                paths.append(taken)
            else:
                walk(extend_text(text, option.token), taken)

    walk("", ())
    return tuple(paths)


def spell_path(path: tuple[tuple[int, int], ...]) -> tuple[str, ...]:
    """Return the tokens a path takes."""
    return tuple(TOKEN_STATES[state_index].options[option_index].token for state_index, option_index in path)


def join_tokens(tokens: tuple[str, ...]) -> str:
    """Return a rollout's text: its tokens joined, without `<end>`."""
    text = ""
    for token in tokens:
        text = extend_text(text, token)
    return text


COMPLETION_PATHS = list_paths()
