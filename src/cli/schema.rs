//! `cascade schema`: the JSON Schema (draft-07) of the scenario language on stdout, for
//! editors (`cascade schema > cascade.schema.json`, then Taplo / Even Better TOML's
//! `#:schema ./cascade.schema.json`) and tools. Generated from the types the parser reads
//! scenarios into, so it names every key with its description and default.

use cascade::Result;
use cascade::scenario::schema_json::json_schema;
use std::process::ExitCode;

pub fn schema() -> Result<ExitCode> {
    // Pretty-printed, as editors and people read it; a schema is a few hundred lines.
    let text = serde_json::to_string_pretty(&json_schema()).expect("a JSON value prints");
    println!("{text}");
    Ok(ExitCode::SUCCESS)
}
