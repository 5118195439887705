"""The policy registry: ``@policy(name, Params)`` registers a pure function of the view."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from scenarios.actor.actions import Action
from scenarios.actor.view import ActorView


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class PolicyDef:
    name: str
    params_model: type[Params]
    fn: Callable[[ActorView, Any], Action]
    doc: str


POLICIES: dict[str, PolicyDef] = {}


def policy(name: str, params: type[Params]) -> Callable[[Callable[[ActorView, Any], Action]], Callable[[ActorView, Any], Action]]:
    def register(fn: Callable[[ActorView, Any], Action]) -> Callable[[ActorView, Any], Action]:
        POLICIES[name] = PolicyDef(name, params, fn, (fn.__doc__ or "").strip())
        return fn

    return register


def act(name: str, params: dict[str, Any], view: ActorView) -> Action:
    p = POLICIES[name]
    return p.fn(view, p.params_model.model_validate(params))


