//! nginx's `limit_req`: a leaky bucket per key with a burst and a delay, followed from
//! `ngx_http_limit_req_module.c` (`ngx_http_limit_req_lookup` and `_account`, nginx 1.15.7 and
//! later, where `delay=` exists).
//!
//! nginx keeps, per key, `excess` in thousandths of a request and `last`, the millisecond
//! of the last request that passed. A request at millisecond `now` computes
//! `excess = max(0, excess − rate · (now − last) / 1000 + 1000)` in integers (`rate` in
//! thousandths of a request per second: `10r/s` is 10,000, `30r/m` is 500); over
//! `burst · 1000` it is refused (503 by default) and nothing changes; else the key keeps the
//! new excess (and `last = now` if a millisecond has passed), and the request waits
//! `(excess − delay · 1000) · 1000 / rate` ms when its excess passes the `delay` threshold
//! (`delay=N`; 0 by default: every request over the rate waits; `nodelay`: none waits).
//! A key's first request finds no node: it passes with excess 0, so seven simultaneous
//! requests at `1r/s` with `burst=5` are one at once, five delayed 1 to 5 s, one refused.
//!
//! Left out, and why: nginx frees a key's node after 60 s idle with nothing in excess, but
//! only when a new key needs the room, so its next request starts again at excess 0 (one
//! request's difference, depending on other keys' arrivals); the node here is kept.

use crate::time::Nanos;

/// nginx's `limit_req_zone ... rate=` with the location's `limit_req burst= delay=|nodelay`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitReqConfig {
    /// Thousandths of a request per second: `r/s · 1000` or `r/m · 1000 / 60`, truncated as
    /// nginx truncates it.
    rate: u64,
    /// `burst`, in requests (nginx keeps it in thousandths).
    burst: u64,
    /// How many requests of the burst pass undelayed: `delay=N`, or `burst` for `nodelay`.
    delay: u64,
}

/// Why a `limit_req` configuration is refused, as nginx refuses it at start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LimitReqError {
    /// `rate` must be a whole number of requests, above 0, per second or per minute:
    /// "invalid rate" in nginx.
    Rate(String),
    /// `delay` past `burst`: nginx takes it, but it delays nothing more than `nodelay` does;
    /// refused so a typo does not silently mean `nodelay`.
    DelayPastBurst { delay: u64, burst: u64 },
}

impl std::fmt::Display for LimitReqError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LimitReqError::Rate(text) => write!(
                f,
                "rate must be a whole number of requests above 0 per second or per minute, \
                 as nginx writes it (\"10r/s\", \"30r/m\"), not {text:?}"
            ),
            LimitReqError::DelayPastBurst { delay, burst } => write!(
                f,
                "delay ({delay}) must not exceed burst ({burst}); `nodelay = true` lets the \
                 whole burst through undelayed"
            ),
        }
    }
}

impl LimitReqConfig {
    /// `rate` as nginx writes it (`"10r/s"`, `"30r/m"`), `burst` requests, and either
    /// `delay` requests undelayed or, with `nodelay`, the whole burst.
    pub fn new(
        rate: &str,
        burst: u64,
        delay: u64,
        nodelay: bool,
    ) -> Result<LimitReqConfig, LimitReqError> {
        let bad = || LimitReqError::Rate(rate.to_string());
        let (count, per) = match rate.strip_suffix("r/s") {
            Some(n) => (n, 1),
            None => (rate.strip_suffix("r/m").ok_or_else(bad)?, 60),
        };
        let count: u64 = count.parse().map_err(|_| bad())?;
        let rate = count.checked_mul(1000).ok_or_else(bad)? / per;
        if rate == 0 {
            return Err(bad());
        }
        if delay > burst {
            return Err(LimitReqError::DelayPastBurst { delay, burst });
        }
        let delay = if nodelay { burst } else { delay };
        Ok(LimitReqConfig { rate, burst, delay })
    }

    /// The rate in requests per second (a run table's figure).
    pub fn per_second(&self) -> f64 {
        self.rate as f64 / 1000.0
    }

    /// `burst`, in requests.
    pub fn burst(&self) -> u64 {
        self.burst
    }

    /// How many requests of the burst pass undelayed (`delay=N`; the burst for `nodelay`).
    pub fn undelayed(&self) -> u64 {
        self.delay
    }

