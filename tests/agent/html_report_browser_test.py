#!/usr/bin/env python3
"""The html report in a real browser: headless Chromium opens the pages `kforge report --format html` and
`kforge compare --format html` write for the fixture corpora, and this checks that every figure rendered
(an inline SVG whose series groups were laid out, non-empty, named as expected, with their key text) and
saves screenshots.

usage: html_report_browser_test.py KFORGE SOURCE_DIR OUT_DIR
Exit 0 pass, 1 fail, 77 skip (no Chromium, or it cannot start here). KFORGE_CHROMIUM names the browser.
"""
import html
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

SKIP = 77

# What the fixture's hand computation (tests/agent/fixtures/verified_corpus/README.md) puts in each figure.
EXPECTED = {
    "headline": ["correct (fast_0)", "faster than baseline (unverified)", "verified speedups"],
    "fast_p": ["alpha", "beta"],
    "speedups_by_config": ["verified", "faster, not verified", "not faster", "1.0 (baseline)"],
    "speedups_by_category": ["alpha", "beta", "1.0 (baseline)"],
    "correct_by_turn": ["alpha", "beta"],
    "cost_per_correct": ["alpha", "beta"],
    "tokens_per_correct": ["alpha", "beta"],
    "verdicts": ["correct", "incorrect", "compile_error", "no_code", "provider failure"],
    # Records without lineage are the refine strategy's.
    "best_so_far_evaluations": ["alpha (refine)", "beta (refine)"],
    "best_so_far_tokens": ["alpha (refine)", "beta (refine)"],
    "best_so_far_dollars": ["alpha (refine)", "beta (refine)"],
}

# Runs in the page before --dump-dom: what the browser laid out for every figure, as JSON in a <pre>.
PROBE = """<script>
(function () {
  var out = [];
  document.querySelectorAll('figure.plot').forEach(function (fig) {
    var svg = fig.querySelector('svg');
    var f = {id: fig.getAttribute('data-plot'), svg: !!svg, series: []};
    if (svg) {
      var r = svg.getBoundingClientRect();
      f.width = r.width; f.height = r.height;
      svg.querySelectorAll('g.series').forEach(function (g) {
        var b = g.getBBox();
        // The drawn shapes' extent on the screen (text left out): the key sits below the plot area, so
        // a series that drew data in the plot reaches well above its key sample.
        var top = Infinity, bottom = -Infinity;
        g.querySelectorAll('path, use, rect, circle, polyline, polygon, line').forEach(function (e) {
          var q = e.getBoundingClientRect();
          if (q.width > 0 || q.height > 0) { top = Math.min(top, q.top); bottom = Math.max(bottom, q.bottom); }
        });
        f.series.push({name: g.getAttribute('data-series'), w: b.width, h: b.height,
                       drawn_height: bottom > top ? bottom - top : 0, text: g.textContent});
      });
    }
    out.push(f);
  });
  var pre = document.createElement('pre');
  pre.id = 'kforge-probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
"""


