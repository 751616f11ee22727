"""Exact messages for every kind of bad setting, and what each check accepts.

The same text is shown next to the browser control and printed by the CLI,
so it is asserted character for character. It is written for readers: the
rule first, then what was wrong with the value given.
"""

import pytest

from rollout_lab import SettingError, check_group_size, check_seed, check_temperature, parse_rewards, run_lab

NAN = float("nan")
INF = float("inf")

TEMPERATURE = "Temperature must be a number from 0.05 to 20; "
GROUP_SIZE = "Group size must be a whole number from 1 to 64; "
SEED = "Seed must be a whole number from 0 to 4294967295; "
REWARDS = "Rewards must be 1 to 64 numbers from \u22121000 to 1000, separated by commas; "
EMPTY = "nothing was entered"

# (check, value as given, message): one row per kind of bad input. Text is
# quoted (“abc”), a number is shown as typed, and the reason is one of: nothing
# was entered, not a number, too low, too high, not a whole number.
BAD_SETTINGS = [
    (check_temperature, 0, TEMPERATURE + "0 is too low"),
    (check_temperature, 0.0, TEMPERATURE + "0.0 is too low"),
    (check_temperature, -1, TEMPERATURE + "\u22121 is too low"),
    (check_temperature, "-1", TEMPERATURE + "\u22121 is too low"),
    (check_temperature, 0.049, TEMPERATURE + "0.049 is too low"),
    (check_temperature, "20.0001", TEMPERATURE + "20.0001 is too high"),
    (check_temperature, 21, TEMPERATURE + "21 is too high"),
    (check_temperature, NAN, TEMPERATURE + "nan is not a number"),
    (check_temperature, INF, TEMPERATURE + "inf is too high"),
    (check_temperature, -INF, TEMPERATURE + "\u2212inf is too low"),
    (check_temperature, "nan", TEMPERATURE + "\u201cnan\u201d is not a number"),
    (check_temperature, "inf", TEMPERATURE + "\u201cinf\u201d is not a number"),
    (check_temperature, "1e999", TEMPERATURE + "1e999 is too high"),
    (check_temperature, "abc", TEMPERATURE + "\u201cabc\u201d is not a number"),
    (check_temperature, "", TEMPERATURE + EMPTY),
    (check_temperature, " ", TEMPERATURE + EMPTY),
    (check_temperature, "1_0", TEMPERATURE + "\u201c1_0\u201d is not a number"),
    # A decimal comma gets a hint (the reader review's 0,5); in a whole-number field 1,000 was not a decimal.
    (check_temperature, "1,5", TEMPERATURE + "\u201c1,5\u201d is not a number (type a point: 1.5)"),
    (check_temperature, "0,5", TEMPERATURE + "\u201c0,5\u201d is not a number (type a point: 0.5)"),
    (check_temperature, "-0,5", TEMPERATURE + "\u201c-0,5\u201d is not a number (type a point: \u22120.5)"),
    (check_temperature, "1,2,3", TEMPERATURE + "\u201c1,2,3\u201d is not a number"),
    (check_group_size, "1,000", GROUP_SIZE + "\u201c1,000\u201d is not a number"),
    (check_temperature, True, TEMPERATURE + "True is not a number"),
    (check_temperature, False, TEMPERATURE + "False is not a number"),
    (check_temperature, None, TEMPERATURE + "None is not a number"),
    (check_temperature, [1], TEMPERATURE + "[1] is not a number"),
    (check_temperature, 10**400, TEMPERATURE + "1" + "0" * 38 + "\u2026 is too high"),  # cut to 40 (issue 42)
    (check_group_size, 0, GROUP_SIZE + "0 is too low"),
    (check_group_size, -1, GROUP_SIZE + "\u22121 is too low"),
    (check_group_size, 65, GROUP_SIZE + "65 is too high"),
    (check_group_size, "65", GROUP_SIZE + "65 is too high"),
    (check_group_size, 2.5, GROUP_SIZE + "2.5 is not a whole number"),
    (check_group_size, "2.5", GROUP_SIZE + "2.5 is not a whole number"),
    (check_group_size, 6.0, GROUP_SIZE + "6.0 is not a whole number"),
    (check_group_size, "1e1", GROUP_SIZE + "1e1 is not a whole number"),
    (check_group_size, "64.5", GROUP_SIZE + "64.5 is too high"),
    (check_group_size, NAN, GROUP_SIZE + "nan is not a number"),
    (check_group_size, INF, GROUP_SIZE + "inf is too high"),
    (check_group_size, "abc", GROUP_SIZE + "\u201cabc\u201d is not a number"),
    (check_group_size, "", GROUP_SIZE + EMPTY),
    (check_group_size, True, GROUP_SIZE + "True is not a number"),
    (check_group_size, None, GROUP_SIZE + "None is not a number"),
    (check_group_size, [6], GROUP_SIZE + "[6] is not a number"),
    (check_seed, -1, SEED + "\u22121 is too low"),
    (check_seed, 2**32, SEED + "4294967296 is too high"),
    (check_seed, "4294967296", SEED + "4294967296 is too high"),
    (check_seed, 2.5, SEED + "2.5 is not a whole number"),
    (check_seed, 1.0, SEED + "1.0 is not a whole number"),
    (check_seed, NAN, SEED + "nan is not a number"),
    (check_seed, "abc", SEED + "\u201cabc\u201d is not a number"),
    (check_seed, "", SEED + EMPTY),
    (check_seed, "1" * 31, SEED + "1" * 31 + " is too high"),
    (check_seed, False, SEED + "False is not a number"),
    (check_seed, None, SEED + "None is not a number"),
    (check_seed, [0], SEED + "[0] is not a number"),
    (parse_rewards, "", REWARDS + EMPTY),
    (parse_rewards, "abc", REWARDS + "\u201cabc\u201d is not a number"),
    (parse_rewards, "1,,2", REWARDS + "\u201c1,,2\u201d has an empty entry"),
    (parse_rewards, "1,2,", REWARDS + "\u201c1,2,\u201d has an empty entry"),
    (parse_rewards, "1, nan", REWARDS + "\u201cnan\u201d is not a number"),
    (parse_rewards, "1;2", REWARDS + "\u201c1;2\u201d is not a number"),
    (parse_rewards, [], REWARDS + "0 numbers were entered"),
    (parse_rewards, [1, NAN], REWARDS + "nan is not a number"),
    (parse_rewards, [1, True], REWARDS + "True is not a number"),
    (parse_rewards, [1, None], REWARDS + "None is not a number"),
    (parse_rewards, ",".join(["1"] * 65), REWARDS + "65 numbers were entered"),
    (parse_rewards, None, REWARDS + "None is not a list of numbers"),
    (parse_rewards, "1e30, 0", REWARDS + "1e30 is too high"),
    (parse_rewards, "1000.0001", REWARDS + "1000.0001 is too high"),
    (parse_rewards, [-1001], REWARDS + "\u22121001 is too low"),
    (parse_rewards, [float("inf")], REWARDS + "inf is too high"),
    (parse_rewards, 1, REWARDS + "1 is not a list of numbers"),
    # A value is shown cut to 40 characters, as the build's messages show one: never 100,000 pasted characters.
    (check_temperature, "x" * 100_000, TEMPERATURE + "\u201c" + "x" * 39 + "\u2026\u201d is not a number"),
    (check_temperature, "9" * 100_000, TEMPERATURE + "9" * 39 + "\u2026 is too high"),
    (check_seed, 10**100, SEED + "1" + "0" * 38 + "\u2026 is too high"),
    (
        check_temperature,
        "1," + "5" * 100_000,
        TEMPERATURE + "\u201c1," + "5" * 37 + "\u2026\u201d is not a number (type a point: 1." + "5" * 37 + "\u2026)",
    ),
    (parse_rewards, "1,2,x" + "y" * 100_000, REWARDS + "\u201cx" + "y" * 38 + "\u2026\u201d is not a number"),
]

