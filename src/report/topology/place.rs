//! Coordinate assignment, the last step of the layered layout, worked in two axes: the layer
//! axis (x when layers run left to right) and the order axis across it. Along the order axis
//! each layered node owns a slot as wide as it is, in its layer's order, with a gap to the
//! next; sweeps pull each node towards the mean of its neighbours' line positions, and each
//! layer is then the closest placement keeping the order and the gaps (isotonic regression by
//! pool-adjacent-violators). Along the layer axis each layer is a band as thick as its
//! thickest node, bands separated by a gap.
//!
//! Why no edge can cross a box or a label: inside a band an edge runs parallel to the layer
//! axis at an order position inside its own node's slot, and slots do not overlap; between
//! bands (where it runs diagonally) there is nothing but edges. Labels sit in their slot
//! beside their edge's line.

use super::geometry::{EdgePath, Layout, Rect};
use super::order::Adjacency;
use super::rank::{Kind, Layered};

/// Gap between two boxes of one layer, and between anything else, along the order axis.
const BOX_GAP: f64 = 28.0;
const EDGE_GAP: f64 = 14.0;
/// Gap between bands along the layer axis: room for the diagonal part of an edge.
const BAND_GAP: f64 = 26.0;
/// A label's slot begins with its edge's line: this much room, the line in its middle.
const LINE_GAP: f64 = 10.0;
/// Port spacing: the edges leaving (or entering) one box spread along its side.
const PORT_STEP: f64 = 12.0;
/// Margin around the drawing.
pub const MARGIN: f64 = 16.0;
const SWEEPS: usize = 10;

/// Sizes in pixels (width, height) of each diagram node's box and each edge's label.
pub struct Sizes {
    pub boxes: Vec<(f64, f64)>,
    pub labels: Vec<Option<(f64, f64)>>,
}

/// The closest positions to `desired` (least squares) that keep their order with at least
/// `sep[i]` between positions i and i+1.
fn pava(desired: &[f64], sep: &[f64]) -> Vec<f64> {
    let mut offset = vec![0.0; desired.len()];
    for i in 1..desired.len() {
        offset[i] = offset[i - 1] + sep[i - 1];
    }
    let mut blocks: Vec<(f64, usize)> = Vec::new();
    for (d, o) in desired.iter().zip(&offset) {
        blocks.push((d - o, 1));
        while blocks.len() > 1 {
            let (s2, n2) = blocks[blocks.len() - 1];
            let (s1, n1) = blocks[blocks.len() - 2];
            if s1 / n1 as f64 <= s2 / n2 as f64 {
                break;
            }
            blocks.pop();
            *blocks.last_mut().unwrap() = (s1 + s2, n1 + n2);
        }
    }
    let mut out = Vec::with_capacity(desired.len());
    for (s, n) in blocks {
        out.extend(std::iter::repeat_n(s / n as f64, n));
    }
    out.iter().zip(&offset).map(|(y, o)| y + o).collect()
}

/// A layered node's extents: (along the layer axis, along the order axis), and where its
/// edge's line runs relative to its centre along the order axis.
fn extents(kind: Kind, sizes: &Sizes, lr: bool) -> (f64, f64, f64) {
    let axes = |(w, h): (f64, f64)| if lr { (w, h) } else { (h, w) };
    match kind {
        Kind::Box(n) => {
            let (r, o) = axes(sizes.boxes[n]);
            (r, o, 0.0)
        }
        Kind::Label(e) => {
            let (r, o) = axes(sizes.labels[e].unwrap_or((0.0, 0.0)));
            let o = o + LINE_GAP;
            (r, o, LINE_GAP / 2.0 - o / 2.0)
        }
        Kind::Dummy(_) => (0.0, 0.0, 0.0),
    }
}

/// Order-axis centres: packed, then swept towards the neighbours' lines.
fn centres(g: &Layered, adj: &Adjacency, ext: &[(f64, f64, f64)]) -> Vec<f64> {
    let mut c = vec![0.0; g.kinds.len()];
    let seps = |layer: &[usize]| -> Vec<f64> {
        layer
            .windows(2)
            .map(|w| {
                let boxes =
                    matches!(g.kinds[w[0]], Kind::Box(_)) && matches!(g.kinds[w[1]], Kind::Box(_));
                (ext[w[0]].1 + ext[w[1]].1) / 2.0 + if boxes { BOX_GAP } else { EDGE_GAP }
            })
            .collect()
    };
    for layer in &g.layers {
        let sep = seps(layer);
        let mut at = 0.0;
        for (i, &v) in layer.iter().enumerate() {
            c[v] = at;
            at += sep.get(i).copied().unwrap_or(0.0);
        }
    }
    for sweep in 0..SWEEPS {
        let down = sweep % 2 == 0;
        let order: Vec<usize> = if down {
            (1..g.layers.len()).collect()
        } else {
            (0..g.layers.len().saturating_sub(1)).rev().collect()
        };
        for l in order {
            let layer = &g.layers[l];
            let side = if down { &adj.up } else { &adj.down };
            let desired: Vec<f64> = layer
                .iter()
                .map(|&v| {
                    let n = &side[v];
                    if n.is_empty() {
                        c[v]
                    } else {
                        let line: f64 = n.iter().map(|&u| c[u] + ext[u].2).sum::<f64>();
                        line / n.len() as f64 - ext[v].2
                    }
                })
                .collect();
            for (&v, p) in layer.iter().zip(pava(&desired, &seps(layer))) {
                c[v] = p;
            }
        }
    }
    c
}

