//! A point written as a TOML array of two values (`[busy, factor]`, `[percent, duration]`,
//! `[duration, weight]`), read by hand: serde's tuples stop after their last element and
//! TOML's arrays do not complain, so a third value would be dropped unread. Here it is an
//! error naming the point, as every bad input is.

use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use std::fmt;
use std::marker::PhantomData;

/// What a kind of point is, for its errors: `PAIR` follows "a " (`[busy, factor] pair, such
/// as [4, 1.5]`).
pub(super) trait Shape {
    const PAIR: &'static str;
}

/// A `[busy, factor]` point of a service's `contention.table`.
pub(super) struct Busy;

impl Shape for Busy {
    const PAIR: &'static str = "[busy, factor] pair, such as [4, 1.5]";
}

/// A `[percent, duration]` row of an empirical distribution's `percentiles`.
pub(super) struct Percentile;

impl Shape for Percentile {
    const PAIR: &'static str = "[percent, duration] pair, such as [99, \"40ms\"]";
}

/// A `[duration, weight]` point of a `branch` fault's `warm_table`.
pub(super) struct Warm;

impl Shape for Warm {
    const PAIR: &'static str = "[duration, weight] pair, such as [\"10s\", 0.4]";
}

/// Two values read from an array of exactly two.
pub(super) struct Pair<A, B, S>(pub A, pub B, PhantomData<S>);

impl<'de, A: Deserialize<'de>, B: Deserialize<'de>, S: Shape> Deserialize<'de> for Pair<A, B, S> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Two<A, B, S>(PhantomData<(A, B, S)>);
        impl<'de, A: Deserialize<'de>, B: Deserialize<'de>, S: Shape> Visitor<'de> for Two<A, B, S> {
            type Value = Pair<A, B, S>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "a {}", S::PAIR)
            }

            fn visit_seq<Q: SeqAccess<'de>>(self, mut seq: Q) -> Result<Self::Value, Q::Error> {
                let short = |n| de::Error::invalid_length(n, &self);
                let a = seq.next_element()?.ok_or_else(|| short(0))?;
                let b = seq.next_element()?.ok_or_else(|| short(1))?;
                if seq.next_element::<de::IgnoredAny>()?.is_some() {
                    return Err(de::Error::custom(format!(
                        "a point is a {}: this one has more than two values",
                        S::PAIR
                    )));
                }
                Ok(Pair(a, b, PhantomData))
            }
        }
        d.deserialize_seq(Two(PhantomData))
    }
}

/// For `#[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "...")]`
/// on an optional list of points kept as tuples: their JSON Schema stays the tuple's (two
/// items, no more), and `skip_serializing_if` keeps schemars from giving `null` as a default.
pub(super) fn pairs<'de, D, A, B, S>(d: D) -> Result<Option<Vec<(A, B)>>, D::Error>
where
    D: Deserializer<'de>,
    A: Deserialize<'de>,
    B: Deserialize<'de>,
    S: Shape,
{
    let points = Option::<Vec<Pair<A, B, S>>>::deserialize(d)?;
    Ok(points.map(|v| v.into_iter().map(|Pair(a, b, _)| (a, b)).collect()))
}
