//! A service's admission rate limit (`Service::rate_limit`, `model/rate_limit.rs`): Envoy's
//! local rate limit filter on each instance's inbound listener by default, or nginx's
//! `limit_req`, x/time/rate's `Wait` or Guava's `RateLimiter`. An arrival asks its instance's
//! limiter (or the fleet's; with a `key`, its tenant's there), before admission shedding and
//! the queue: it passes, is refused at once (as the filter answers 429 before the request
//! reaches the application), or is held (`JobState::Delayed`: no worker, no queue place) and
//! arrives again when its delay is over (`delay_over`), to go on past the limiter.

use crate::engine::kernel::arena::Ref;
use crate::engine::kernel::simulation::Simulation;
use crate::engine::kernel::state::*;
use crate::model::Outcome;
use cascade_policy::Nanos;
use cascade_policy::rate_limiter::RateVerdict;

impl Simulation {
    /// True if job `jr` goes no further now: refused, or held for a delay. A refusal ends
    /// with the limit's status (429 overloaded, the answer every caller's retry conditions
    /// read as such, or nginx's 503 unavailable; a call's own `rate_limited` is a local
    /// rejection, never retried, which this is not); with `retry_after` it carries the time
    /// until the limiter would pass a request. It costs `reject_work` as any other (`refuse`).
    #[inline(never)]
    pub(in crate::engine) fn rate_limited(&mut self, jr: Ref, s: usize, i: usize) -> bool {
        let Some(limit) = &self.model.services[s].rate_limit else {
            return false;
        };
        let now = Nanos(self.now);
        let state = &mut self.services[s];
        let keyed = !state.rate_key_of.is_empty();
        let job = self.jobs.get(jr).expect("arriving job");
        let key = match keyed {
            false => 0,
            // A platform probe belongs to no tenant: a keyed limit does not charge it.
            true => match state.rate_key_of.get(job.origin as usize) {
                Some(&key) => key as usize,
                None => return false,
            },
        };
        // A waiting limiter (x/time/rate's Wait) gives up at once on what its deadline
        // would not see granted.
        let max_wait = Nanos(job.deadline.saturating_sub(self.now));
        let limiter = &mut state.rate_buckets[limit.bucket_of(i, key, state.rate_keys)];
        let verdict = limiter.admit(&limit.limiter, now, max_wait);
        if keyed {
            // Per key, on the service's own slot: its operations' slots keep no keys.
            let refused = matches!(verdict, RateVerdict::Refuse | RateVerdict::RefuseAfter(_));
            self.rec.services[s].rate_keys[key][usize::from(refused)] += 1;
        }
        let parked = match verdict {
            RateVerdict::Pass => return false,
            RateVerdict::Delay(wait) => {
                let job = self.jobs.get_mut(jr).expect("arriving job");
                self.rec.services[job.metric_slot as usize]
                    .rate_delay
                    .record(wait.0);
                self.hold(jr, wait.0);
                return true;
            }
            RateVerdict::Refuse => 0,
            RateVerdict::RefuseAfter(parked) => parked.0,
        };
        let retry_after = match limit.retry_after {
            true => limiter
                .until_room(&limit.limiter, now)
                .0
                .saturating_sub(parked),
            false => NO_RETRY_AFTER,
        };
        let outcome = limit.refusal();
        let job = self.jobs.get_mut(jr).expect("arriving job");
        self.rec.services[job.metric_slot as usize].rate_limited += 1;
        job.outcome = outcome;
        job.retry_after = retry_after;
        if parked > 0 {
            // resilience4j keeps the refused caller parked for its timeout first: held with
            // its refusal already decided, answered when the hold ends (`delay_over`).
            self.hold(jr, parked);
            return true;
        }
        job.state = JobState::Replying;
        self.refuse(jr, s, i);
        true
    }

    /// Holds job `jr` `wait` ns at the limiter: it arrives again then (`Event::Deliver`).
    fn hold(&mut self, jr: Ref, wait: u64) {
        self.jobs.get_mut(jr).expect("arriving job").state = JobState::Delayed;
        self.event_queue.push(self.now + wait, Event::Deliver(jr));
    }

    /// A held job's delay is over: it arrives at the application now (its wait and sojourn
    /// count from here) and goes on past the limiter, to admission shedding, the idempotency
    /// store and the queue; or, parked with its refusal decided, it is answered. A job no
    /// longer held (cancelled by its caller, lost with its instance) is left as it is.
    pub(in crate::engine) fn delay_over(&mut self, jr: Ref) {
        let now = self.now;
        let Some(job) = self.jobs.get_mut(jr) else {
            return;
        };
        if job.state != JobState::Delayed {
            return;
        }
        let (s, i, a) = (
            job.service as usize,
            job.instance as usize,
            job.metric_slot as usize,
        );
        if job.outcome != Outcome::Ok {
            // Parked, then refused: its answer leaves now.
            job.state = JobState::Replying;
            return self.refuse(jr, s, i);
        }
        job.state = JobState::InTransit;
        job.arrived = now;
        if self.screened_past_limit(jr, s, i) {
            return;
        }
        self.enter(jr, s, i, a);
    }
}
