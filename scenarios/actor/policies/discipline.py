"""Work-discipline policies (seed 004's failure table): a model that repeats a known mistake
unless a recorded rule reaches it, and one that uses a skill only if it learns the skill exists.
(Premature victory is played by ``fix_on_feedback``: act, claim done, fix only when told.)"""

from __future__ import annotations

import re

from scenarios.actor.actions import Action, Answer, Read, Run
from scenarios.actor.policies.base import Params, policy
from scenarios.actor.policies.work import StepSpec, step_action, steps_done
from scenarios.actor.view import ActorView


def context_text(view: ActorView) -> str:
    """What the harness put in front of the model besides tool results: the system prompt and
    user messages (where context files, skill indexes and session state arrive)."""
    return "\n".join(m.content for m in view.messages if m.role in ("system", "user"))


class RulesParams(Params):
    steps: list[StepSpec]
    """The task, done in order."""
    mistake: StepSpec
    """The known mistake, made once before the steps unless the rule reached the model."""
    rule: str
    """Regex recognising the recorded rule in the system prompt or a user message."""
    final_answer: str = "Done."


@policy("repeat_known_mistake", RulesParams)
def repeat_known_mistake(view: ActorView, p: RulesParams) -> Action:
    """Make the mistake a previous session made (the model learns nothing between sessions)
    unless the rule recorded after that failure is in its context; then do the task."""
    plan = list(p.steps) if re.search(p.rule, context_text(view)) else [p.mistake, *p.steps]
    done = steps_done(view, plan, allow_errors=True)
    return step_action(plan[done]) if done < len(plan) else Answer(p.final_answer)


class SkillParams(Params):
    skill_path: str
    """Workspace path of the SKILL.md the task needs."""
    procedure: str = r"PROCEDURE:\s*`([^`]+)`"
    """Regex whose first group is the command the skill prescribes."""
    final_answer: str = "Done, following the skill's procedure."
    unknown_answer: str = "I do not know this team's procedure for that; please tell me how."


@policy("use_skill_on_demand", SkillParams)
def use_skill_on_demand(view: ActorView, p: SkillParams) -> Action:
    """Follow a skill's procedure: from its text if that is already in context, else read the
    file when an index names it; without either, ask (it cannot guess the procedure)."""
    texts = [context_text(view), *(e.result for e in view.exchanges())]
    found = next((m.group(1).strip() for t in texts if (m := re.search(p.procedure, t))), None)
    if found:
        return Run(found) if view.runs_of(found) == 0 else Answer(p.final_answer)
    if p.skill_path in context_text(view) and not view.has_read(p.skill_path):
        return Read(p.skill_path)
    return Answer(p.unknown_answer)
