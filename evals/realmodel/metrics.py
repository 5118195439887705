"""vLLM's Prometheus ``/metrics``: parse counters and compute the prefix-cache hit rate.

The hit rate of a run is measured between two snapshots (before and after), so whatever the server
served earlier does not count. vLLM has named the counters ``vllm:prefix_cache_{hits,queries}``
(exposed with ``_total``) and, in earlier releases, ``vllm:gpu_prefix_cache_{hits,queries}``;
all are accepted and summed over label sets (one per served model).
"""

from __future__ import annotations

import math
import re
import urllib.error
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

HITS = ("vllm:prefix_cache_hits", "vllm:gpu_prefix_cache_hits")
QUERIES = ("vllm:prefix_cache_queries", "vllm:gpu_prefix_cache_queries")

_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)(?:\s+\S+)?$")
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"')


@dataclass(frozen=True)
class Sample:
    name: str
    labels: dict[str, str]
    value: float


@dataclass
class Snapshot:
    """All samples of one scrape, by metric name."""

    samples: dict[str, list[Sample]] = field(default_factory=dict)
    error: str | None = None
    """Why the scrape failed (then ``samples`` is empty)."""

    def total(self, names: Iterable[str], labels: dict[str, str] | None = None) -> float | None:
        """Sum of the first of ``names`` present (with or without ``_total``) over the label sets
        that carry ``labels``; ``None`` when none is present."""
        for base in names:
            for name in (base + "_total", base):
                found = [s for s in self.samples.get(name, [])
                         if all(s.labels.get(k) == v for k, v in (labels or {}).items())]
                if found:
                    return sum(s.value for s in found)
        return None


def _unescape(value: str) -> str:
    return value.replace(r"\"", '"').replace(r"\n", "\n").replace("\\\\", "\\")


def parse_exposition(text: str) -> Snapshot:
    """Parse the Prometheus text format (comments skipped, malformed lines ignored)."""
    snap = Snapshot()
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = _SAMPLE.match(line)
        if not m:
            continue
        name, raw_labels, raw_value = m.groups()
        try:
            value = float(raw_value)
        except ValueError:
            continue
        labels = {k: _unescape(v) for k, v in _LABEL.findall(raw_labels or "")}
        snap.samples.setdefault(name, []).append(Sample(name, labels, value))
    return snap


def metrics_url(base_url: str) -> str:
    """``<root>/metrics`` for a base URL given with or without ``/v1``."""
    root = base_url.strip().rstrip("/")
    root = re.sub(r"/v\d+$", "", root)
    return root if root.endswith("/metrics") else root + "/metrics"


def scrape(base_url: str, timeout_s: float = 10.0) -> Snapshot:
    """One snapshot of ``<base>/metrics``; a failed scrape is a snapshot with ``error`` set."""
    url = metrics_url(base_url)
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as resp:
            return parse_exposition(resp.read().decode("utf-8", errors="replace"))
    except urllib.error.HTTPError as e:
        return Snapshot(error=f"{url}: HTTP {e.code}")
    except (urllib.error.URLError, TimeoutError, ConnectionError, ValueError) as e:
        return Snapshot(error=f"{url}: {getattr(e, 'reason', e)}")


@dataclass(frozen=True)
class HitRate:
    value: float | None
    """Hits / queries between the snapshots (0..1); ``None`` when it cannot be computed."""
    hits: float | None = None
    queries: float | None = None
    reason: str | None = None
    """Why ``value`` is ``None``."""


def prefix_cache_hit_rate(before: Snapshot, after: Snapshot,
                          labels: dict[str, str] | None = None) -> HitRate:
    """``(hits_after - hits_before) / (queries_after - queries_before)``, optionally restricted to
    label sets such as ``{"model_name": "..."}``."""
    for label, snap in (("before", before), ("after", after)):
        if snap.error:
            return HitRate(None, reason=f"{label} snapshot failed: {snap.error}")
    values = {}
    for label, snap in (("before", before), ("after", after)):
        for what, names in (("hits", HITS), ("queries", QUERIES)):
            v = snap.total(names, labels)
            if v is None:
                where = f" with labels {labels}" if labels else ""
                return HitRate(None, reason=f"{label} snapshot has no {names[0]}_total{where} "
                                            f"(nor {names[1]}_total): not a vLLM server with "
                                            "prefix caching?")
            values[(label, what)] = v
    hits = values[("after", "hits")] - values[("before", "hits")]
    queries = values[("after", "queries")] - values[("before", "queries")]
    if queries < 0 or hits < 0:
        return HitRate(None, hits, queries, reason="counters went down: the server restarted "
                                                   "between the snapshots")
    if queries == 0:
        return HitRate(None, hits, queries, reason="no prefix-cache queries between the snapshots")
    rate = hits / queries
    return HitRate(rate if math.isfinite(rate) else None, hits, queries)


def _get(obj: Any, key: str) -> Any:
    if isinstance(obj, dict):
        return obj.get(key)
    return getattr(obj, key, None)


def cached_tokens(responses: Iterable[Any]) -> int:
    """Sum of ``usage.prompt_tokens_details.cached_tokens`` over OpenAI chat completions (dicts
    or SDK objects); responses without the field count 0."""
    total = 0
    for r in responses:
        details = _get(_get(r, "usage"), "prompt_tokens_details")
        total += int(_get(details, "cached_tokens") or 0)
    return total
