"""``python -m reports compare``: flips, moved figures and paired statistics."""

from __future__ import annotations

from pathlib import Path

import logbuilder as lb
import pytest

from reports.compare import figure_moves, flips, mcnemar_rows, paired, sides_in_run
from reports.load import load_run

EPOCHS = 6
NOISY = "context.truncate_keeps_tail"


@pytest.fixture(scope="module")
def epochs_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two configurations over 6 epochs: one real difference, one figure that only wobbles."""
    d = tmp_path_factory.mktemp("epochs") / "run6"
    a_noise = [5, 7, 6, 5, 7, 6]
    b_noise = [6, 5, 7, 7, 5, 7]
    for config, loop_ok, noise in (("naive", False, a_noise), ("looplab", True, b_noise)):
        runs = [lb.Run("s-loop", {lb.LOOP: lb.Item(loop_ok, 3 if loop_ok else 10 + e % 3, "calls",
                                                   "x")}, epoch=e) for e in range(1, EPOCHS + 1)]
        runs += [lb.Run("s-ctx", {NOISY: lb.Item(True, noise[e - 1], "kchars", "kept")}, epoch=e)
                 for e in range(1, EPOCHS + 1)]
        lb.write_run_log(d, config, runs, minute=len(config), model="vllm/tiny")
    return d


def test_flips_between_configurations(standard_run):
    ((a, b),) = sides_in_run(standard_run, "naive", "looplab")
    f = flips(a, b).set_index("item")
    assert (f.loc[lb.LOOP, "state_a"], f.loc[lb.LOOP, "state_b"]) == ("fail", "pass")
    assert (f.loc[lb.BENIGN, "state_a"], f.loc[lb.BENIGN, "state_b"]) == ("pass", "fail")
    assert "provider.quota_fallback" in f.index  # fail (+error) → pass


def test_paired_statistics_separate_difference_from_noise(epochs_logs: Path):
    ((a, b),) = sides_in_run(load_run(epochs_logs), "naive", "looplab")
    pairs = paired(a, b)
    assert len(pairs) == 2 * EPOCHS
    t = mcnemar_rows(pairs).set_index("item")
    assert (t.loc[lb.LOOP, "a_only"], t.loc[lb.LOOP, "b_only"]) == (0, EPOCHS)
    assert t.loc[lb.LOOP, "p"] == pytest.approx(2 / 2**EPOCHS)
    assert t.loc[NOISY, "p"] == 1.0
    m = figure_moves(a, b, pairs).set_index("item")
    assert m.loc[lb.LOOP, "delta"] == pytest.approx(3 - 11)
    assert m.loc[lb.LOOP, "high"] < 0
    assert m.loc[NOISY, "low"] < 0 < m.loc[NOISY, "high"]


def test_cli_compare_configurations_in_one_run(cli, epochs_logs: Path, tmp_path: Path):
    r = cli("compare", "--logs", str(epochs_logs), "naive", "looplab", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "compare.md").read_text()
    assert md in r.stdout
    loop_move = next(ln for ln in md.splitlines() if ln.startswith(f"| `{lb.LOOP}` | calls"))
    assert "moved (interval excludes 0)" in loop_move
    assert "B better" not in md and "B worse" not in md  # figures are informational
    noisy = next(ln for ln in md.splitlines() if ln.startswith(f"| `{NOISY}` | kchars"))
    assert "within noise" in noisy
    mcnemar = next(ln for ln in md.splitlines()
                   if ln.startswith(f"| `{lb.LOOP}` | {EPOCHS} |"))
    assert "0.03125" in mcnemar and "difference" in mcnemar


def test_cli_compare_two_runs(cli, standard_logs: Path, epochs_logs: Path, tmp_path: Path):
    r = cli("compare", str(standard_logs), str(epochs_logs), "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "compare.md").read_text()
    assert "## 20261121-203000:naive (A) → run6:naive (B)" in md
    assert "## 20261121-203000:looplab (A) → run6:looplab (B)" in md
    assert "inspect-react (A)" not in md  # not in both runs


def test_a_scripted_run_is_exact_flips_are_facts(cli, tmp_path: Path):
    d = tmp_path / "one"
    for config, ok in (("naive", False), ("looplab", True)):
        runs = [lb.Run("s", {lb.LOOP: lb.Item(ok, 1 if ok else 5, "calls")}, epoch=e)
                for e in (1, 2)]  # epochs repeat exactly: still no variance
        lb.write_run_log(d, config, runs)
    r = cli("compare", "--logs", str(d), "naive", "looplab", "--out", str(tmp_path / "o"))
    assert r.returncode == 0, r.stderr
    assert "every change of state below is a fact" in r.stdout
    assert "now passes" in r.stdout
    assert "noise" not in r.stdout and "McNemar" not in r.stdout and "p (exact)" not in r.stdout


def test_a_real_model_with_one_epoch_asks_for_more(cli, tmp_path: Path):
    d = tmp_path / "one"
    for config, ok in (("naive", False), ("looplab", True)):
        lb.write_run_log(d, config, [lb.Run("s", {lb.LOOP: lb.Item(ok, 1 if ok else 5)})],
                         model="vllm/tiny")
    r = cli("compare", "--logs", str(d), "naive", "looplab", "--out", str(tmp_path / "o"))
    assert r.returncode == 0, r.stderr
    assert "run more epochs" in r.stdout
    assert "one pair: rerun with more epochs" in r.stdout


def test_cli_compare_unknown_configuration(cli, standard_logs: Path, tmp_path: Path):
    r = cli("compare", "--logs", str(standard_logs), "naive", "nope", "--out", str(tmp_path))
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "'nope' is not in" in r.stderr and "found: naive, looplab, inspect-react" in r.stderr


def test_cli_compare_help_documents_both_forms(cli):
    r = cli("compare", "--help")
    assert r.returncode == 0
    assert "compare LOGDIR_A LOGDIR_B" in r.stdout and "--logs LOGDIR CONFIG_A CONFIG_B" in r.stdout
