//! The call graph must be acyclic: a request that could call itself again would never end.

use super::document::{Located, Source};
use crate::model::{self, CallSpec};

/// Rejects a call graph with a cycle, naming it (`a -> b -> a`).
pub fn check_acyclic(
    src: &Source,
    services: &[model::Service],
    fallbacks: &[CallSpec],
) -> Located<()> {
    // Callees of a service: its calls, and the services its calls fall back to.
    let callees = |s: usize| -> Vec<usize> {
        let calls = services[s].calls();
        calls
            .flat_map(|c| std::iter::once(c.to).chain(c.fallback.map(|f| fallbacks[f].to)))
            .collect()
    };
    // 0 = unvisited, 1 = on the current path, 2 = done.
    fn visit(
        s: usize,
        callees: &dyn Fn(usize) -> Vec<usize>,
        state: &mut [u8],
        path: &mut Vec<usize>,
    ) -> Option<Vec<usize>> {
        state[s] = 1;
        path.push(s);
        for to in callees(s) {
            match state[to] {
                1 => {
                    let start = path.iter().position(|&p| p == to).expect("on the path");
                    let mut cycle = path[start..].to_vec();
                    cycle.push(to);
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(to, callees, state, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state[s] = 2;
        None
    }
    let mut state = vec![0u8; services.len()];
    for s in 0..services.len() {
        if state[s] == 0
            && let Some(cycle) = visit(s, &callees, &mut state, &mut Vec::new())
        {
            let names: Vec<&str> = cycle.iter().map(|&i| services[i].name.as_str()).collect();
            return Err(src.error_at(
                &format!("service.{}.calls", names[0]),
                format!("the call graph has a cycle: {}", names.join(" -> ")),
            ));
        }
    }
    Ok(())
}
