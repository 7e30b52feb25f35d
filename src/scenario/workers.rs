//! A service's `workers` as written: a whole number of workers per instance, or `"unbounded"`
//! for an infinite-server station (an external provider, a serverless function: M/G/∞).
//! Both become one `u32`, `Service::UNBOUNDED` standing for the infinite count, because the
//! engine's only use of the count is `busy < workers`, which that value keeps true at no
//! cost: an unbounded service runs the plain path, nothing per worker.

use crate::model::Service;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use std::borrow::Cow;
use std::fmt;

/// `service.<s>.workers`: at least 1 and below `Service::UNBOUNDED`, or that value for
/// `"unbounded"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawWorkers(pub u32);

/// What every refusal of the field says, so a user learns both forms at once.
const EXPECTED: &str = "an integer ≥ 1 or \"unbounded\"";

impl<'de> Deserialize<'de> for RawWorkers {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<RawWorkers, D::Error> {
        struct WorkersVisitor;
        impl Visitor<'_> for WorkersVisitor {
            type Value = RawWorkers;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(EXPECTED)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawWorkers, E> {
                // u32::MAX itself is the unbounded count: a finite one stays below it.
                match u32::try_from(v) {
                    Ok(n) if (1..Service::UNBOUNDED).contains(&n) => Ok(RawWorkers(n)),
                    _ => Err(E::custom(format!("expected {EXPECTED}, got {v}"))),
                }
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawWorkers, E> {
                self.visit_i64(i64::try_from(v).unwrap_or(i64::MAX))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RawWorkers, E> {
                if v == "unbounded" {
                    Ok(RawWorkers(Service::UNBOUNDED))
                } else {
                    Err(E::custom(format!("expected {EXPECTED}, got \"{v}\"")))
                }
            }
        }
        d.deserialize_any(WorkersVisitor)
    }
}

impl JsonSchema for RawWorkers {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "Workers".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "Workers per instance: requests handled at once by one instance, or \"unbounded\" for an infinite-server station (M/G/∞: no request ever waits)",
            "anyOf": [
                { "type": "integer", "minimum": 1, "maximum": Service::UNBOUNDED - 1 },
                { "const": "unbounded" }
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(value: &str) -> Result<u32, String> {
        #[derive(Deserialize)]
        struct T {
            workers: RawWorkers,
        }
        toml_edit::de::from_str::<T>(&format!("workers = {value}"))
            .map(|t| t.workers.0)
            .map_err(|e| e.message().to_string())
    }

    #[test]
    fn takes_a_count_or_unbounded() {
        assert_eq!(parse("1"), Ok(1));
        assert_eq!(parse("100000"), Ok(100_000));
        assert_eq!(parse("\"unbounded\""), Ok(Service::UNBOUNDED));
    }

    #[test]
    fn refuses_anything_else_saying_both_forms() {
        for bad in ["0", "-3", "4294967295", "\"many\"", "1.5", "true"] {
            let e = parse(bad).unwrap_err();
            assert!(e.contains("an integer ≥ 1 or \"unbounded\""), "{bad}: {e}");
        }
    }
}
