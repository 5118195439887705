"""Token budget kill switch and the run's cost line (seed 004 ``TokenBudget``).

Tracking token usage per run is the only way to stop a runaway session before it exhausts the
budget. The check runs between iterations (before each model call), so every tool call of the
last turn has its result before the run ends.

Source: seed 004, ``TokenBudget`` "max_input_per_session: kill switch".
"""

from __future__ import annotations

from harness.config import BudgetConfig
from harness.controls.base import Control
from harness.events import subsystem_logger
from harness.model import Usage
from harness.state import RunState

log = subsystem_logger("token-budget")


def cost_usd(usage: Usage, price_per_mtok_in: float, price_per_mtok_out: float) -> float:
    return (usage.input_tokens / 1_000_000 * price_per_mtok_in
            + usage.output_tokens / 1_000_000 * price_per_mtok_out)


def formatted_cost(usage: Usage, price_per_mtok_in: float, price_per_mtok_out: float) -> str:
    """``$0.0123 (1,234 input / 567 output tokens)``, as seed 004 writes it."""
    cost = cost_usd(usage, price_per_mtok_in, price_per_mtok_out)
    return (f"${cost:.4f} ({usage.input_tokens:,} input / "
            f"{usage.output_tokens:,} output tokens)")


def over_budget(run: RunState) -> tuple[str, str] | None:
    """``(limit, why)`` when the run's usage is over its token budget (the ``input_tokens`` and
    ``output_tokens`` rows of the limits table), else ``None``."""
    for name, used in (("input_tokens", run.usage.input_tokens), ("output_tokens", run.usage.output_tokens)):
        if run.reached(name, used):
            return name, f"{name.replace('_', ' ')} {used:,} > budget {int(run.limits[name].cap or 0):,}"
    return None


class TokenBudget(Control):
    name = "budget"

    def __init__(self, config: BudgetConfig) -> None:
        self.config = config

    def cost_line(self, run: RunState) -> str:
        return formatted_cost(run.usage, self.config.price_per_mtok_in,
                              self.config.price_per_mtok_out)

    async def before_model(self, run: RunState) -> None:
        over = over_budget(run)
        if over is None:
            return
        limit, reason = over
        line = self.cost_line(run)
        log.warning("token budget exceeded: %s; %s", reason, line)
        run.emit("budget.exceeded", reason=reason, cost=line)
        run.end(limit, f"token budget exceeded: {reason} ({line})")

    async def on_run_end(self, run: RunState, status: str, message: str) -> None:
        cfg = self.config
        run.emit(
            "budget.cost", line=self.cost_line(run),
            cost_usd=round(cost_usd(run.usage, cfg.price_per_mtok_in, cfg.price_per_mtok_out), 6),
            input_tokens=run.usage.input_tokens, output_tokens=run.usage.output_tokens,
            cached_tokens=run.usage.cached_tokens,
        )
