#!/usr/bin/env python3
"""The report in a real browser: renders `cascade report`'s HTML of several scenarios in
headless Chromium and checks what a reader would see, and checks the Markdown report's images.

For each scenario: `cascade run`, then `cascade report` (HTML and Markdown) into a scratch
directory, then
  * from a copy of the HTML with a small checker script injected, loaded at 1,280 px with
    `--dump-dom --virtual-time-budget`: no horizontal overflow, every image and inline SVG
    loaded (complete, or drawn at a non-zero size), no text overflowing its table cell;
  * from `--screenshot` at 1,280 × 800: the page is not blank (some pixels differ from the
    background; no single colour covers more than 97% of them), the PNG read with zlib;
  * the Markdown report parsed with markdown-it-py: every image path exists and is an SVG
    (XML whose root is <svg>) or a PNG (signature, IHDR, and pixels that decode).

`--self-test` then breaks copies of one report in each of those ways and fails unless every
broken copy is caught. Exit 0 when all holds, 1 with the failures listed. Chromium is run in a
process group of its own and the group is killed after each page, so no process outlives it.

Usage: python3 tests/scripts/browser_check.py --cascade target/test-release/cascade [--self-test]
"""

import argparse
import html as html_lib
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib
from collections import Counter
from pathlib import Path

from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[2]
# mobile-checkout: issue 41's design review (operations, four faults); all-features: 8
# services, operations, five faults; gateway: ten operations; timeout-chain-reversed: a skip
# edge; quickstart: a chain of five.
SCENARIOS = [
    "mobile-checkout",
    "all-features",
    "gateway",
    "timeout-chain-reversed",
    "quickstart",
]
WIDTH, HEIGHT = 1280, 800
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    f"--window-size={WIDTH},{HEIGHT}",
]
PAGE_TIMEOUT = 90  # seconds, per Chromium run

# Runs after load; writes its findings into the page, which --dump-dom prints.
CHECKER = """<script>
window.addEventListener('load', function () {
  var out = {width: window.innerWidth, problems: []};
  var doc = document.documentElement;
  if (doc.scrollWidth > window.innerWidth) {
    out.problems.push('horizontal overflow: ' + doc.scrollWidth + ' px wide at ' + window.innerWidth);
  }
  Array.prototype.forEach.call(document.images, function (img) {
    if (!img.complete || img.naturalWidth === 0) {
      out.problems.push('image not loaded: ' + img.getAttribute('src'));
    }
  });
  var svgs = document.querySelectorAll('svg');
  Array.prototype.forEach.call(svgs, function (svg, i) {
    if (svg.parentElement && svg.parentElement.closest('svg')) { return; }
    var r = svg.getBoundingClientRect();
    if (!(svg instanceof SVGSVGElement) || r.width < 1 || r.height < 1 || svg.childElementCount === 0) {
      out.problems.push('inline SVG ' + i + ' (' + (svg.getAttribute('aria-label') || '') + ') not drawn: ' + r.width + 'x' + r.height);
    }
  });
  Array.prototype.forEach.call(document.querySelectorAll('td, th'), function (cell) {
    if (cell.scrollWidth > cell.clientWidth + 1) {
      out.problems.push('text overflows its cell: ' + cell.textContent.slice(0, 60));
    }
  });
  var pre = document.createElement('pre');
  pre.id = 'browser-check';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


def chromium(args, scratch):
    """Runs Chromium headless with a fresh profile; returns its stdout. Kills its group."""
    profile = tempfile.mkdtemp(prefix="chromium-profile-", dir=scratch)
    cmd = ["chromium", *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args]
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=PAGE_TIMEOUT)
    except subprocess.TimeoutExpired:
        out = b""
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
        shutil.rmtree(profile, ignore_errors=True)
    return out.decode("utf-8", "replace")


def dom_problems(html, scratch):
    """The checker's findings for one HTML file (a copy with the checker injected)."""
    text = html.read_text(encoding="utf-8")
    if "</body>" not in text:
        return [f"{html.name}: no </body>"]
    probe = html.with_name(html.stem + ".probe.html")
    probe.write_text(text.replace("</body>", CHECKER + "\n</body>", 1), encoding="utf-8")
    dom = chromium(["--dump-dom", "--virtual-time-budget=5000", probe.as_uri()], scratch)
    probe.unlink()
    m = re.search(r'<pre id="browser-check">(.*?)</pre>', dom, re.S)
    if not m:
        return [f"{html.name}: the checker reported nothing (page did not load?)"]
    found = json.loads(html_lib.unescape(m.group(1)))
    problems = list(found["problems"])
    if found["width"] != WIDTH:
        problems.append(f"viewport is {found['width']} px, not {WIDTH}")
    return problems


def png_pixels(data):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB or RGBA PNG, unfiltered."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    if ihdr is None:
        raise ValueError("PNG without IHDR")
    width, height, depth, colour, _, _, interlace = ihdr
    channels = {2: 3, 6: 4, 0: 1, 4: 2}.get(colour)
    if depth != 8 or channels is None or interlace != 0:
        raise ValueError(f"PNG kind not read here: depth {depth}, colour {colour}")
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
            elif f != 0:
                raise ValueError(f"bad PNG filter {f}")
        rows.append(
            [tuple(line[i : i + 3]) if channels >= 3 else (line[i],) * 3 for i in range(0, stride, channels)]
        )
        prev = line
    return width, height, rows


