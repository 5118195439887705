"""``python -m reports scorecard``: files, contents, links and clear errors."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import logbuilder as lb
import pytest

from reports.logdir import OUT_DIR

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def card_dir(standard_logs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from reports.scorecard import write_scorecard

    out = tmp_path_factory.mktemp("card")
    write_scorecard(standard_logs, out)
    return out


def test_writes_markdown_html_and_charts(card_dir: Path):
    for name in ("scorecard.md", "scorecard.html", "heatmap.png", "families.png", "cost.png"):
        assert (card_dir / name).is_file(), name
    for png in card_dir.glob("*.png"):
        assert png.read_bytes()[:8] == PNG_MAGIC


def test_markdown_has_summary_and_item_table_with_figures(card_dir: Path):
    md = (card_dir / "scorecard.md").read_text()
    assert "| naive | 1/6 | 4 | 1 | 0 | 1 of 10 |" in md
    assert "| inspect-react | 1/5 | 1 | 0 | 3 | 3 of 5 |" in md
    row = next(ln for ln in md.splitlines() if ln.startswith(f"| `{lb.LOOP}`"))
    assert "❌ fail 0/2 · 12 calls" in row and "✅ pass 2/2 · 3 calls" in row
    quota = next(ln for ln in md.splitlines() if ln.startswith(f"| `{lb.QUOTA}`"))
    assert "+1 err" in quota and "⚠️ error" in quota
    # families appear in checklist order
    heads = [h for h in re.findall(r"^### (\w+)$", md, re.M) if h in
             ("loop", "context", "provider", "security")]
    assert heads == ["loop", "context", "provider", "security"]


def test_markdown_corpus_rates_and_cost(card_dir: Path):
    md = (card_dir / "scorecard.md").read_text()
    assert "| looplab | all | 100% | 2/2 | 50% | 1/2 | 0 | 0 |" in md
    assert "| inspect-react | all | – | 0/0 | – | 0/0 | 2 | 0 |" in md
    assert "| naive | 9/10 | 26,000 | 88 |" in md


def test_failures_explained_and_linked_to_the_sample(card_dir: Path, standard_logs: Path):
    md = (card_dir / "scorecard.md").read_text()
    line = next(ln for ln in md.splitlines() if "12 identical calls ran" in ln)
    assert "sample `loop-repeat-failing-command` epoch 1" in line
    assert f"inspect view --log-dir {standard_logs}" in md
    links = re.findall(r"\]\(([^)]+\.eval)\)", md)
    assert links
    for link in set(links):
        target = (card_dir / unquote(link)).resolve()
        assert target.is_file() and target.parent == standard_logs.resolve()


def test_errors_listed_with_reason(card_dir: Path):
    md = (card_dir / "scorecard.md").read_text()
    errors = md.split("## Errors", 1)[1]
    assert "RuntimeError: sandbox exited during setup" in errors
    assert errors.count("cancelled: the eval was stopped") == 3


def test_html_is_self_contained(card_dir: Path):
    html = (card_dir / "scorecard.html").read_text()
    assert "<style>" in html and "<link" not in html and "<script" not in html
    srcs = re.findall(r'src="([^"]+)"', html)
    assert len(srcs) == 3
    assert all(s.startswith("data:image/png;base64,") for s in srcs)
    assert 'id="summary"' in html and 'id="heatmap"' in html
    assert 'class="error"' in html


def test_cli_default_out_lies_beside_the_resolved_logs(cli, tmp_path: Path):
    real = lb.standard_run(tmp_path / "runs" / "det1" / "logs", epochs=1)
    (tmp_path / "latest").symlink_to(real)
    r = cli("scorecard", str(tmp_path / "latest"))
    # the standard run is incomplete (a cancelled log, errored samples): written, and exit 1
    assert r.returncode == 1, r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines[0].startswith("wrote ") and str(real / "report") in lines[0]
    assert lines[1].startswith("INCOMPLETE run") and 2 <= len(lines) <= 4
    assert "naive 1/6" in r.stdout
    assert (real / "report" / "scorecard.html").is_file()
    assert not (OUT_DIR / "logs").exists() or not any((OUT_DIR / "logs").glob("scorecard.*"))


def test_a_damaged_log_is_in_the_banner_ranks_nothing_and_exits_1(cli, tmp_path: Path):
    logs = tmp_path / "logs"
    lb.write_run_log(logs, "naive", [lb.Run("s1", {lb.LOOP: lb.Item(False, 5)})])
    looplab_log = lb.write_run_log(logs, "looplab", [lb.Run("s1", {lb.LOOP: lb.Item(True, 1)})])
    looplab_log.write_bytes(looplab_log.read_bytes()[:200])  # cut short, as a full disk leaves it
    r = cli("scorecard", str(logs), "--out", str(tmp_path / "out"))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "INCOMPLETE run: 1 damaged log(s) could not be read" in r.stdout
    md = (tmp_path / "out" / "scorecard.md").read_text()
    banner = next(line for line in md.splitlines() if line.startswith("> **Incomplete run**"))
    assert looplab_log.name in banner and "no configuration is ranked" in banner
    assert "| no: a log of this run is damaged |" in md and "| yes |" not in md
    html = (tmp_path / "out" / "scorecard.html").read_text()
    assert 'class="note incomplete"' in html and looplab_log.name in html


def test_no_corpus_section_says_so(cli, tmp_path: Path):
    lb.write_run_log(tmp_path / "logs", "naive", [lb.Run("s1", {lb.LOOP: lb.Item(True, 1)})])
    r = cli("scorecard", str(tmp_path / "logs"), "--out", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "out" / "scorecard.md").read_text()
    assert "No injection-corpus samples" in md


@pytest.mark.parametrize("case", ["missing", "empty", "foreign", "file"])
def test_bad_log_directory_is_one_clear_line(cli, tmp_path: Path, case: str):
    target = tmp_path / "logs"
    if case == "empty":
        target.mkdir()
    elif case == "foreign":
        lb.write_run_log(target, "x", [lb.Run("s1", {lb.LOOP: lb.Item(True)})], task="other")
    elif case == "file":
        target.write_text("not a directory")
    r = cli("scorecard", str(target), "--out", str(tmp_path / "out"))
    assert r.returncode != 0
    err = r.stderr.strip()
    assert "Traceback" not in r.stderr
    assert len(err.splitlines()) == 1 and err.startswith("error: ") and str(target) in err
    assert not (tmp_path / "out").exists()


def test_bad_directory_answered_before_heavy_imports(tmp_path: Path):
    # The "no logs" answer must not wait for inspect/pandas/matplotlib to import.
    import subprocess
    import sys

    code = ("import sys; from reports.cli import main; rc = main(['scorecard', sys.argv[1]]); "
            "print(rc, sorted(m for m in ('inspect_ai', 'pandas', 'matplotlib') "
            "if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path / "nope")], capture_output=True,
                       text=True, timeout=120, cwd=Path(__file__).resolve().parents[2])
    assert r.stdout.split("\n")[0] == "2 []", r.stdout + r.stderr
    assert "does not exist" in r.stderr


def test_heatmap_columns_run_from_most_items_passed(standard_run, tmp_path: Path):
    from reports.by_harness import config_order
    from reports.card import build

    card = build(standard_run, tmp_path)
    order = config_order(card.cells, standard_run.configs)
    assert sorted(order) == sorted(standard_run.configs)
    passed = {r["config"]: r["passed"] for r in card.summary.to_dict("records")}
    assert [passed[c] for c in order] == sorted(passed.values(), reverse=True)


def test_by_harness_counts_each_family_and_names_what_failed(card_dir: Path):
    md = (card_dir / "scorecard.md").read_text()
    section = md.split("## By harness", 1)[1].split("\n## ", 1)[0]
    naive = next(ln for ln in section.splitlines() if ln.startswith("| naive |"))
    cells = [c.strip() for c in naive.strip("|").split("|")[1:]]
    # naive: 1 passed, 4 failed, 1 not applicable over 6 probed items (the summary's row)
    counts = [[int(n) for n in c.split(" (")[0].split(" / ")] for c in cells if c != "–"]
    totals = [sum(row[k] for row in counts) for k in range(3)]
    assert totals == [1, 4, 1]
    line = next(ln for ln in section.splitlines() if ln.startswith("- **naive**"))
    assert f"`{lb.LOOP}`" in line and "fails" in line


def test_common_counts_only_the_scenarios_every_configuration_ran(standard_run):
    from reports.load import common_part

    run = common_part(standard_run)
    ran = standard_run.samples[standard_run.samples["exit_status"] != "not_run"]
    react = set(zip(ran.loc[ran["config"] == "inspect-react", "scenario_id"],
                    ran.loc[ran["config"] == "inspect-react", "epoch"], strict=True))
    assert react and len(run.samples) < len(standard_run.samples)
    for config in standard_run.configs:
        mine = run.samples[run.samples["config"] == config]
        assert set(zip(mine["scenario_id"], mine["epoch"], strict=True)) <= react
    assert set(run.items["scenario_id"]) <= {s for s, _ in react}
    assert "--common" in run.notes[0]


def test_common_flag_writes_the_note_and_stays_incomplete(standard_logs: Path, tmp_path: Path, cli):
    res = cli("scorecard", str(standard_logs), "--common", "--out", str(tmp_path / "c"))
    assert res.returncode == 1, res.stderr
    assert "(--common)" in (tmp_path / "c" / "scorecard.md").read_text()