/// Where each of a box's edges meets its side: spread around its centre in the order of the
/// nodes they lead to, so arrows into one box do not share a point.
fn ports(
    box_: usize,
    steps: &[(usize, usize)],
    c: &[f64],
    ext: &[(f64, f64, f64)],
) -> Vec<(usize, f64)> {
    // (edge, the next node's line position)
    let mut by: Vec<(usize, f64)> = steps.iter().map(|&(e, u)| (e, c[u] + ext[u].2)).collect();
    by.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    let n = by.len() as f64;
    let step = PORT_STEP.min(ext[box_].1 / (n + 1.0));
    by.iter()
        .enumerate()
        .map(|(k, &(e, _))| (e, c[box_] + (k as f64 - (n - 1.0) / 2.0) * step))
        .collect()
}

pub fn place(g: &Layered, adj: &Adjacency, sizes: &Sizes, lr: bool) -> Layout {
    let ext: Vec<(f64, f64, f64)> = g.kinds.iter().map(|&k| extents(k, sizes, lr)).collect();
    let mut c = centres(g, adj, &ext);
    let low = (0..c.len())
        .map(|v| c[v] - ext[v].1 / 2.0)
        .fold(f64::INFINITY, f64::min);
    for x in &mut c {
        *x += MARGIN - low;
    }
    let across = (0..c.len())
        .map(|v| c[v] + ext[v].1 / 2.0)
        .fold(0.0, f64::max)
        + MARGIN;
    // Bands along the layer axis.
    let thick: Vec<f64> = g
        .layers
        .iter()
        .map(|l| l.iter().map(|&v| ext[v].0).fold(0.0, f64::max))
        .collect();
    let mut start = vec![MARGIN; thick.len()];
    for l in 1..thick.len() {
        start[l] = start[l - 1] + thick[l - 1] + BAND_GAP;
    }
    let along =
        start.last().copied().unwrap_or(MARGIN) + thick.last().copied().unwrap_or(0.0) + MARGIN;
    let band_end = |l: usize| start[l] + thick[l];
    // A node's span along the layer axis: centred in its band.
    let span = |v: usize| {
        let s = start[g.layer[v]] + (thick[g.layer[v]] - ext[v].0) / 2.0;
        (s, s + ext[v].0)
    };
    let point = |r: f64, o: f64| if lr { (r, o) } else { (o, r) };
    let rect = |r0: f64, r1: f64, o0: f64, o1: f64| {
        let (x, y) = point(r0, o0);
        let (w, h) = if lr {
            (r1 - r0, o1 - o0)
        } else {
            (o1 - o0, r1 - r0)
        };
        Rect { x, y, w, h }
    };
    let boxes_n = sizes.boxes.len();
    let boxes: Vec<Rect> = (0..boxes_n)
        .map(|v| {
            let (r0, r1) = span(v);
            rect(r0, r1, c[v] - ext[v].1 / 2.0, c[v] + ext[v].1 / 2.0)
        })
        .collect();
    // Ports: each box's outgoing steps and incoming steps.
    let mut out_port = vec![0.0; g.chains.len()];
    let mut in_port = vec![0.0; g.chains.len()];
    for b in 0..boxes_n {
        let outs: Vec<(usize, usize)> = (0..g.chains.len())
            .filter(|&e| g.chains[e][0] == b)
            .map(|e| (e, g.chains[e][1]))
            .collect();
        for (e, p) in ports(b, &outs, &c, &ext) {
            out_port[e] = p;
        }
        let ins: Vec<(usize, usize)> = (0..g.chains.len())
            .filter(|&e| *g.chains[e].last().unwrap() == b)
            .map(|e| (e, g.chains[e][g.chains[e].len() - 2]))
            .collect();
        for (e, p) in ports(b, &ins, &c, &ext) {
            in_port[e] = p;
        }
    }
    let edges = g
        .chains
        .iter()
        .enumerate()
        .map(|(e, chain)| {
            let (from, to) = (chain[0], *chain.last().unwrap());
            let mut pts = vec![
                point(span(from).1, out_port[e]),
                point(band_end(g.layer[from]), out_port[e]),
            ];
            let mut label = None;
            for &v in &chain[1..chain.len() - 1] {
                let line = c[v] + ext[v].2;
                pts.push(point(start[g.layer[v]], line));
                pts.push(point(band_end(g.layer[v]), line));
                if let Kind::Label(_) = g.kinds[v] {
                    let (r0, r1) = span(v);
                    label = Some(rect(
                        r0,
                        r1,
                        c[v] - ext[v].1 / 2.0 + LINE_GAP,
                        c[v] + ext[v].1 / 2.0,
                    ));
                }
            }
            pts.push(point(start[g.layer[to]], in_port[e]));
            pts.push(point(span(to).0, in_port[e]));
            pts.dedup();
            EdgePath {
                from,
                to,
                points: pts,
                label,
            }
        })
        .collect();
    let (width, height) = if lr { (along, across) } else { (across, along) };
    Layout {
        width,
        height,
        left_to_right: lr,
        boxes,
        edges,
    }
}

#[cfg(test)]
mod tests {
    use super::pava;

    #[test]
    fn pava_keeps_order_and_gaps_closest_to_the_wish() {
        // Free wishes are kept.
        assert_eq!(pava(&[0.0, 50.0], &[10.0]), vec![0.0, 50.0]);
        // Two wishes for one spot split the difference: 5 ± 5.
        assert_eq!(pava(&[5.0, 5.0], &[10.0]), vec![0.0, 10.0]);
        // A violator pools with its neighbours: wishes 0, 0, 30 with gaps 10 → -5, 5, 30.
        assert_eq!(
            pava(&[0.0, 0.0, 30.0], &[10.0, 10.0]),
            vec![-5.0, 5.0, 30.0]
        );
    }
}
