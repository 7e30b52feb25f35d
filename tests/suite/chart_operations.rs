//! The timeline and latency charts per operation (issue 41): a client whose mix sends a tenth
//! of its requests to an operation that collapses gets a success panel with that operation as
//! a line and a goodput panel by operation; latency curves per operation; a panel whose every
//! series is 0 folds to one line; a series identical to an earlier one stays visible and its
//! legend says so; the latency chart's x-axis caption lies inside the picture.

use crate::support::*;
use std::path::{Path, PathBuf};

/// `buy` is a tenth of `app`'s traffic and fails while `payments` is out (4 s to 7 s). The
/// front end has workers to spare, so its queue stays empty; `app` does not retry, so the
/// attempts on `app → front` are its offered load, request for request.
const SHOP: &str = r#"
[scenario]
name = "shop"
duration = "10s"
warmup = "1s"
seed = 5

[[client]]
name = "app"
target = "front"
rate = 400
mix = [
  { operation = "buy", weight = 1 },
  { operation = "browse", weight = 9 },
]

[[service]]
name = "front"
workers = 256

[[service.operation]]
name = "buy"
work = "1ms"
calls = [ { to = "payments", policy = "pay" } ]

[[service.operation]]
name = "browse"
work = "1ms"

[[service]]
name = "payments"
workers = 256
work = "5ms"

[policy.pay]
timeout = "200ms"

[[fault]]
kind = "outage"
target = "payments"
start = "4s"
end = "7s"

[[variant]]
name = "slower"
set = { "client.app.rate" = 300 }

[[expect]]
metric = "client.app.op.buy.success_ratio"
op = ">="
value = 0.6

[[expect]]
metric = "client.app.op.browse.goodput_rps"
op = ">="
value = 300
window = { start = "2s", end = "9s" }

[[expect]]
metric = "client.app.success_ratio"
op = ">="
value = 0.9
variant = "slower"
"#;

/// The scratch directory (removed when dropped) and the run's directory in it, charted.
fn charted() -> (Scratch, PathBuf) {
    let dir = scratch("chart-operations");
    let toml = dir.join("shop.toml");
    std::fs::write(&toml, SHOP).unwrap();
    let out = dir.join("run");
    let args = [
        "run",
        toml.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    cascade(&[&args[..], &["--quiet", "--chart"]].concat(), 0);
    (dir, out)
}

fn svg(dir: &Path, file: &str) -> String {
    let text = read(&dir.join("charts").join(file));
    assert_well_formed(file, &text);
    text
}

#[test]
fn the_timeline_has_success_and_goodput_panels_with_a_line_per_operation() {
    let t = svg(&charted().1, "timeline.svg");
    for text in [
        "Success of app",
        "app (all operations)",
        "Goodput of app by operation",
        "buy",
        "browse",
    ] {
        assert!(has_text(&t, text), "timeline.svg lacks {text}");
    }
}

/// Each expectation on a client's success or an operation's goodput is a line on its panel,
/// named in the legend with its window; one on another variant is drawn on that variant's
/// timeline alone.
#[test]
fn expectations_are_drawn_on_the_panels_they_gate() {
    let (_scratch, dir) = charted();
    let base = svg(&dir, "timeline.svg");
    // `>=` as the SVG escapes it.
    assert!(has_text(&base, "gate: buy &gt;= 60%"), "no buy gate");
    assert!(
        has_text(&base, "gate: browse &gt;= 300/s") && has_text(&base, "  in window expect-1"),
        "no browse gate"
    );
    assert!(!has_text(&base, "gate: app &gt;= 90%"));
    let slower = svg(&dir, "timeline-slower.svg");
    assert!(has_text(&slower, "gate: app &gt;= 90%"), "no variant gate");
    assert!(!has_text(&slower, "gate: buy &gt;= 60%"));
}

#[test]
fn a_panel_flat_at_zero_folds_to_one_line() {
    let t = svg(&charted().1, "timeline.svg");
    assert!(
        has_text(&t, "Queue length (mean): 0 throughout (payments, front)"),
        "the empty queue panel is not folded"
    );
    // Folded, it has no legend of its own.
    assert!(!has_text(&t, "Queue length (mean)"));
}

#[test]
fn a_series_identical_to_an_earlier_one_is_raised_and_says_so() {
    let t = svg(&charted().1, "timeline.svg");
    assert!(
        has_text(&t, "  = app offered") && has_text(&t, "  (drawn 3 px higher)"),
        "the attempts line repeating the offered load is not marked"
    );
}

#[test]
fn latency_has_a_curve_per_operation_and_per_variant() {
    let (_scratch, dir) = charted();
    let l = svg(&dir, "latency-app-by-operation.svg");
    for text in [
        "shop: latency of app by operation",
        "buy · base",
        "browse · base",
        "buy · slower",
        "browse · slower",
    ] {
        assert!(
            has_text(&l, text),
            "latency-app-by-operation.svg lacks {text}"
        );
    }
}

/// The x-axis caption's text sits inside the chart: plotters anchors it at `y` raised by half
/// an ex, so its descenders reach about `y`; it was drawn at y = 520 in a picture 520 high,
/// cut off. Half its font size of room under `y` is asked for.
#[test]
fn the_x_axis_captions_are_not_clipped() {
    let (_scratch, dir) = charted();
    for (file, caption) in [
        (
            "latency-app.svg",
            "percentile of request latency (start to answer or give-up)",
        ),
        (
            "latency-app-by-operation.svg",
            "percentile of request latency (start to answer or give-up)",
        ),
        ("timeline.svg", "time since start (s)"),
    ] {
        let l = svg(&dir, file);
        let height: f64 = attribute(&l[l.find("<svg").unwrap()..], "height");
        let at = l.find(&format!(">\n{caption}\n<")).expect("the x caption");
        let element = &l[l[..at].rfind("<text").unwrap()..at];
        let y: f64 = attribute(element, "y");
        let size: f64 = attribute(element, "font-size");
        assert!(
            y + size / 2.0 <= height,
            "{file}: the caption at y = {y}, {size} px high, passes the bottom at {height}"
        );
    }
}

/// A `<text>` element of the SVG holds exactly `text` (plotters writes it on a line of its own).
fn has_text(svg: &str, text: &str) -> bool {
    svg.contains(&format!(">\n{text}\n<"))
}

fn attribute(element: &str, name: &str) -> f64 {
    let key = format!(" {name}=\"");
    let from = element
        .find(&key)
        .unwrap_or_else(|| panic!("{name} in {element}"))
        + key.len();
    let value = &element[from..from + element[from..].find('"').unwrap()];
    value.trim_end_matches("px").parse().unwrap()
}