def find_chromium():
    named = os.environ.get("KFORGE_CHROMIUM")
    if named:
        return shutil.which(named) or (named if os.access(named, os.X_OK) else None)
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium(browser, profile, args, timeout=120):
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
           "--user-data-dir=" + profile, "--host-resolver-rules=MAP * ~NOTFOUND", "--hide-scrollbars"] + args
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def kforge_html(kforge, args, out_file):
    r = subprocess.run([kforge] + args + ["--format", "html"], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise AssertionError("kforge %s failed (%d): %s" % (" ".join(args), r.returncode, r.stderr))
    with open(out_file, "w") as f:
        f.write(r.stdout)
    return r.stdout


def probe(browser, profile, page, out_dir, name):
    probe_file = os.path.join(out_dir, name + "-probe.html")
    with open(probe_file, "w") as f:
        f.write(page.replace("</body>", PROBE + "</body>", 1))
    r = chromium(browser, profile, ["--dump-dom", "file://" + probe_file])
    start = r.stdout.find('<pre id="kforge-probe">')
    if start < 0:
        return None, r
    end = r.stdout.find("</pre>", start)
    return json.loads(html.unescape(r.stdout[start + len('<pre id="kforge-probe">'):end])), r


def check_figures(figures, expected, what):
    problems = []
    by_id = {f["id"]: f for f in figures}
    for fid, names in expected.items():
        f = by_id.get(fid)
        if f is None:
            problems.append("%s: no figure %s" % (what, fid))
            continue
        if not f["svg"] or f.get("width", 0) <= 0 or f.get("height", 0) <= 0:
            problems.append("%s: figure %s has no laid-out SVG" % (what, fid))
            continue
        series = {s["name"]: s for s in f["series"]}
        for n in names:
            s = series.get(n)
            if s is None:
                problems.append("%s: figure %s lacks series %r (has %s)" % (what, fid, n, sorted(series)))
            elif s["w"] <= 0 and s["h"] <= 0:
                problems.append("%s: figure %s series %r is empty (no extent)" % (what, fid, n))
            elif s["drawn_height"] <= 20:
                problems.append("%s: figure %s series %r drew only its key (shapes %.0f px high)" %
                                (what, fid, n, s["drawn_height"]))
            elif n[:40] not in s["text"]:
                problems.append("%s: figure %s series %r has no key text" % (what, fid, n))
    return problems


def check_png(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
        return "not a PNG"
    w, h = struct.unpack(">II", head[16:24])
    if w < 800 or h < 800 or os.path.getsize(path) < 20000:
        return "suspiciously small (%dx%d, %d bytes)" % (w, h, os.path.getsize(path))
    return None


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    kforge, source, out_dir = sys.argv[1:]
    os.makedirs(out_dir, exist_ok=True)
    browser = find_chromium()
    if not browser:
        print("SKIP: no Chromium found (install Debian's chromium, or set KFORGE_CHROMIUM)")
        return SKIP
    fixtures = os.path.join(source, "tests", "agent", "fixtures")
    report = os.path.join(out_dir, "report.html")
    compare = os.path.join(out_dir, "compare.html")
    strategies = os.path.join(out_dir, "strategies.html")
    page = kforge_html(kforge, ["report", os.path.join(fixtures, "verified_corpus")], report)
    strategies_page = kforge_html(kforge, ["report", os.path.join(fixtures, "strategies_corpus")], strategies)
    compare_page = kforge_html(kforge, ["compare", os.path.join(fixtures, "verified_corpus"),
                                        os.path.join(fixtures, "report_corpus")], compare)

    with tempfile.TemporaryDirectory(prefix="kforge-chromium.") as profile:
        figures, r = probe(browser, profile, page, out_dir, "report")
        if figures is None:
            tail = "\n".join((r.stderr or "").strip().splitlines()[-8:])
            print("SKIP: Chromium (%s) did not render a page here (exit %d):\n%s" % (browser, r.returncode, tail))
            return SKIP
        problems = check_figures(figures, EXPECTED, "report")
        compare_figures, _ = probe(browser, profile, compare_page, out_dir, "compare")
        if compare_figures is None:
            problems.append("compare: Chromium rendered the report but not the compare page")
        else:
            side_by_side = {fid: ["verified_corpus: alpha", "report_corpus: alpha", "report_corpus: beta"]
                            for fid in ("fast_p", "correct_by_turn", "tokens_per_correct")}
            problems += check_figures(compare_figures, side_by_side, "compare")
        # Three strategies at equal budget (fixtures/strategies_corpus/README.md): one curve per strategy.
        strategy_figures, _ = probe(browser, profile, strategies_page, out_dir, "strategies")
        if strategy_figures is None:
            problems.append("strategies: Chromium rendered the report but not the strategies page")
        else:
            curves = {fid: ["beam (beam)", "evolve (evolve)", "refine (refine)"]
                      for fid in ("best_so_far_evaluations", "best_so_far_tokens", "best_so_far_dollars")}
            problems += check_figures(strategy_figures, curves, "strategies")

        for name, f in (("report", report), ("compare", compare), ("strategies", strategies)):
            png = os.path.join(out_dir, name + ".png")
            if os.path.exists(png):
                os.remove(png)
            chromium(browser, profile, ["--screenshot=" + png, "--window-size=1200,6000", "file://" + f])
            if not os.path.exists(png):
                problems.append("%s: Chromium wrote no screenshot" % name)
            elif check_png(png):
                problems.append("%s screenshot %s: %s" % (name, png, check_png(png)))
            else:
                print("screenshot: " + png)

    for f in figures:
        print("figure %-22s %4dx%-4d series: %s" % (f["id"], f.get("width", 0), f.get("height", 0),
                                                    ", ".join(s["name"] for s in f["series"])))
    if problems:
        print("FAIL:\n  " + "\n  ".join(problems))
        return 1
    print("PASS: every figure rendered in Chromium with its series")
    return 0


if __name__ == "__main__":
    sys.exit(main())