    /// Whether a request can ever be delayed: some of the burst is past the delay threshold.
    pub fn delays(&self) -> bool {
        self.delay < self.burst
    }
}

/// What `limit_req` does with a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitReqVerdict {
    /// On to the next phase now.
    Pass,
    /// Held this long, then on (nginx's timer on the connection's write event).
    Delay(Nanos),
    /// Answered with `limit_req_status` at once.
    Refuse,
}

/// One key's node.
#[derive(Debug, Clone, Default)]
pub struct LimitReq {
    /// Thousandths of a request; `None` until the key's first request makes its node.
    excess: Option<u64>,
    /// The millisecond `excess` was last drained to.
    last_ms: u64,
}

const NS_PER_MS: u64 = 1_000_000;

impl LimitReq {
    /// The excess a request at millisecond `now_ms` would bring the node to, or `None` for a
    /// key's first request (no node yet: it passes at 0).
    fn excess_at(&self, cfg: &LimitReqConfig, now_ms: u64) -> Option<u64> {
        let before = self.excess?;
        // nginx's clock does not go back between requests here; `saturating_sub` is its clamp
        // of a negative span to 0.
        let ms = now_ms.saturating_sub(self.last_ms);
        let drained = u128::from(cfg.rate) * u128::from(ms) / 1000;
        Some((u128::from(before) + 1000).saturating_sub(drained) as u64)
    }

    /// A request at `now`: passed, delayed, or refused, and the node updated as nginx
    /// updates it (a refusal changes nothing).
    pub fn admit(&mut self, cfg: &LimitReqConfig, now: Nanos) -> LimitReqVerdict {
        let now_ms = now.0 / NS_PER_MS;
        let Some(excess) = self.excess_at(cfg, now_ms) else {
            self.excess = Some(0);
            self.last_ms = now_ms;
            return LimitReqVerdict::Pass;
        };
        if excess > cfg.burst * 1000 {
            return LimitReqVerdict::Refuse;
        }
        self.excess = Some(excess);
        // nginx moves `last` only when a millisecond has passed (`if (ms)`).
        self.last_ms = self.last_ms.max(now_ms);
        let threshold = cfg.delay * 1000;
        if excess <= threshold {
            return LimitReqVerdict::Pass;
        }
        let ms = (excess - threshold) * 1000 / cfg.rate;
        match ms {
            0 => LimitReqVerdict::Pass,
            ms => LimitReqVerdict::Delay(Nanos::from_ms(ms)),
        }
    }

