"""Named actor policies. Each is a pure function of the view and its validated parameters.

Scenarios pick a policy by name and parameterise it from YAML; behaviour a YAML file cannot
express goes here as a new policy (one module per family), never into a mini-language.
"""

from scenarios.actor.policies import (  # noqa: F401
    bench,
    context,
    contract,
    discipline,
    loop,
    orchestration,
    runtime,
    scheduling,
    security,
    sessions,
    variants,
    work,
)
from scenarios.actor.policies.base import POLICIES, Params, PolicyDef, act, policy

__all__ = ["POLICIES", "Params", "PolicyDef", "act", "policy"]
