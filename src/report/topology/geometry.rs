//! What a topology layout is, in the SVG's own pixels: a box per client and service, a
//! polyline per call edge with its label's box, and the viewport they all sit in. The SVG is
//! drawn from it and `tests/suite/topology_layout.rs` checks it, so the test holds the geometry
//! itself, not the text of the drawing.

/// An axis-aligned rectangle: top-left corner, width and height.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub fn right(&self) -> f64 {
        self.x + self.w
    }

    pub fn bottom(&self) -> f64 {
        self.y + self.h
    }
}

/// One call edge: the nodes it joins (indices into `Layout::boxes`), the polyline from the
/// caller's box border to the callee's, and its label's box when it has a label.
#[derive(Debug, Clone, PartialEq)]
pub struct EdgePath {
    pub from: usize,
    pub to: usize,
    pub points: Vec<(f64, f64)>,
    pub label: Option<Rect>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// The viewport: everything lies in [0, width] × [0, height].
    pub width: f64,
    pub height: f64,
    /// Layers run left to right (else top to bottom).
    pub left_to_right: bool,
    /// Clients first, then services, in the model's order.
    pub boxes: Vec<Rect>,
    pub edges: Vec<EdgePath>,
}
