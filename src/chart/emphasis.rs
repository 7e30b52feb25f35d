//! Which services a timeline draws first when it cannot draw them all: those a fault or an
//! expectation names, then those whose goodput moved most, then the rest in scenario order.

use crate::metrics::names;
use crate::model::fault::Target;
use crate::output::read_run::RunData;

/// `services` ordered by how much they matter to the run's story (stable within a rank).
pub fn rank_services(run: &RunData, services: &[String]) -> Vec<String> {
    let named = named_services(run);
    let swing = |s: &str| -> f64 {
        let Some(v) = run.series(&names::service_metric(s, "goodput_rps")) else {
            return 0.0;
        };
        let measured = run
            .times
            .iter()
            .zip(v)
            .filter(|(t, _)| **t >= run.warmup_s)
            .map(|(_, x)| *x);
        let (lo, hi) = measured.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
            (lo.min(x), hi.max(x))
        });
        if hi >= lo { hi - lo } else { 0.0 }
    };
    let mut ranked: Vec<(usize, &String)> = services.iter().enumerate().collect();
    // Named first; then the larger swing; then the scenario's order.
    ranked.sort_by(|(i, a), (j, b)| {
        let (na, nb) = (named.contains(a), named.contains(b));
        nb.cmp(&na)
            .then(swing(b).total_cmp(&swing(a)))
            .then(i.cmp(j))
    });
    ranked.into_iter().map(|(_, s)| s.clone()).collect()
}

/// Services a fault targets (an edge's fault: its callee) or an expectation's metric names.
fn named_services(run: &RunData) -> Vec<String> {
    let mut named = Vec::new();
    if let Some(m) = &run.model {
        for f in &m.faults {
            let s = match f.target {
                Target::Service(s) | Target::Instance(s, _) => Some(s),
                Target::Edge(e) => Some(m.edges[e].to),
                Target::Client(_) => None,
            };
            if let Some(s) = s {
                named.push(m.services[s].name.clone());
            }
        }
    }
    for e in &run.expects {
        named.extend(e.metric.split('.').map(String::from));
    }
    named
}
