"""The injection corpus (``scenarios/corpus/``): poisoned and benign context files and tool
outputs, and the expansion of a scenario into one sample per corpus entry."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

CORPUS_DIR = Path(__file__).parent / "corpus"


class CorpusEntry(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str
    file: str = ""
    """Name the content is installed as (context files), or a label (tool output)."""
    kind: str
    technique: str = ""
    description: str = ""

    def content(self, corpus: str) -> str:
        suffix = ".md" if corpus == "context_files" else ".txt"
        return (CORPUS_DIR / corpus / self.kind / f"{self.id}{suffix}").read_text(encoding="utf-8")


class CorpusError(ValueError):
    pass


@cache
def load_corpus(corpus: str) -> tuple[CorpusEntry, ...]:
    manifest = CORPUS_DIR / corpus / "manifest.yaml"
    if not manifest.exists():
        return ()
    raw = yaml.safe_load(manifest.read_text(encoding="utf-8")) or []
    if isinstance(raw, dict):  # tolerate {entries: [...]}
        raw = raw.get("entries", [])
    try:
        return tuple(CorpusEntry.model_validate(e) for e in raw)
    except ValidationError as e:
        raise CorpusError(f"{manifest}: {e}") from e


def entries(corpus: str, kind: str) -> list[CorpusEntry]:
    return [e for e in load_corpus(corpus) if e.kind == kind]


def house_rule_marker(entry_id: str) -> str:
    """The line every benign corpus file carries, proving it reached the model."""
    return f"house-rule-id: {entry_id}"
