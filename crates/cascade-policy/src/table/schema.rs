//! The tables' JSON Schema pieces that no derive writes (the `schema` feature): a duration's,
//! and `EnumOf`, an enum's names read from its own `Deserialize`. cascade's `cascade schema`
//! uses both for the rest of the scenario language too.

use super::duration::Dur;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use std::borrow::Cow;
use std::marker::PhantomData;

impl JsonSchema for Dur {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "Duration".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        // The pattern only says a duration starts with its number (as every one
        // `parse_duration` takes does), so an editor flags `"fast"`; the rest is validation's.
        json_schema!({
            "type": "string",
            "pattern": "^\\s*[0-9.]",
            "description": "A duration with its unit, as a string: \"250ms\", \"1.5s\", \"1m 30s\", or \"0\" (units ns, us, ms, s, m, h)",
            "examples": ["250ms", "2s"]
        })
    }
}

/// The schema of a closed set (`Wraps`, `BreakerScope`, …): the strings its own
/// `Deserialize` accepts, read from it, so the two cannot drift.
pub struct EnumOf<T>(PhantomData<T>);

impl<T: DeserializeOwned> JsonSchema for EnumOf<T> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "EnumOf".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "enum": variants_of::<T>() })
    }
}

/// The variant names a derived `Deserialize` of a unit-only enum accepts (as renamed), which
/// it passes to `deserialize_enum`: a deserializer that records them and stops.
pub fn variants_of<T: DeserializeOwned>() -> &'static [&'static str] {
    let mut names = VariantNames(&[]);
    let _ = T::deserialize(&mut names);
    names.0
}

struct VariantNames(&'static [&'static str]);

impl<'de> Deserializer<'de> for &mut VariantNames {
    type Error = de::value::Error;

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.0 = variants;
        Err(de::Error::custom("variant names recorded"))
    }

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not an enum"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct identifier
        ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::breaker::BreakerScope;
    use crate::bulkhead::Wraps;

    #[test]
    fn an_enum_lists_the_names_its_deserialize_accepts() {
        assert_eq!(variants_of::<Wraps>(), ["attempt", "call"]);
        assert_eq!(variants_of::<BreakerScope>(), ["edge", "instance"]);
    }
}
