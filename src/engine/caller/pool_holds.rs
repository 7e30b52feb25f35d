//! Bulkhead permits held past the caller's wait (`bulkhead.release = "answer"`, a connection
//! pool): an attempt's permit comes back only once the caller has stopped waiting for it AND
//! every copy it sent (the attempt's job and its hedges) has answered at the caller or had its
//! work ended at the callee (cancelled, dropped, lost in a crash). Every job leaves through
//! `free_job`, so a permit cannot leak: the last job gone, or the caller done if no job is
//! left, gives it back.
//!
//! Kept beside the calls and jobs, so a scenario without such a bulkhead carries nothing: its
//! only cost is `free_job`'s check that `jobs` is empty.

use crate::engine::kernel::arena::Ref;
use std::collections::HashMap;

/// One attempt's (or, attempt 0, one whole call's) permit: the bulkhead it belongs to, how
/// many of its jobs are still out, and whether the caller still waits.
#[derive(Debug, Clone, Copy)]
struct Hold {
    pool: u32,
    jobs: u32,
    caller_waits: bool,
}

/// Which attempt holds a permit: its call and attempt number (unique while the call lives; a
/// call's `Ref` is never reused with the same generation).
type Attempt = (u32, u32, u32);

fn key(call: Ref, attempt: u32) -> Attempt {
    (call.index, call.generation.get(), attempt)
}

fn job_key(job: Ref) -> (u32, u32) {
    (job.index, job.generation.get())
}

/// The permits held on answer, and the jobs holding them. Only looked up, never iterated, so
/// the hash order cannot reach the results.
#[derive(Debug, Default)]
pub struct PoolHolds {
    holds: HashMap<Attempt, Hold>,
    jobs: HashMap<(u32, u32), Attempt>,
}

impl PoolHolds {
    /// True while no job holds a permit (the check `free_job` makes).
    #[inline(always)]
    pub fn no_jobs(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Job `job` was sent for attempt `attempt` of `call` (0: any attempt of a call holding
    /// one permit throughout), which holds a permit of bulkhead `pool`.
    pub fn job_sent(&mut self, call: Ref, attempt: u32, pool: u32, job: Ref) {
        let k = key(call, attempt);
        let hold = self.holds.entry(k).or_insert(Hold {
            pool,
            jobs: 0,
            caller_waits: true,
        });
        hold.jobs += 1;
        self.jobs.insert(job_key(job), k);
    }

    /// The caller stopped waiting for attempt `attempt` of `call`. True if the permit comes
    /// back now (no job of it is still out).
    pub fn caller_done(&mut self, call: Ref, attempt: u32) -> bool {
        let k = key(call, attempt);
        match self.holds.get_mut(&k) {
            None => true,
            Some(hold) if hold.jobs == 0 => {
                self.holds.remove(&k);
                true
            }
            Some(hold) => {
                hold.caller_waits = false;
                false
            }
        }
    }

    /// Job `job` is gone. The bulkhead whose permit comes back now, if this was the last thing
    /// holding it.
    pub fn job_gone(&mut self, job: Ref) -> Option<u32> {
        let k = self.jobs.remove(&job_key(job))?;
        let hold = self
            .holds
            .get_mut(&k)
            .expect("a job's hold lives while the job does");
        hold.jobs -= 1;
        if hold.jobs == 0 && !hold.caller_waits {
            let pool = hold.pool;
            self.holds.remove(&k);
            Some(pool)
        } else {
            None
        }
    }

    /// Permits held (attempts not yet given back), for tests.
    #[cfg(test)]
    pub fn held(&self) -> usize {
        self.holds.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::arena::Arena;

    fn refs(n: usize) -> (Arena<u8>, Vec<Ref>) {
        let mut a = Arena::default();
        let r = (0..n).map(|_| a.insert(0)).collect();
        (a, r)
    }

    #[test]
    fn the_permit_waits_for_the_caller_and_every_copy() {
        let (_a, r) = refs(4);
        let (call, job, hedge) = (r[0], r[1], r[2]);
        let mut p = PoolHolds::default();
        p.job_sent(call, 1, 7, job);
        p.job_sent(call, 1, 7, hedge);
        assert!(!p.caller_done(call, 1), "two copies still out");
        assert_eq!(
            p.job_gone(job),
            None,
            "the hedge still holds the connection"
        );
        assert_eq!(
            p.job_gone(hedge),
            Some(7),
            "the last copy gone: back to slot 7"
        );
        assert_eq!(p.held(), 0);
        assert!(p.no_jobs());
    }

    #[test]
    fn an_answer_before_the_caller_is_done_releases_at_the_callers_end() {
        let (_a, r) = refs(2);
        let mut p = PoolHolds::default();
        p.job_sent(r[0], 2, 3, r[1]);
        assert_eq!(p.job_gone(r[1]), None, "the caller still waits");
        assert!(p.caller_done(r[0], 2), "now it is back");
        assert_eq!(p.held(), 0);
    }

    #[test]
    fn an_attempt_with_no_job_out_gives_its_permit_back_at_once() {
        let (_a, r) = refs(2);
        let mut p = PoolHolds::default();
        assert!(p.caller_done(r[0], 1));
        assert_eq!(p.job_gone(r[1]), None, "a job that held nothing");
    }
}
