"""The HTML scorecard renders in a real headless Chromium: heatmap image and summary visible,
no error on the console.

A probe copy of the page carries a small script that records, after ``load``, whether the
heatmap image decoded (``naturalWidth > 0``), whether it fits the window, where the summary
table sits, and every error the page raised or logged (a script in ``<head>`` catches them from
the start); ``--dump-dom`` returns that record, and Chromium's own console log (on stderr) is
read for errors too. A screenshot of the real page is kept at
``reports/out/screenshot/scorecard.png`` for people to look at.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from reports.logdir import OUT_DIR

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOT = OUT_DIR / "screenshot" / "scorecard.png"
CATCH = """<script>
window.__errors = [];
window.addEventListener("error", (e) => window.__errors.push(String(e.message || e.type)), true);
const __consoleError = console.error;
console.error = (...args) => { window.__errors.push(args.join(" ")); __consoleError(...args); };
</script>"""
PROBE = """<script>
window.addEventListener("load", () => {
  const img = document.getElementById("heatmap");
  const table = document.getElementById("summary");
  const box = table.getBoundingClientRect();
  const rec = {img_complete: img.complete, img_width: img.naturalWidth,
               img_height: img.naturalHeight, img_shown: img.getBoundingClientRect().width,
               table_width: box.width, table_height: box.height, table_top: box.top,
               table_rows: table.querySelectorAll("tbody tr").length,
               window_width: window.innerWidth, errors: window.__errors,
               broken_images: [...document.images].filter(i => !i.naturalWidth).length,
               tables: document.querySelectorAll("table").length};
  const out = document.createElement("pre");
  out.id = "probe";
  out.textContent = "PROBE" + JSON.stringify(rec) + "END";
  document.body.appendChild(out);
});
</script>"""

pytestmark = pytest.mark.browser


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    if not CHROMIUM.exists():
        reason = f"{CHROMIUM} is not installed (apt-get install -y chromium)"
        if os.environ.get("LOOPLAB_REQUIRE_BROWSER") == "1":
            pytest.fail(f"LOOPLAB_REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)
    cmd = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--no-first-run", "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'profile'}",
           "--virtual-time-budget=5000", "--enable-logging=stderr", "--v=0", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "HOME": str(tmp_path)})


@pytest.fixture(scope="module")
def scorecard_html(standard_logs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from reports.scorecard import write_scorecard

    out = tmp_path_factory.mktemp("browser-card")
    _, written = write_scorecard(standard_logs, out)
    return written["html"]


def test_heatmap_and_summary_visible(scorecard_html: Path, tmp_path: Path):
    probe = tmp_path / "probe.html"
    page = scorecard_html.read_text()
    assert "<head>" in page
    probe.write_text(page.replace("<head>", "<head>" + CATCH, 1).replace("</body>", PROBE + "</body>"))
    r = _chromium(tmp_path, "--dump-dom", probe.as_uri())
    found = re.search(r"PROBE(\{.*?\})END", r.stdout)
    assert found, f"no probe record in the DOM; chromium said: {r.stderr[-2000:]}"
    rec = json.loads(found.group(1))
    assert rec["img_complete"] and rec["img_width"] > 100 and rec["img_height"] > 100
    assert rec["img_shown"] > 100
    assert rec["table_width"] > 200 and rec["table_height"] > 40
    assert rec["table_rows"] == 3
    assert rec["img_shown"] <= rec["window_width"], "the heatmap overflows the page"
    assert rec["broken_images"] == 0 and rec["tables"] >= 3
    assert rec["errors"] == [], rec["errors"]
    # the scorecard logs nothing: any console line (Chromium logs them all at INFO) is a fault
    console = [ln for ln in r.stderr.splitlines() if ":CONSOLE" in ln]
    assert console == [], console


def test_screenshot_kept(scorecard_html: Path, tmp_path: Path):
    import matplotlib.image as mpimg

    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    shot = tmp_path / "scorecard.png"
    r = _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1300,2400",
                  "--hide-scrollbars", scorecard_html.as_uri())
    assert shot.is_file(), f"no screenshot; chromium said: {r.stderr[-2000:]}"
    pixels = mpimg.imread(str(shot))
    assert pixels.shape[0] == 2400 and pixels.shape[1] == 1300
    # a blank page is one colour; the scorecard has text, tables and a coloured heatmap
    assert len({tuple(p) for p in pixels[::20, ::20, :3].reshape(-1, 3).round(2)}) > 20
    shot.replace(SCREENSHOT)
