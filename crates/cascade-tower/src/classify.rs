//! How an attempt's result reads as an `Outcome`, the vocabulary every policy decides on, and
//! the Retry-After it carries: the `Classify` trait, and `HttpClassifier` for `http::Response`
//! (cascade-policy's `Outcome::from_http_status`, and `from_io_error_kind` for an error with
//! an `io::Error` among its sources), so `on = [...]` in a table means the same here as in
//! the simulator.

use cascade_policy::Nanos;
use cascade_policy::outcome::Outcome;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// An attempt's result as the policies read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Classified {
    pub outcome: Outcome,
    /// The wait the callee asked for (Retry-After), if any: the retry honours it as the
    /// table's `retry.retry_after` says.
    pub retry_after: Option<Nanos>,
    /// The callee said not to retry this answer (gRFC A6's negative or malformed pushback):
    /// the call ends with it whatever the table's `retry.on` says.
    pub server_refuses_retry: bool,
}

impl Classified {
    /// An outcome with nothing from the callee about retrying it: no Retry-After, no refusal
    /// (an expired attempt, a transport error, a success).
    pub fn unanswered(outcome: Outcome) -> Classified {
        Classified {
            outcome,
            retry_after: None,
            server_refuses_retry: false,
        }
    }
}

/// Reads an inner service's result as an outcome.
pub trait Classify<Resp, E> {
    fn classify(&self, result: Result<&Resp, &E>) -> Classified;
}

/// HTTP: the status as `Outcome::from_http_status` maps it (429 overloaded, 502 and 503
/// unavailable, 408 and 504 timeout, other 5xx internal, other 4xx invalid), a `Retry-After`
/// of delay-seconds or an IMF-fixdate HTTP-date (against the system clock; the obsolete date
/// forms are ignored), and an error by the first `std::io::Error` among its sources
/// (`Outcome::from_io_error_kind`: a refused connection is `refused`), or `unavailable` when
/// none is (the request never got an answer).
#[derive(Debug, Clone, Copy, Default)]
pub struct HttpClassifier;

impl<B, E> Classify<http::Response<B>, E> for HttpClassifier
where
    E: std::error::Error + 'static,
{
    fn classify(&self, result: Result<&http::Response<B>, &E>) -> Classified {
        match result {
            Ok(response) => Classified {
                outcome: Outcome::from_http_status(response.status().as_u16()),
                retry_after: (response.headers().get(http::header::RETRY_AFTER))
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| retry_after(v, SystemTime::now())),
                server_refuses_retry: false,
            },
            Err(error) => Classified::unanswered(error_outcome(error)),
        }
    }
}

/// The outcome of a transport error: by the first `io::Error` among its sources.
fn error_outcome(error: &(dyn std::error::Error + 'static)) -> Outcome {
    let mut source = Some(error);
    while let Some(e) = source {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            return Outcome::from_io_error_kind(io.kind());
        }
        source = e.source();
    }
    Outcome::Unavailable
}

/// A `Retry-After` value as the wait it asks for, read at wall-clock time `now`:
/// delay-seconds, or an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) less `now` (zero for
/// one past).
pub fn retry_after(value: &str, now: SystemTime) -> Option<Nanos> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        let secs: u64 = value.parse().ok()?;
        return Some(Nanos::from(Duration::from_secs(secs)));
    }
    let at = imf_fixdate(value)?;
    Some(Nanos::from(
        at.duration_since(now).unwrap_or(Duration::ZERO),
    ))
}

/// An IMF-fixdate (RFC 9110 §5.6.7) as a system time.
fn imf_fixdate(value: &str) -> Option<SystemTime> {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    // "Sun, 06 Nov 1994 08:49:37 GMT": the weekday is redundant and not checked.
    let mut parts = value.split(' ');
    let (_weekday, day, month, year, time, zone) = (
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
    );
    if parts.next().is_some() || zone != "GMT" || day.len() != 2 || year.len() != 4 {
        return None;
    }
    let number = |s: &str| -> Option<u64> {
        (s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok())?
    };
    let (day, year) = (number(day)?, number(year)?);
    let month = MONTHS.iter().position(|m| *m == month)? as u64 + 1;
    let mut hms = time.split(':').map(number);
    let (h, m, s) = (hms.next()??, hms.next()??, hms.next()??);
    if hms.next().is_some() || !(1..=31).contains(&day) || year < 1970 || h > 23 || m > 59 || s > 60
    {
        return None;
    }
    let secs = days_since_epoch(year, month, day) * 86_400 + h * 3_600 + m * 60 + s;
    UNIX_EPOCH.checked_add(Duration::from_secs(secs))
}

/// Days from 1970-01-01 to a civil date on or after it (proleptic Gregorian calendar).
fn days_since_epoch(year: u64, month: u64, day: u64) -> u64 {
    let leap = |y: u64| (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400);
    let years: u64 = (1970..year).map(|y| if leap(y) { 366 } else { 365 }).sum();
    const BEFORE: [u64; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
    let february = u64::from(month > 2 && leap(year));
    years + BEFORE[(month - 1) as usize] + february + day - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Nanos = Nanos::from_secs(1);

    #[test]
    fn retry_after_reads_seconds_and_a_fixed_http_date() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_777); // Sun, 06 Nov 1994 08:49:37 GMT
        assert_eq!(retry_after("120", now), Some(120 * S));
        assert_eq!(
            retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now),
            Some(Nanos::ZERO)
        );
        assert_eq!(
            retry_after("Sun, 06 Nov 1994 08:50:07 GMT", now),
            Some(30 * S)
        );
        assert_eq!(
            retry_after("Tue, 29 Feb 2000 00:00:00 GMT", UNIX_EPOCH),
            Some(951_782_400 * S)
        );
        for bad in [
            "",
            "-1",
            "1.5",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 UTC",
        ] {
            assert_eq!(retry_after(bad, now), None, "{bad:?}");
        }
    }

    #[test]
    fn an_http_answer_reads_as_cascade_reads_its_status() {
        let response = |status: u16, retry: Option<&str>| {
            let mut r = http::Response::builder().status(status);
            if let Some(v) = retry {
                r = r.header("retry-after", v);
            }
            r.body(()).unwrap()
        };
        let read = |r: &http::Response<()>| {
            <HttpClassifier as Classify<_, std::io::Error>>::classify(&HttpClassifier, Ok(r))
        };
        assert_eq!(read(&response(200, None)).outcome, Outcome::Ok);
        let throttled = read(&response(429, Some("2")));
        assert_eq!(
            (throttled.outcome, throttled.retry_after),
            (Outcome::Overloaded, Some(2 * S))
        );
        assert_eq!(read(&response(503, None)).outcome, Outcome::Unavailable);
        assert_eq!(read(&response(404, None)).outcome, Outcome::Invalid);
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        let classified = HttpClassifier.classify(Err::<&http::Response<()>, _>(&refused));
        assert_eq!(classified.outcome, Outcome::Refused);
    }
}
