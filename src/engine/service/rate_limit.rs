//! A service's admission rate limit (`Service::rate_limit`, `model/rate_limit.rs`): Envoy's
//! local rate limit filter on each instance's inbound listener. An arrival takes a token from
//! its instance's bucket (or the fleet's; with a `key`, its tenant's there) or is answered at
//! once, before admission shedding and the queue, as the filter answers 429 before the
//! request reaches the application.

use crate::engine::kernel::arena::Ref;
use crate::engine::kernel::simulation::Simulation;
use crate::engine::kernel::state::*;
use crate::model::Outcome;
use cascade_policy::Nanos;

impl Simulation {
    /// True if the bucket of job `jr`'s instance `i` (or the fleet's) was empty: the job is
    /// refused as overloaded, the 429 every caller's retry conditions read as such (a call's
    /// own `rate_limited` is a local rejection, never retried, which this is not). With
    /// `retry_after` the refusal carries the time until the bucket holds a token again. The
    /// refusal costs `reject_work` as any other (`refuse`).
    #[inline(never)]
    pub(in crate::engine) fn rate_limited(&mut self, jr: Ref, s: usize, i: usize) -> bool {
        let Some(limit) = &self.model.services[s].rate_limit else {
            return false;
        };
        let now = Nanos(self.now);
        let state = &mut self.services[s];
        let keyed = !state.rate_key_of.is_empty();
        let key = match keyed {
            false => 0,
            true => {
                let origin = self.jobs.get(jr).expect("arriving job").origin;
                // A platform probe belongs to no tenant: a keyed limit does not charge it.
                match state.rate_key_of.get(origin as usize) {
                    Some(&key) => key as usize,
                    None => return false,
                }
            }
        };
        let bucket = &mut state.rate_buckets[limit.bucket_of(i, key, state.rate_keys)];
        let taken = bucket.try_take(now);
        if keyed {
            // Per key, on the service's own slot: its operations' slots keep no keys.
            self.rec.services[s].rate_keys[key][usize::from(!taken)] += 1;
        }
        if taken {
            return false;
        }
        let retry_after = match limit.retry_after {
            true => bucket.until_next(now).0,
            false => NO_RETRY_AFTER,
        };
        let job = self.jobs.get_mut(jr).expect("arriving job");
        self.rec.services[job.metric_slot as usize].rate_limited += 1;
        job.state = JobState::Replying;
        job.outcome = Outcome::Overloaded;
        job.retry_after = retry_after;
        self.refuse(jr, s, i);
        true
    }
}
