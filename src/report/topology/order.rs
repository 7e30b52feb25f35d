//! Crossing reduction: the order of the nodes within each layer. Sweeps down and up the
//! layers, sorting each layer by the barycentre (mean position) of its neighbours in the
//! layer just fixed, and keeps the order with the fewest crossings seen. A node without
//! neighbours on that side keeps its place; sorts are stable, so the result is deterministic.

/// Sweeps after the first order; small graphs settle within a few.
const SWEEPS: usize = 12;

/// Each layered node's neighbours in the layer above (`up`) and below (`down`).
pub struct Adjacency {
    pub up: Vec<Vec<usize>>,
    pub down: Vec<Vec<usize>>,
}

pub fn adjacency(nodes: usize, chains: &[Vec<usize>]) -> Adjacency {
    let mut up = vec![Vec::new(); nodes];
    let mut down = vec![Vec::new(); nodes];
    for chain in chains {
        for w in chain.windows(2) {
            down[w[0]].push(w[1]);
            up[w[1]].push(w[0]);
        }
    }
    Adjacency { up, down }
}

fn positions(layers: &[Vec<usize>], nodes: usize) -> Vec<usize> {
    let mut pos = vec![0; nodes];
    for layer in layers {
        for (i, &v) in layer.iter().enumerate() {
            pos[v] = i;
        }
    }
    pos
}

/// Crossings between consecutive layers: two steps cross when their ends are in opposite
/// orders. Quadratic in the steps per layer, which the report's graphs keep small.
pub fn crossings(layers: &[Vec<usize>], adj: &Adjacency) -> usize {
    let pos = positions(layers, adj.up.len());
    let mut total = 0;
    for layer in layers {
        let steps: Vec<(usize, usize)> = layer
            .iter()
            .flat_map(|&a| adj.down[a].iter().map(move |&b| (a, b)))
            .map(|(a, b)| (pos[a], pos[b]))
            .collect();
        for (i, s) in steps.iter().enumerate() {
            for t in &steps[i + 1..] {
                if (s.0 < t.0 && s.1 > t.1) || (s.0 > t.0 && s.1 < t.1) {
                    total += 1;
                }
            }
        }
    }
    total
}

/// Sorts `layer` by the mean position of each node's neighbours (`side`) in the fixed layer.
fn sort_by_barycentre(layer: &mut [usize], side: &[Vec<usize>], pos: &[usize]) {
    let key: Vec<(f64, usize)> = layer
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let n = &side[v];
            let b = if n.is_empty() {
                i as f64
            } else {
                n.iter().map(|&u| pos[u] as f64).sum::<f64>() / n.len() as f64
            };
            (b, v)
        })
        .collect();
    let mut sorted = key;
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (slot, (_, v)) in layer.iter_mut().zip(sorted) {
        *slot = v;
    }
}

/// Reorders `layers` in place to few crossings.
pub fn reduce(layers: &mut [Vec<usize>], adj: &Adjacency) {
    let nodes = adj.up.len();
    let mut best = layers.to_vec();
    let mut fewest = crossings(layers, adj);
    for sweep in 0..SWEEPS {
        if fewest == 0 {
            break;
        }
        let down = sweep % 2 == 0;
        let order: Vec<usize> = if down {
            (1..layers.len()).collect()
        } else {
            (0..layers.len().saturating_sub(1)).rev().collect()
        };
        for l in order {
            let pos = positions(layers, nodes);
            let side = if down { &adj.up } else { &adj.down };
            sort_by_barycentre(&mut layers[l], side, &pos);
        }
        let c = crossings(layers, adj);
        if c < fewest {
            fewest = c;
            best = layers.to_vec();
        }
    }
    layers.clone_from_slice(&best);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untangles_a_crossed_pair() {
        // 0→3 and 1→2 cross in the order [0, 1] / [2, 3]; either swap removes the crossing.
        let chains = vec![vec![0, 3], vec![1, 2]];
        let adj = adjacency(4, &chains);
        let mut layers = vec![vec![0, 1], vec![2, 3]];
        assert_eq!(crossings(&layers, &adj), 1);
        reduce(&mut layers, &adj);
        assert_eq!(crossings(&layers, &adj), 0);
        assert_eq!(layers, vec![vec![0, 1], vec![3, 2]]);
    }
}
