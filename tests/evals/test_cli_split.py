"""``python -m evals run`` splits configurations over eval processes by estimated cost."""

from __future__ import annotations

from evals.runs import balanced_groups, cost_weight
from evals.task import configurations


def test_every_configuration_runs_exactly_once():
    groups = balanced_groups(configurations(), 2)
    assert sorted(c for g in groups for c in g) == sorted(configurations())
    assert len(groups) == 2


def test_the_two_heaviest_configurations_are_split_apart():
    heaviest = sorted(configurations(), key=cost_weight, reverse=True)[:2]
    groups = balanced_groups(configurations(), 2)
    assert not any(set(heaviest) <= set(g) for g in groups), groups


def test_loads_differ_by_at_most_the_heaviest_weight():
    groups = balanced_groups(configurations(), 2)
    loads = [sum(cost_weight(c) for c in g) for g in groups]
    assert abs(loads[0] - loads[1]) <= max(cost_weight(c) for c in configurations())


def test_more_processes_than_configurations_leaves_no_empty_group():
    assert balanced_groups(["naive", "looplab"], 4) == [["looplab"], ["naive"]]
