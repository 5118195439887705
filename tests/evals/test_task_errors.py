"""Bad input gets a clear error naming the argument and the valid values."""

import subprocess
import sys

import pytest

from evals.task import looplab_suite, parse_overrides


def test_unknown_preset_names_the_valid_ones():
    with pytest.raises(ValueError, match=r"config.*naive.*looplab|config.*looplab"):
        looplab_suite(config="nope", sandbox="local")


def test_unknown_scenario_names_the_valid_ones():
    with pytest.raises(ValueError, match="loop-repeat-failing-command"):
        looplab_suite(scenarios="nope", sandbox="local")


def test_unknown_sandbox():
    with pytest.raises(ValueError, match="docker, k8s, local"):
        looplab_suite(sandbox="vm")


def test_bad_override_names_the_field():
    with pytest.raises(ValueError, match="overrides"):
        looplab_suite(sandbox="local", overrides="loop_detection.enabled=maybe")
    with pytest.raises(ValueError, match="not key=value"):
        parse_overrides("loop_detection")


def test_overrides_parse_nested_values():
    assert parse_overrides("a.b=false, c=3") == {"a": {"b": False}, "c": 3}


def test_cli_rejects_unknown_configuration():
    res = subprocess.run([sys.executable, "-m", "evals", "run", "--configs", "nope", "--sandbox", "local"],
                         capture_output=True, text=True)
    assert res.returncode == 2
    assert "unknown configuration" in res.stderr and "looplab" in res.stderr


def test_cli_list_shows_scenarios_and_configurations():
    res = subprocess.run([sys.executable, "-m", "evals", "list"], capture_output=True, text=True)
    assert res.returncode == 0
    assert "provider-quota-fallback" in res.stdout and "naive" in res.stdout