FIELDS = {check_temperature: "temperature", check_group_size: "group_size", check_seed: "seed", parse_rewards: "rewards"}


def name_case(case) -> str:
    check, value, _ = case
    return f"{check.__name__}({value!r:.30})"


@pytest.mark.parametrize(("check", "value", "message"), BAD_SETTINGS, ids=map(name_case, BAD_SETTINGS))
def test_bad_setting_message(check, value, message):
    with pytest.raises(SettingError) as raised:
        check(value)
    assert str(raised.value) == message
    assert raised.value.field == FIELDS[check]
    assert isinstance(raised.value, ValueError)


GOOD_SETTINGS = [
    (check_temperature, 0.05, 0.05),
    (check_temperature, "0.05", 0.05),
    (check_temperature, 20, 20.0),
    (check_temperature, "20", 20.0),
    (check_temperature, " 1.5 ", 1.5),
    (check_temperature, ".5", 0.5),
    (check_temperature, "2.", 2.0),
    (check_temperature, "+1", 1.0),
    (check_temperature, "5e-1", 0.5),
    (check_group_size, 1, 1),
    (check_group_size, "64", 64),
    (check_group_size, " 6 ", 6),
    (check_group_size, "+6", 6),
    (check_seed, 0, 0),
    (check_seed, "-0", 0),
    (check_seed, 2**32 - 1, 4294967295),
    (check_seed, "4294967295", 4294967295),
    (check_seed, "00020260903", 20260903),
    (parse_rewards, "1, 0.75 ,0,1", (1.0, 0.75, 0.0, 1.0)),
    (parse_rewards, [1, 0.75, 0, 1], (1.0, 0.75, 0.0, 1.0)),
    (parse_rewards, ("-2", "1e-3"), (-2.0, 0.001)),
    (parse_rewards, ",".join(["1"] * 64), (1.0,) * 64),
    (parse_rewards, "-1000, 1000", (-1000.0, 1000.0)),
]


@pytest.mark.parametrize(("check", "value", "checked"), GOOD_SETTINGS, ids=map(name_case, GOOD_SETTINGS))
def test_good_setting_is_normalised(check, value, checked):
    result = check(value)
    assert result == checked and type(result) is type(checked)


@pytest.mark.parametrize(
    ("settings", "field", "message"),
    [
        (("abc", 0, -1), "temperature", TEMPERATURE + "\u201cabc\u201d is not a number"),  # the first bad setting is named
        ((1, 0, -1), "group_size", GROUP_SIZE + "0 is too low"),
        ((1, 6, -1), "seed", SEED + "\u22121 is too low"),
        (("1", "6", "4294967296"), "seed", SEED + "4294967296 is too high"),
    ],
)
def test_run_lab_names_the_first_bad_setting(settings, field, message):
    with pytest.raises(SettingError) as raised:
        run_lab(*settings)
    assert (raised.value.field, str(raised.value)) == (field, message)


def test_settings_as_typed_give_the_same_record_as_numbers():
    assert run_lab(" 1 ", "6", "20260903") == run_lab(1.0, 6, 20260903) == run_lab()
