//! The state machine of a Prometheus alerting rule (rules/alerting.go), one evaluation at a
//! time: inactive → pending when the condition is first seen true (its `activeAt`); pending →
//! firing at the first evaluation at which t − activeAt ≥ `for` (at once when `for` is 0);
//! pending → inactive when seen false; firing → inactive (resolved) at the first false
//! evaluation at which t − keepFiringSince ≥ `keep_firing_for`, keepFiringSince being the first
//! false evaluation since it last saw the condition true (so with 0, at the first false one).

/// Where a rule stands between evaluations.
#[derive(Debug, Clone, Copy, PartialEq)]
enum State {
    Inactive,
    Pending { active_at: u64 },
    Firing { since: u64, keep_since: Option<u64> },
}

/// The firing intervals [start, end) ns of a rule given its condition at each evaluation, in
/// time order; one still firing after the last evaluation ends at `run_end`.
pub fn firing_intervals(
    evaluations: impl IntoIterator<Item = (u64, bool)>,
    hold: u64,
    keep_firing_for: u64,
    run_end: u64,
) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut state = State::Inactive;
    for (t, holds) in evaluations {
        state = match (state, holds) {
            (State::Inactive, true) => pending_or_firing(t, t, hold),
            (State::Pending { active_at }, true) => pending_or_firing(active_at, t, hold),
            (State::Inactive | State::Pending { .. }, false) => State::Inactive,
            (State::Firing { since, .. }, true) => State::Firing {
                since,
                keep_since: None,
            },
            (State::Firing { since, keep_since }, false) => {
                let keep_since = keep_since.unwrap_or(t);
                if t - keep_since < keep_firing_for {
                    State::Firing {
                        since,
                        keep_since: Some(keep_since),
                    }
                } else {
                    out.push((since, t));
                    State::Inactive
                }
            }
        };
    }
    if let State::Firing { since, .. } = state {
        out.push((since, run_end.max(since)));
    }
    out
}

fn pending_or_firing(active_at: u64, t: u64, hold: u64) -> State {
    if t - active_at >= hold {
        State::Firing {
            since: t,
            keep_since: None,
        }
    } else {
        State::Pending { active_at }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;

    /// Evaluations every `every` seconds from `every`, true where `f(t_s)`.
    fn evals(every: u64, until: u64, f: impl Fn(u64) -> bool) -> Vec<(u64, bool)> {
        (1..=until / every)
            .map(|k| (k * every * S, f(k * every)))
            .collect()
    }

    #[test]
    fn a_step_with_for_fires_at_the_first_evaluation_a_hold_after_it_was_first_seen() {
        // Evaluated every 30 s; the condition is true from t = 100 s on. First seen at 120 s
        // (pending, activeAt = 120 s); 120 + 300 = 420 s is an evaluation: fires there.
        let e = evals(30, 900, |t| t >= 100);
        assert_eq!(
            firing_intervals(e, 300 * S, 0, 900 * S),
            vec![(420 * S, 900 * S)]
        );
        // With `for` = 310 s the first evaluation with t − 120 ≥ 310 is 450 s.
        let e = evals(30, 900, |t| t >= 100);
        assert_eq!(
            firing_intervals(e, 310 * S, 0, 900 * S),
            vec![(450 * S, 900 * S)]
        );
    }

    #[test]
    fn for_zero_fires_at_the_first_true_evaluation_and_resolves_at_the_first_false_one() {
        let e = evals(10, 100, |t| (30..=50).contains(&t));
        assert_eq!(firing_intervals(e, 0, 0, 100 * S), vec![(30 * S, 60 * S)]);
    }

    #[test]
    fn keep_firing_for_holds_it_past_the_condition() {
        // True at 30..=50 s; first false at 60 s; kept while t − 60 < 25: at 60, 70, 80;
        // resolved at 90 s.
        let e = evals(10, 200, |t| (30..=50).contains(&t));
        assert_eq!(
            firing_intervals(e, 0, 25 * S, 200 * S),
            vec![(30 * S, 90 * S)]
        );
        // A true evaluation while kept resets it: true again at 80 s, then false from 90 s:
        // resolved at 90 + 30 = 120 s.
        let e = evals(10, 200, |t| (30..=50).contains(&t) || t == 80);
        assert_eq!(
            firing_intervals(e, 0, 30 * S, 200 * S),
            vec![(30 * S, 120 * S)]
        );
    }

    #[test]
    fn a_flapping_condition_never_outlasts_for() {
        // True for 60 s, false for 10 s, over and over: with `for` = 2 min never fires.
        let e = evals(10, 3600, |t| t % 70 != 0);
        assert_eq!(firing_intervals(e, 120 * S, 0, 3600 * S), vec![]);
        // With `for` = 50 s it fires in every true stretch long enough.
        let e = evals(10, 140, |t| t % 70 != 0);
        assert_eq!(
            firing_intervals(e, 50 * S, 0, 140 * S),
            vec![(60 * S, 70 * S), (130 * S, 140 * S)]
        );
    }

    #[test]
    fn pending_that_turns_false_starts_over() {
        // True at 10, 20, false at 30, true from 40: activeAt 40, fires at 40 + 30 = 70 s.
        let e = evals(10, 100, |t| t != 30);
        assert_eq!(
            firing_intervals(e, 30 * S, 0, 100 * S),
            vec![(70 * S, 100 * S)]
        );
    }
}
