//! The caller's side of a call: a client's requests, a logical call and its attempts through the
//! policy stack, their timers, hedges and replies, how attempts and calls end, and the policy
//! state the caller keeps.

pub(super) mod call_end;
pub(super) mod call_timers;
pub(super) mod calls;
pub(super) mod clients;
pub(super) mod ended_attempt;
pub(super) mod fresh_state;
pub(super) mod hedges;
pub(super) mod policy_state;
pub(super) mod pool_holds;
pub(super) mod replies;
pub(super) mod trace_rows;
