//! The report's topology as geometry, over every scenario in scenarios/: no edge segment
//! passes through a box other than its own two ends, no label overlaps a box or another label,
//! and everything lies inside the viewport. The checks are written here, apart from the
//! layout code, so they are an independent reference: a segment meets a rectangle when its
//! clipped part (Liang–Barsky) is longer than a hair.

use cascade::report::topology::{Layout, Rect, layout};
use std::path::Path;

/// Rounding slack, px: a line that touches a border at a shared point is not a crossing.
const EPS: f64 = 0.5;

/// Whether the segment a→b runs through the inside of `r` shrunk by `EPS` on every side.
fn segment_enters(a: (f64, f64), b: (f64, f64), r: &Rect) -> bool {
    let (x0, y0, x1, y1) = (r.x + EPS, r.y + EPS, r.right() - EPS, r.bottom() - EPS);
    if x0 >= x1 || y0 >= y1 {
        return false;
    }
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [
        (-dx, a.0 - x0),
        (dx, x1 - a.0),
        (-dy, a.1 - y0),
        (dy, y1 - a.1),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return false;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
        }
    }
    t0 < t1
}

fn overlap(a: &Rect, b: &Rect) -> bool {
    a.x + EPS < b.right()
        && b.x + EPS < a.right()
        && a.y + EPS < b.bottom()
        && b.y + EPS < a.bottom()
}

fn inside(r: &Rect, l: &Layout) -> bool {
    r.x >= 0.0 && r.y >= 0.0 && r.right() <= l.width && r.bottom() <= l.height
}

/// Every breach of the three rules, in words (empty when the layout is sound).
fn breaches(l: &Layout, names: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, b) in l.boxes.iter().enumerate() {
        if !inside(b, l) {
            out.push(format!(
                "box {} {b:?} outside {}×{}",
                names[i], l.width, l.height
            ));
        }
        for (j, c) in l.boxes.iter().enumerate().skip(i + 1) {
            if overlap(b, c) {
                out.push(format!("boxes {} and {} overlap", names[i], names[j]));
            }
        }
    }
    for e in &l.edges {
        let edge = format!("{}→{}", names[e.from], names[e.to]);
        for w in e.points.windows(2) {
            for (k, b) in l.boxes.iter().enumerate() {
                if k != e.from && k != e.to && segment_enters(w[0], w[1], b) {
                    out.push(format!("edge {edge} passes through {}", names[k]));
                }
            }
        }
        for &(x, y) in &e.points {
            if !(0.0..=l.width).contains(&x) || !(0.0..=l.height).contains(&y) {
                out.push(format!("edge {edge} leaves the viewport at ({x}, {y})"));
            }
        }
        let Some(label) = &e.label else { continue };
        if !inside(label, l) {
            out.push(format!("label of {edge} outside the viewport"));
        }
        for (k, b) in l.boxes.iter().enumerate() {
            if overlap(label, b) {
                out.push(format!("label of {edge} overlaps box {}", names[k]));
            }
        }
        for f in &l.edges {
            if let Some(other) = &f.label
                && !std::ptr::eq(e, f)
                && overlap(label, other)
            {
                out.push(format!(
                    "label of {edge} overlaps the label of {}→{}",
                    names[f.from], names[f.to]
                ));
            }
        }
    }
    out
}

fn model_of(path: &Path) -> cascade::model::Model {
    cascade::scenario::load(path, &[])
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .model
}

fn names(model: &cascade::model::Model) -> Vec<String> {
    model
        .clients
        .iter()
        .map(|c| c.name.clone())
        .chain(model.services.iter().map(|s| s.name.clone()))
        .collect()
}

#[test]
fn every_scenario_lays_out_without_crossing_boxes_or_overlapping_labels() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    assert!(files.len() > 40, "scenarios/ has {} files", files.len());
    let mut all: Vec<String> = Vec::new();
    for f in &files {
        let model = model_of(f);
        let l = layout(&model);
        assert_eq!(l.boxes.len(), model.clients.len() + model.services.len());
        for b in breaches(&l, &names(&model)) {
            all.push(format!("{}: {b}", f.file_name().unwrap().to_string_lossy()));
        }
    }
    all.dedup();
    assert!(
        all.is_empty(),
        "{} breaches:\n{}",
        all.len(),
        all.join("\n")
    );
}

/// The issue's case: gateway calls payments and, skipping a layer, postgres, which payments
/// also calls. The skip edge must route around the payments box.
#[test]
fn a_skip_edge_routes_around_the_box_between() {
    let text = r#"
[scenario]
name = "skip"
duration = "10s"
[[client]]
name = "users"
target = "gateway"
rate = 100
[[service]]
name = "gateway"
workers = 8
work = { dist = "constant", value = "1ms" }
calls = [ { to = "payments", policy = "p" }, { to = "postgres", policy = "p" } ]
[[service]]
name = "payments"
workers = 8
work = { dist = "constant", value = "1ms" }
calls = [ { to = "postgres" } ]
[[service]]
name = "postgres"
workers = 8
work = { dist = "constant", value = "1ms" }
[policy.p]
timeout = "250ms"
"#;
    let model = cascade::scenario::load_str("skip.toml", text, &[])
        .unwrap()
        .model;
    let l = layout(&model);
    let mut b = breaches(&l, &names(&model));
    b.dedup();
    assert!(b.is_empty(), "{b:?}");
    // gateway (1) → postgres (3) has a labelled path with a bend: it is not one straight line.
    let skip = l.edges.iter().find(|e| e.from == 1 && e.to == 3).unwrap();
    assert!(skip.label.is_some());
    assert!(skip.points.len() > 2);
}

/// The report's column is 1,124 px; a drawing may scale down to fit it, but its 10.5 px text
/// not below 9 px, so no scenario's diagram may be wider than 1,124 × 10.5 / 9 px.
#[test]
fn every_scenario_fits_the_page_with_readable_text() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let widest = 1124.0 * 10.5 / 9.0;
    for f in std::fs::read_dir(&dir).unwrap() {
        let path = f.unwrap().path();
        if path.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        let l = layout(&model_of(&path));
        assert!(l.width <= widest, "{}: {} px wide", path.display(), l.width);
    }
}

/// The issue's design review: mobile-checkout's diagram was 1,548 px wide, its first fault's
/// target scrolled off the page. It now fits the column at full size, left to right (three
/// layers of boxes, the services of the last one stacked).
#[test]
fn the_design_review_diagram_fits_at_full_size() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/mobile-checkout.toml");
    let l = layout(&model_of(&path));
    assert!(l.left_to_right);
    assert!(l.width <= 1124.0, "{} px wide", l.width);
}
