"""The scripted actor: plays the model's part in a scenario, reacting to what the harness sends.

Policies are pure functions of what the actor sees (``ActorView``) and return abstract actions;
``mapping`` turns an action into a reply using whatever tools the harness under test offers.
"""

from scenarios.actor.actions import Action
from scenarios.actor.mapping import to_reply
from scenarios.actor.policies import POLICIES, act
from scenarios.actor.view import ActorView

__all__ = ["Action", "ActorView", "POLICIES", "act", "to_reply"]