    /// How long from `now` until a request would pass the burst again (a refusal's
    /// Retry-After when the option is on; nginx sends none): until the excess has drained to
    /// `burst · 1000 − 1000`, rounded up to the millisecond.
    pub fn until_room(&self, cfg: &LimitReqConfig, now: Nanos) -> Nanos {
        let now_ms = now.0 / NS_PER_MS;
        let Some(excess) = self.excess_at(cfg, now_ms) else {
            return Nanos::ZERO;
        };
        let over = excess.saturating_sub(cfg.burst * 1000);
        // Draining `over` thousandths takes `over · 1000 / rate` ms, rounded up.
        Nanos::from_ms((over * 1000).div_ceil(cfg.rate))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Nanos = Nanos::from_secs(1);

    fn run(cfg: &LimitReqConfig, at: &[Nanos]) -> Vec<LimitReqVerdict> {
        let mut node = LimitReq::default();
        at.iter().map(|&t| node.admit(cfg, t)).collect()
    }

    #[test]
    fn seven_at_once_with_burst_five_are_one_now_five_delayed_one_refused() {
        // nginx's documented example: rate=1r/s, burst=5.
        let cfg = LimitReqConfig::new("1r/s", 5, 0, false).unwrap();
        let got = run(&cfg, &[Nanos::ZERO; 7]);
        let mut want = vec![LimitReqVerdict::Pass];
        want.extend((1..=5).map(|k| LimitReqVerdict::Delay(k * S)));
        want.push(LimitReqVerdict::Refuse);
        assert_eq!(got, want);
    }

    #[test]
    fn nodelay_passes_the_burst_at_once_and_delay_n_holds_the_rest() {
        let nodelay = LimitReqConfig::new("1r/s", 5, 0, true).unwrap();
        let got = run(&nodelay, &[Nanos::ZERO; 7]);
        assert_eq!(got[..6], [LimitReqVerdict::Pass; 6]);
        assert_eq!(got[6], LimitReqVerdict::Refuse);
        // delay=2: the first three (the free first, excess 1 and 2) at once, then 1, 2, 3 s.
        let two = LimitReqConfig::new("1r/s", 5, 2, false).unwrap();
        let got = run(&two, &[Nanos::ZERO; 7]);
        assert_eq!(got[..3], [LimitReqVerdict::Pass; 3]);
        assert_eq!(got[3..6], [1, 2, 3].map(|k| LimitReqVerdict::Delay(k * S)));
        assert_eq!(got[6], LimitReqVerdict::Refuse);
    }

    #[test]
    fn the_bucket_drains_at_the_rate_with_millisecond_truncation() {
        // 10r/s, no burst: one request per 100 ms. The first is free (no node); at 1 ms the
        // excess would be 0 + 1000 - 10 > 0: refused, nothing kept; at 100 ms, 100 ms after
        // the last pass, 1000 - 1000 = 0: passes; at 199 ms 99 ms have drained 990: refused.
        let cfg = LimitReqConfig::new("10r/s", 0, 0, false).unwrap();
        let ms = Nanos::from_ms;
        let got = run(&cfg, &[ms(0), ms(1), ms(100), ms(199), ms(200)]);
        use LimitReqVerdict::*;
        assert_eq!(got, [Pass, Refuse, Pass, Refuse, Pass]);
        // burst=1 nodelay: two at once (the free one, then excess 1000), a third refused;
        // 100 ms drain one; 50 ms later the excess would be 1500: refused.
        let one = LimitReqConfig::new("10r/s", 1, 0, true).unwrap();
        let got = run(&one, &[ms(0), ms(0), ms(0), ms(100), ms(150)]);
        assert_eq!(got, [Pass, Pass, Refuse, Pass, Refuse]);
    }

    #[test]
    fn a_per_minute_rate_loses_drain_to_millisecond_truncation_as_nginx_does() {
        // 30r/m is 500 thousandths a second: 1 ms drains 0 (500 · 1 / 1000), and `last` still
        // moves on, so requests 1 ms apart never drain.
        let cfg = LimitReqConfig::new("30r/m", 3, 0, true).unwrap();
        let ms = Nanos::from_ms;
        let got = run(&cfg, &[ms(0), ms(1), ms(2), ms(3), ms(4)]);
        use LimitReqVerdict::*;
        assert_eq!(got, [Pass, Pass, Pass, Pass, Refuse]);
        assert_eq!(cfg.per_second(), 0.5);
    }

    #[test]
    fn until_room_is_the_drain_time_of_the_overshoot() {
        let cfg = LimitReqConfig::new("1r/s", 5, 0, false).unwrap();
        let mut node = LimitReq::default();
        for _ in 0..6 {
            node.admit(&cfg, Nanos::ZERO);
        }
        // Excess 5000; a seventh would bring it to 6000: room again after 1 s.
        assert_eq!(node.until_room(&cfg, Nanos::ZERO), S);
        assert_eq!(
            node.until_room(&cfg, Nanos::from_ms(400)),
            Nanos::from_ms(600)
        );
        assert_eq!(node.admit(&cfg, S), LimitReqVerdict::Delay(5 * S));
    }

    #[test]
    fn bad_rates_and_delays_are_refused() {
        for bad in ["10", "10r/h", "0r/s", "r/s", "1.5r/s", "-1r/s", "59r/m0"] {
            assert!(
                matches!(
                    LimitReqConfig::new(bad, 1, 0, false),
                    Err(LimitReqError::Rate(_))
                ),
                "{bad}"
            );
        }
        // 1r/m is 16 thousandths a second (1000 / 60, truncated): accepted.
        assert_eq!(LimitReqConfig::new("1r/m", 0, 0, false).unwrap().rate, 16);
        assert_eq!(
            LimitReqConfig::new("1r/s", 2, 3, false),
            Err(LimitReqError::DelayPastBurst { delay: 3, burst: 2 })
        );
        assert!(!LimitReqConfig::new("1r/s", 2, 0, true).unwrap().delays());
        assert!(LimitReqConfig::new("1r/s", 2, 1, false).unwrap().delays());
    }
}
