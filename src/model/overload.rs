//! The physics of an overloaded service: work that grows with the instance's concurrency
//! (`contention`), and the worker time a refusal costs (`reject_work`). Work after the calls
//! is a plan's (`Plan::after`).

/// What a service's overload costs it: present only on a service that says so, so the others'
/// work and refusals take the plain path (`Service::overload` is `None`).
#[derive(Debug, Clone, PartialEq)]
pub struct Overload {
    pub contention: Option<Contention>,
    /// Worker time each refusal occupies, ns (0: refusals are free).
    pub reject_work: u64,
}

/// Work that grows with concurrency: each segment of a job's work (its work, its after-work)
/// is multiplied by `factor(busy)` with `busy` counted when the segment starts, itself
/// included. The factor is then fixed for the segment: a later change of concurrency does not
/// rescale work already under way (Brooker's collapse model draws service time at arrival).
#[derive(Debug, Clone, PartialEq)]
pub struct Contention {
    pub law: ContentionLaw,
    pub counts: ContentionCounts,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ContentionLaw {
    /// factor = 1 + k × max(0, busy − knee).
    Linear { k: f64, knee: f64 },
    /// (busy, factor) points, busy strictly increasing and factors at least 1, interpolated
    /// linearly between them and held flat beyond the first and the last.
    Table(Vec<(f64, f64)>),
}

/// Which of an instance's workers count as busy for the law.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContentionCounts {
    /// Every worker held: working, blocked on its downstream calls, or paying a refusal, as
    /// threads of a thread-per-request server are (the default).
    #[default]
    Held,
    /// Only workers doing work of their own (work, after-work, refusals), as on an event loop
    /// where a request waiting on its calls holds no thread.
    Working,
}

impl ContentionLaw {
    /// The factor work is multiplied by with `busy` workers counted.
    pub fn factor(&self, busy: u32) -> f64 {
        let busy = f64::from(busy);
        match self {
            ContentionLaw::Linear { k, knee } => 1.0 + k * (busy - knee).max(0.0),
            ContentionLaw::Table(points) => {
                let (first, last) = (points[0], points[points.len() - 1]);
                if busy <= first.0 {
                    return first.1;
                }
                if busy >= last.0 {
                    return last.1;
                }
                let at = points.partition_point(|p| p.0 <= busy);
                let ((b0, f0), (b1, f1)) = (points[at - 1], points[at]);
                f0 + (f1 - f0) * (busy - b0) / (b1 - b0)
            }
        }
    }
}

/// Work a job does after its last step of calls has ended, holding its worker (assembling the
/// answer).
#[derive(Debug, Clone)]
pub struct AfterWork {
    pub work: super::Latency,
    /// Also spent when a required call failed; by default a failure answers at once (a fast
    /// error path).
    pub on_failure: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_linear_law_is_flat_to_its_knee_then_grows_by_k_per_worker() {
        let law = ContentionLaw::Linear { k: 0.5, knee: 2.0 };
        assert_eq!(law.factor(0), 1.0);
        assert_eq!(law.factor(2), 1.0);
        assert_eq!(law.factor(3), 1.5);
        assert_eq!(law.factor(6), 3.0);
    }

    #[test]
    fn a_table_interpolates_between_points_and_holds_beyond_its_ends() {
        let law = ContentionLaw::Table(vec![(4.0, 1.0), (8.0, 2.0), (10.0, 4.0)]);
        assert_eq!(law.factor(1), 1.0);
        assert_eq!(law.factor(4), 1.0);
        assert_eq!(law.factor(6), 1.5);
        assert_eq!(law.factor(8), 2.0);
        assert_eq!(law.factor(9), 3.0);
        assert_eq!(law.factor(50), 4.0);
    }
}
