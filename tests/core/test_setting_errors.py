"""Exact messages for every kind of bad setting, and what each check accepts.

The same text is shown next to the browser control and printed by the CLI,
so it is asserted character for character.
"""

import pytest

from rollout_lab import SettingError, check_group_size, check_seed, check_temperature, parse_rewards, run_lab

NAN = float("nan")
INF = float("inf")

TEMPERATURE = "temperature must be a number from 0.05 to 20, got "
GROUP_SIZE = "group size must be a whole number from 1 to 64, got "
SEED = "seed must be a whole number from 0 to 4294967295, got "
REWARDS = "rewards must be 1 to 64 numbers from -1000 to 1000, separated by commas, got "

# (check, value as given, message): one row per kind of bad input.
BAD_SETTINGS = [
    (check_temperature, 0, TEMPERATURE + "0"),
    (check_temperature, 0.0, TEMPERATURE + "0.0"),
    (check_temperature, -1, TEMPERATURE + "-1"),
    (check_temperature, "-1", TEMPERATURE + "-1"),
    (check_temperature, 0.049, TEMPERATURE + "0.049"),
    (check_temperature, "20.0001", TEMPERATURE + "20.0001"),
    (check_temperature, 21, TEMPERATURE + "21"),
    (check_temperature, NAN, TEMPERATURE + "nan"),
    (check_temperature, INF, TEMPERATURE + "inf"),
    (check_temperature, -INF, TEMPERATURE + "-inf"),
    (check_temperature, "nan", TEMPERATURE + "'nan'"),
    (check_temperature, "inf", TEMPERATURE + "'inf'"),
    (check_temperature, "1e999", TEMPERATURE + "1e999"),
    (check_temperature, "abc", TEMPERATURE + "'abc'"),
    (check_temperature, "", TEMPERATURE + "''"),
    (check_temperature, " ", TEMPERATURE + "' '"),
    (check_temperature, "1_0", TEMPERATURE + "'1_0'"),
    (check_temperature, "1,5", TEMPERATURE + "'1,5'"),
    (check_temperature, True, TEMPERATURE + "True"),
    (check_temperature, False, TEMPERATURE + "False"),
    (check_temperature, None, TEMPERATURE + "None"),
    (check_temperature, [1], TEMPERATURE + "[1]"),
    (check_temperature, 10**400, TEMPERATURE + "1" + "0" * 400),
    (check_group_size, 0, GROUP_SIZE + "0"),
    (check_group_size, -1, GROUP_SIZE + "-1"),
    (check_group_size, 65, GROUP_SIZE + "65"),
    (check_group_size, "65", GROUP_SIZE + "65"),
    (check_group_size, 2.5, GROUP_SIZE + "2.5"),
    (check_group_size, "2.5", GROUP_SIZE + "2.5"),
    (check_group_size, 6.0, GROUP_SIZE + "6.0"),
    (check_group_size, "1e1", GROUP_SIZE + "1e1"),
    (check_group_size, NAN, GROUP_SIZE + "nan"),
    (check_group_size, INF, GROUP_SIZE + "inf"),
    (check_group_size, "abc", GROUP_SIZE + "'abc'"),
    (check_group_size, "", GROUP_SIZE + "''"),
    (check_group_size, True, GROUP_SIZE + "True"),
    (check_group_size, None, GROUP_SIZE + "None"),
    (check_group_size, [6], GROUP_SIZE + "[6]"),
    (check_seed, -1, SEED + "-1"),
    (check_seed, 2**32, SEED + "4294967296"),
    (check_seed, "4294967296", SEED + "4294967296"),
    (check_seed, 2.5, SEED + "2.5"),
    (check_seed, 1.0, SEED + "1.0"),
    (check_seed, NAN, SEED + "nan"),
    (check_seed, "abc", SEED + "'abc'"),
    (check_seed, "", SEED + "''"),
    (check_seed, "1" * 31, SEED + "1" * 31),
    (check_seed, False, SEED + "False"),
    (check_seed, None, SEED + "None"),
    (check_seed, [0], SEED + "[0]"),
    (parse_rewards, "", REWARDS + "''"),
    (parse_rewards, "abc", REWARDS + "'abc'"),
    (parse_rewards, "1,,2", REWARDS + "'1,,2'"),
    (parse_rewards, "1,2,", REWARDS + "'1,2,'"),
    (parse_rewards, "1, nan", REWARDS + "'1, nan'"),
    (parse_rewards, "1;2", REWARDS + "'1;2'"),
    (parse_rewards, [], REWARDS + "[]"),
    (parse_rewards, [1, NAN], REWARDS + "[1, nan]"),
    (parse_rewards, [1, True], REWARDS + "[1, True]"),
    (parse_rewards, [1, None], REWARDS + "[1, None]"),
    (parse_rewards, ",".join(["1"] * 65), REWARDS + repr(",".join(["1"] * 65))),
    (parse_rewards, None, REWARDS + "None"),
    (parse_rewards, "1e30, 0", REWARDS + "'1e30, 0'"),
    (parse_rewards, "1000.0001", REWARDS + "1000.0001"),
    (parse_rewards, [-1001], REWARDS + "[-1001]"),
    (parse_rewards, [float("inf")], REWARDS + "[inf]"),
    (parse_rewards, 1, REWARDS + "1"),
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
        (("abc", 0, -1), "temperature", TEMPERATURE + "'abc'"),  # the first bad setting is named
        ((1, 0, -1), "group_size", GROUP_SIZE + "0"),
        ((1, 6, -1), "seed", SEED + "-1"),
        (("1", "6", "4294967296"), "seed", SEED + "4294967296"),
    ],
)
def test_run_lab_names_the_first_bad_setting(settings, field, message):
    with pytest.raises(SettingError) as raised:
        run_lab(*settings)
    assert (raised.value.field, str(raised.value)) == (field, message)


def test_settings_as_typed_give_the_same_record_as_numbers():
    assert run_lab(" 1 ", "6", "20260903") == run_lab(1.0, 6, 20260903) == run_lab()
