"""What a cluster run is made of: shards, each one configuration × some scenarios, sized from
the cluster's CPUs. Pure data and arithmetic (no Ray, no inspect), so it is tested on its own."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

DOCKER_RESOURCE = "docker"
"""The Ray custom resource a node offers when it has a Docker engine for sandboxes
(``ray start --resources='{"docker": 1}'``). A shard asks for a sliver of it (``DOCKER_SHARE``):
the resource marks the nodes that may run shards; their CPUs decide how many run at once."""
DOCKER_SHARE = 0.001
WAVES = 2
"""Shards per CPU of the cluster, over the whole run: a node that finishes early takes another
shard instead of idling while a slow one ends, and a lost node loses at most one shard's work
per CPU."""
MIN_SHARD = 4
"""Fewest scenarios in a shard (unless there are fewer): every shard pays a fixed start (a fresh
worker process, inspect's start-up, the eval's own set-up; seconds, see docs/cluster.md), which
a shard of one or two samples would spend more on than on its samples."""


@dataclass(frozen=True)
class Shard:
    """One inspect eval of a cluster run: ``config`` over ``scenarios``."""

    index: int
    """Position in the run (stable: names the shard in messages and ``shards.jsonl``)."""
    config: str
    scenarios: tuple[str, ...]
    base_url: str = ""
    """The model's base URL for this shard ('' = the provider's own setting)."""
    proxy: str = ""
    """A real server behind a fault proxy per sample ('' = none): see ``looplab run --proxy``."""

    @property
    def name(self) -> str:
        """The Ray task's name; a running shard's worker process is titled ``ray::<name>``."""
        return f"looplab-shard-{self.index:03d}-{self.config}"


@dataclass(frozen=True)
class ShardRun:
    """What every shard of a run shares: the ``looplab run`` arguments that reach its eval."""

    model: str
    sandbox: str
    epochs: int
    max_samples: int
    """Samples (and sandboxes) at once within one shard."""
    fallbacks: str = ""
    env: dict[str, str] = field(default_factory=dict)
    """Environment set in the shard's worker before its eval starts (``forwarded_env``)."""


def shard_size(n_scenarios: int, n_configs: int, cpus: float, given: int | None = None) -> int:
    """Scenarios per shard: ``given`` (``--shard-size``), else as many as make ``WAVES`` shards
    per CPU over all configurations, but at least ``MIN_SHARD``."""
    if given is not None:
        return max(1, given)
    per_config = max(1, math.ceil(WAVES * max(cpus, 1) / max(n_configs, 1)))
    return min(n_scenarios, max(MIN_SHARD, math.ceil(n_scenarios / per_config))) or 1


def plan(configs: list[str], scenario_ids: list[str], size: int, *,
         base_urls: tuple[str, ...] = (), proxies: tuple[str, ...] = ()) -> list[Shard]:
    """The shards of a run, in submission order: configurations interleaved (the first given
    first: callers put the heaviest first), each configuration's scenarios dealt round-robin so
    that one shard does not get a whole family of slow ones. Shard ``i`` takes the ``i``-th base
    URL and proxy, round-robin, so several servers share the load."""
    n = max(1, math.ceil(len(scenario_ids) / max(size, 1)))
    chunks = [tuple(scenario_ids[j::n]) for j in range(n)]
    shards: list[Shard] = []
    for chunk in chunks:
        for config in configs:
            i = len(shards)
            shards.append(Shard(
                index=i, config=config, scenarios=chunk,
                base_url=base_urls[i % len(base_urls)] if base_urls else "",
                proxy=proxies[i % len(proxies)] if proxies else ""))
    return shards


FORWARDED_PREFIXES = ("LOOPLAB_", "INSPECT_")
FORWARDED_SUFFIXES = ("_BASE_URL", "_API_KEY")
FORWARDED_NAMES = ("LITELLM_LOCAL_MODEL_COST_MAP",)


def forwarded_env(environ: dict[str, str]) -> dict[str, str]:
    """The driver's variables a shard needs on its node: looplab's and inspect's settings
    (sandbox image, namespace, log level...) and model providers' base URLs and API keys. They
    travel in each Ray task's arguments (the cluster's dashboard can show them)."""
    return {k: v for k, v in environ.items()
            if k.startswith(FORWARDED_PREFIXES) or k.endswith(FORWARDED_SUFFIXES)
            or k in FORWARDED_NAMES}
