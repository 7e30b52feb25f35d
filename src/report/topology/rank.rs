//! The first steps of the layered (Sugiyama) layout: each node's layer by longest path from
//! the clients, then every edge made a chain of one-layer steps. Layers are doubled so that
//! between two layers of boxes there is always one layer for edges alone: an edge's first
//! step past its caller holds its label (a node as wide as the label, so nothing can overlap
//! it), and every further layer it skips holds a dummy node, so the edge bends around the
//! boxes there instead of crossing them.

/// A node of the layered graph.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// A client or service (its index in the diagram).
    Box(usize),
    /// Where edge `e`'s label sits, beside its line.
    Label(usize),
    /// A bend of edge `e` in a layer it passes through.
    Dummy(usize),
}

pub struct Layered {
    pub kinds: Vec<Kind>,
    /// Each layered node's layer; boxes are on even layers.
    pub layer: Vec<usize>,
    /// Per edge, its layered nodes from caller to callee, one per layer.
    pub chains: Vec<Vec<usize>>,
    /// Each layer's nodes, in a first order (boxes in the diagram's order, then bends).
    pub layers: Vec<Vec<usize>>,
}

/// Each node's layer: clients 0, a service one more than its deepest caller (at least 1).
/// The call graph is acyclic (the scenario compiler refuses a cycle), so `nodes` rounds of
/// relaxation reach the fixed point.
pub fn longest_path(nodes: usize, clients: usize, edges: &[(usize, usize)]) -> Vec<usize> {
    let mut rank: Vec<usize> = (0..nodes).map(|i| usize::from(i >= clients)).collect();
    for _ in 0..nodes {
        let mut changed = false;
        for &(from, to) in edges {
            if rank[to] < rank[from] + 1 {
                rank[to] = rank[from] + 1;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    rank
}

/// The layered graph: `edges` as (caller, callee, has a label).
pub fn layered(nodes: usize, clients: usize, edges: &[(usize, usize, bool)]) -> Layered {
    let pairs: Vec<(usize, usize)> = edges.iter().map(|e| (e.0, e.1)).collect();
    let rank = longest_path(nodes, clients, &pairs);
    let mut kinds: Vec<Kind> = (0..nodes).map(Kind::Box).collect();
    let mut layer: Vec<usize> = rank.iter().map(|r| 2 * r).collect();
    let mut chains = Vec::with_capacity(edges.len());
    for (e, &(from, to, labelled)) in edges.iter().enumerate() {
        let mut chain = vec![from];
        for l in layer[from] + 1..layer[to] {
            let kind = if l == layer[from] + 1 && labelled {
                Kind::Label(e)
            } else {
                Kind::Dummy(e)
            };
            chain.push(kinds.len());
            kinds.push(kind);
            layer.push(l);
        }
        chain.push(to);
        chains.push(chain);
    }
    let depth = layer.iter().copied().max().map_or(1, |m| m + 1);
    let mut layers = vec![Vec::new(); depth];
    for (v, &l) in layer.iter().enumerate() {
        layers[l].push(v);
    }
    Layered {
        kinds,
        layer,
        chains,
        layers,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skip_edge_gets_a_label_and_a_bend_per_layer_it_passes() {
        // client 0 → a (1) → b (2), and a skip 1 → 3 past 2.
        let g = layered(
            4,
            1,
            &[(0, 1, true), (1, 2, false), (2, 3, false), (1, 3, true)],
        );
        assert_eq!(&g.layer[..4], &[0, 2, 4, 6]);
        assert_eq!(g.chains[0], vec![0, 4, 1]);
        assert_eq!(g.kinds[4], Kind::Label(0));
        assert_eq!(g.kinds[5], Kind::Dummy(1));
        let skip = &g.chains[3];
        assert_eq!(skip.len(), 5);
        assert_eq!(g.kinds[skip[1]], Kind::Label(3));
        assert_eq!(g.kinds[skip[2]], Kind::Dummy(3));
        assert_eq!(g.kinds[skip[3]], Kind::Dummy(3));
        assert_eq!(g.layers[4], vec![2, skip[2]]);
    }
}
