//! The scenario's topology as a hand-made SVG, laid out by the layered (Sugiyama) method:
//! clients first, then services by their depth in the call graph; each call an arrow that
//! bends around the boxes it passes, labelled with its policy's highlights (a client's arrow
//! with its deadline and mix); operations listed in their service; services a fault hits
//! outlined in vermillion with their faults named. ARCHITECTURE.md ("The topology layout")
//! walks through the steps, one file each under `topology/`.

mod diagram;
mod draw;
mod geometry;
mod measure;
mod order;
mod place;
mod rank;

use crate::model::Model;
pub use geometry::{EdgePath, Layout, Rect};

/// The report's content width, px (html.rs: `max-width: 1180px` less 2 × 28 px of padding).
const FIT_W: f64 = 1124.0;
/// The smallest size the 10.5 px text may be scaled down to when the drawing is fitted.
const MIN_TEXT: f64 = 9.0;

fn lay_out(d: &diagram::Diagram) -> Layout {
    let sizes = place::Sizes {
        boxes: d.nodes.iter().map(measure::box_size).collect(),
        labels: d.edges.iter().map(measure::label_size).collect(),
    };
    let edges: Vec<(usize, usize, bool)> = d
        .edges
        .iter()
        .map(|e| (e.from, e.to, !e.label.is_empty()))
        .collect();
    let mut g = rank::layered(d.nodes.len(), count_clients(d), &edges);
    let adj = order::adjacency(g.kinds.len(), &g.chains);
    order::reduce(&mut g.layers, &adj);
    // Both directions; the one the page shrinks less (left to right on a tie).
    let lr = place::place(&g, &adj, &sizes, true);
    let tb = place::place(&g, &adj, &sizes, false);
    let fit = |l: &Layout| (FIT_W / l.width).min(1.0);
    if fit(&lr) >= fit(&tb) { lr } else { tb }
}

fn count_clients(d: &diagram::Diagram) -> usize {
    d.nodes.iter().take_while(|n| n.client).count()
}

/// The topology's geometry: boxes, edge polylines and label boxes, in the SVG's pixels.
pub fn layout(model: &Model) -> Layout {
    lay_out(&diagram::diagram(model))
}

pub fn svg(model: &Model) -> String {
    let d = diagram::diagram(model);
    let l = lay_out(&d);
    draw::svg(&model.name, &d, &l, l.width * MIN_TEXT / measure::TEXT_SIZE)
}
