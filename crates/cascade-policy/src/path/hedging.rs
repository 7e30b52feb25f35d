//! Hedging's schedule: when an attempt's first hedged copy goes, and whether a due copy is
//! sent (its count and its budget), with when the next one goes.

use super::PathPolicies;
use crate::hedge::HedgeConfig;
use rand::Rng;

/// A hedge timer's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HedgeVerdict {
    /// The attempt has sent as many copies as the policy allows.
    Enough,
    /// The budget (the hedge budget, or the retry budget with `uses_retry_budget`) does not
    /// pay for a copy.
    BudgetExhausted,
    /// Send a copy now; the next one, if any, goes at this instant.
    Send { next: Option<u64> },
}

impl<R: Rng> PathPolicies<R> {
    /// An attempt that may be retried (`retry_allowed`: an idempotent call) is sent at `now`
    /// and is waited for until `expiry`: when its first hedged copy goes, if the policy and
    /// the latencies learned allow one before then.
    #[inline]
    pub fn first_hedge(
        &mut self,
        now: u64,
        cfg: &HedgeConfig,
        retry_allowed: bool,
        expiry: u64,
    ) -> Option<u64> {
        if !retry_allowed {
            return None;
        }
        let delay = self.hedge.as_mut()?.delay(now, cfg)?;
        let at = now.saturating_add(delay);
        (at < expiry).then_some(at)
    }

    /// A hedge timer fires at `now` for an attempt that has sent `sent` copies and is waited
    /// for until `expiry`: whether a copy goes now (the policy's count, then the budget), and
    /// when the next one does.
    pub fn hedge_due(
        &mut self,
        now: u64,
        cfg: &HedgeConfig,
        sent: u32,
        expiry: u64,
    ) -> HedgeVerdict {
        if sent >= cfg.max {
            return HedgeVerdict::Enough;
        }
        let budget = if cfg.uses_retry_budget {
            self.budget.as_mut()
        } else {
            self.hedge_budget.as_mut()
        };
        if budget.is_some_and(|b| !b.try_retry(now)) {
            return HedgeVerdict::BudgetExhausted;
        }
        let delay = self.hedge.as_mut().and_then(|t| t.delay(now, cfg));
        let next = delay
            .map(|d| now.saturating_add(d))
            .filter(|at| sent + 1 < cfg.max && *at < expiry);
        HedgeVerdict::Send { next }
    }
}