def screenshot_problems(html, scratch):
    shot = Path(scratch) / (html.stem + ".png")
    chromium([f"--screenshot={shot}", html.as_uri()], scratch)
    if not shot.exists():
        return [f"{html.name}: no screenshot"]
    width, height, rows = png_pixels(shot.read_bytes())
    shot.unlink()
    if width != WIDTH:
        return [f"{html.name}: screenshot {width} px wide, not {WIDTH}"]
    counts = Counter(p for row in rows[:HEIGHT] for p in row)
    total = sum(counts.values())
    background, most = counts.most_common(1)[0]
    problems = []
    if most == total:
        problems.append(f"{html.name}: blank, all {total} pixels are {background}")
    elif most / total > 0.97:
        problems.append(f"{html.name}: {most / total:.1%} of the first {HEIGHT} px is one colour {background}")
    return problems


def image_problems(path):
    """Why `path` is not a valid SVG or PNG, or None."""
    if not path.is_file():
        return "missing"
    data = path.read_bytes()
    if path.suffix == ".svg":
        try:
            root = ET.fromstring(data)
        except ET.ParseError as e:
            return f"not XML: {e}"
        if root.tag not in ("svg", "{http://www.w3.org/2000/svg}svg"):
            return f"root is <{root.tag}>, not <svg>"
        return None
    if path.suffix == ".png":
        try:
            png_pixels(data)
        except (ValueError, zlib.error, struct.error, IndexError) as e:
            return f"not a PNG: {e}"
        return None
    return "neither .svg nor .png"


def markdown_problems(md):
    tokens = MarkdownIt().parse(md.read_text(encoding="utf-8"))
    images = [
        child.attrGet("src")
        for t in tokens
        if t.type == "inline"
        for child in (t.children or [])
        if child.type == "image"
    ]
    problems = [] if images else [f"{md.name}: no image at all"]
    for src in images:
        why = image_problems(md.parent / src)
        if why:
            problems.append(f"{md.name}: image {src}: {why}")
    return problems


def check(html, md, scratch):
    return dom_problems(html, scratch) + screenshot_problems(html, scratch) + markdown_problems(md)


def make_reports(cascade, scenario, into):
    out = into / scenario
    subprocess.run([cascade, "run", str(ROOT / "scenarios" / f"{scenario}.toml"), "--out", str(out), "-q"], check=True)
    subprocess.run([cascade, "report", str(out), "-q"], check=True)
    subprocess.run([cascade, "report", str(out), "-q", "--markdown"], check=True)
    return out / "report.html", out / "report.md"


# Each breaks a copy of a good report one way: (name, HTML edit, Markdown edit, the words the
# failure it must cause contains).
BREAKS = [
    (
        "overflow",
        lambda h: h.replace("<body>", '<body>\n<div style="width: 2400px; height: 4px"></div>', 1),
        None,
        "horizontal overflow",
    ),
    (
        "missing image",
        lambda h: h.replace("</h1>", '</h1><img src="nowhere.png" alt="x"/>', 1),
        None,
        "image not loaded",
    ),
    ("hidden SVG", lambda h: h.replace("<svg ", '<svg display="none" ', 1), None, "not drawn"),
    (
        "cell overflow",
        lambda h: h.replace(
            "</h1>",
            '</h1><table><tr><td style="max-width: 40px; overflow: hidden; white-space: nowrap">averyveryverylongunbreakablecell</td></tr></table>',
            1,
        ),
        None,
        "overflows its cell",
    ),
    (
        "blank page",
        lambda h: h.replace("</style>", "body { visibility: hidden; }\n</style>", 1),
        None,
        "blank",
    ),
    ("missing Markdown image", None, lambda m: m + "\n![gone](charts/gone.svg)\n", "gone.svg: missing"),
    ("Markdown image not an SVG", None, lambda m: m + "\n![bad](charts/bad.svg)\n", "bad.svg: not XML"),
]


def self_test(html, md, scratch):
    """Every broken copy must be caught; returns what was not."""
    missed = []
    for name, break_html, break_md, expected in BREAKS:
        d = Path(tempfile.mkdtemp(prefix="broken-", dir=scratch))
        shutil.copytree(html.parent / "charts", d / "charts")
        (d / "charts" / "bad.svg").write_text("this is not SVG\n")
        h, m = d / "report.html", d / "report.md"
        text = html.read_text(encoding="utf-8")
        h.write_text(break_html(text) if break_html else text, encoding="utf-8")
        text = md.read_text(encoding="utf-8")
        m.write_text(break_md(text) if break_md else text, encoding="utf-8")
        if break_html:
            found = dom_problems(h, scratch) + screenshot_problems(h, scratch)
        else:
            found = markdown_problems(m)
        hit = [f for f in found if expected in f]
        print(f"  broken ({name}): {'caught: ' + hit[0] if hit else 'NOT CAUGHT'}")
        if not hit:
            missed.append(name)
    return missed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cascade", required=True, help="the cascade binary")
    ap.add_argument("--self-test", action="store_true", help="also show broken reports fail")
    args = ap.parse_args()
    if shutil.which("chromium") is None:
        print("chromium is not installed (.ci/run installs it)", file=sys.stderr)
        return 1
    cascade = str(Path(args.cascade).resolve())
    failures = []
    with tempfile.TemporaryDirectory(prefix="browser-check-") as scratch:
        scratch = Path(scratch)
        reports = {}
        for s in SCENARIOS:
            html, md = make_reports(cascade, s, scratch)
            reports[s] = (html, md)
            problems = check(html, md, scratch)
            print(f"{s}: {'ok' if not problems else str(len(problems)) + ' problems'}")
            failures += [f"{s}: {p}" for p in problems]
        if args.self_test:
            print("self-test: broken copies of mobile-checkout's report")
            missed = self_test(*reports["mobile-checkout"], scratch)
            failures += [f"self-test: a broken report passed ({m})" for m in missed]
    for f in failures:
        print(f"FAIL {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
