//! A rate limit at a service's admission, before the queue and before admission shedding:
//! Envoy's local rate limit filter (`envoy.filters.http.local_ratelimit`) on the inbound
//! listener of each instance's sidecar by default, or nginx's `limit_req` in front of it,
//! x/time/rate's `Wait` or Guava's `RateLimiter` in its handler. The limiter is the policy
//! crate's `RateLimiterConfig`; its token bucket is the one a call's `rate_limit` keeps.

use super::Outcome;
use super::choices::{RateLimitKey, RateLimitScope};
use cascade_policy::rate_limiter::RateLimiterConfig;

/// `rate_limit = { ... }` on a service.
#[derive(Debug, Clone, PartialEq)]
pub struct AdmissionLimit {
    pub limiter: RateLimiterConfig,
    /// The HTTP status a refusal answers with (Envoy's and the handlers' 429; nginx's
    /// `limit_req_status`, 503 by default), and the outcome it is to the caller.
    pub status: u16,
    /// One bucket per instance (Envoy's local limit) or one for the fleet.
    pub scope: RateLimitScope,
    /// Whose arrivals share a bucket within the scope: all, each client's (a tenant's), or
    /// each client operation's.
    pub key: RateLimitKey,
    /// A refusal carries Retry-After = the time until the bucket holds a token again.
    /// Off by default: Envoy's filter sends none.
    pub retry_after: bool,
}

impl AdmissionLimit {
    /// How many buckets the service keeps for `keys` keys: `keys` per instance slot
    /// (autoscaling's included, so an instance that comes into rotation has its own), or
    /// `keys` for the fleet.
    pub fn buckets(&self, instance_slots: u32, keys: usize) -> usize {
        keys * match self.scope {
            RateLimitScope::Instance => instance_slots as usize,
            RateLimitScope::Fleet => 1,
        }
    }

    /// The bucket an arrival at instance `i` with key `key` (of `keys`) draws from.
    #[inline]
    pub fn bucket_of(&self, i: usize, key: usize, keys: usize) -> usize {
        key + keys
            * match self.scope {
                RateLimitScope::Instance => i,
                RateLimitScope::Fleet => 0,
            }
    }

    /// The long-run rate the whole service admits with `instances` instances, per second:
    /// the bucket's rate times the instances for per-instance buckets (the sidecar pitfall),
    /// the bucket's rate alone for a fleet bucket.
    pub fn fleet_per_second(&self, instances: u32) -> f64 {
        match self.scope {
            RateLimitScope::Instance => self.limiter.per_second() * f64::from(instances),
            RateLimitScope::Fleet => self.limiter.per_second(),
        }
    }

    /// The outcome a refused request ends with at its caller: 429 is overloaded (what
    /// callers' retry conditions read as such), 503 unavailable, as any answer's status.
    pub fn refusal(&self) -> Outcome {
        Outcome::from_http_status(self.status)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cascade_policy::Nanos;
    use cascade_policy::token_bucket::{Refill, TokenBucketConfig};

    #[test]
    fn per_instance_buckets_admit_instances_times_the_rate() {
        let bucket = TokenBucketConfig::new(20, 1, Nanos::from_ms(10), Refill::Continuous)
            .expect("a valid bucket");
        let mut limit = AdmissionLimit {
            limiter: RateLimiterConfig::TokenBucket {
                bucket,
                wait: false,
            },
            status: 429,
            scope: RateLimitScope::Instance,
            key: RateLimitKey::None,
            retry_after: false,
        };
        assert_eq!(limit.buckets(10, 1), 10);
        assert_eq!(limit.bucket_of(7, 0, 1), 7);
        assert_eq!(limit.fleet_per_second(10), 1_000.0);
        // Three tenants: instance 7's buckets are 21, 22 and 23.
        assert_eq!(limit.buckets(10, 3), 30);
        assert_eq!(limit.bucket_of(7, 2, 3), 23);
        limit.scope = RateLimitScope::Fleet;
        assert_eq!(limit.buckets(10, 1), 1);
        assert_eq!(limit.bucket_of(7, 0, 1), 0);
        assert_eq!(limit.buckets(10, 3), 3);
        assert_eq!(limit.bucket_of(7, 2, 3), 2);
        assert_eq!(limit.fleet_per_second(10), 100.0);
    }
}
