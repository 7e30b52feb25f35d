//! What keeps the system down past the boundary, where the runs on either side of it tell:
//! the two ends' first replications compared. A service whose attempts per request (the
//! end-to-end amplification) grew by more than a tenth is a retry storm sustaining itself;
//! otherwise a service ending the run with a backlog the other end did not have is a queue
//! that does not drain; otherwise cascade does not name one.

use crate::model::Model;

/// The mechanism, and the service it shows at with its figures at each end.
#[derive(Debug, Clone, PartialEq)]
pub enum Mechanism {
    /// `service.<s>.attempts_per_request` from `below` to `above`.
    RetryStorm {
        service: String,
        below: f64,
        above: f64,
    },
    /// `service.<s>.in_flight_end` from `below` to `above`.
    Backlog {
        service: String,
        below: f64,
        above: f64,
    },
    /// The load alone: the baseline before the fault was already short of the load's goodput.
    OverloadedBefore,
    /// Neither: goodput stays below its baseline for a reason these figures do not show.
    Unnamed,
}

/// Compares the summaries of a run that recovered (`below` the boundary) and one that did not.
pub fn between(model: &Model, below: &[(String, f64)], above: &[(String, f64)]) -> Mechanism {
    let value = |summary: &[(String, f64)], name: &str| {
        summary
            .iter()
            .find(|(n, _)| n == name)
            .map_or(0.0, |(_, v)| *v)
    };
    let grown = |metric: &str, ratio: f64, floor: f64| {
        model
            .services
            .iter()
            .map(|s| {
                let name = crate::metrics::names::service_metric(&s.name, metric);
                (s.name.clone(), value(below, &name), value(above, &name))
            })
            .filter(|(_, b, a)| *a > floor && *a > b * ratio)
            .max_by(|x, y| (x.2 - x.1).total_cmp(&(y.2 - y.1)))
    };
    if let Some((service, below, above)) = grown("attempts_per_request", 1.1, 1.0) {
        return Mechanism::RetryStorm {
            service,
            below,
            above,
        };
    }
    if let Some((service, below, above)) = grown("in_flight_end", 2.0, 10.0) {
        return Mechanism::Backlog {
            service,
            below,
            above,
        };
    }
    Mechanism::Unnamed
}
