//! Task families as data: a pack is a directory of family files that say, in JSON, what a
//! template in Rust says in code (the values a task draws, its goal's wordings, its world, its
//! predicate, references and faults), so that a deployment can hold families that were never
//! in the repository. `docs/packs.md` is the format's manual; `schemas/family.schema.json` and
//! `schemas/pack.schema.json` are generated from the types here.
//!
//! - `expr`: jq expressions (jaq), pure: the ambient filters are shadowed;
//! - `wording`: text with `{slots}` and `[choices]`;
//! - `family`: the file format; `template`: JSON with values spliced in;
//! - `program`: a family compiled and drawn into a task body;
//! - `pack`: a directory read, hashed and compiled; `check`: a pack proven over many draws;
//! - `public`: the public pack, built in: the families the public sets are drawn from.

mod check;
mod expr;
mod family;
mod pack;
mod program;
mod public;
mod template;
mod wording;

pub use check::{FamilyReport, PackReport, check_families, check_pack, draw_tasks};
pub use family::{FAMILY_FORMAT, FamilyFile, parse_family};
pub use pack::{
    LoadedFamily, MAX_FAMILIES, MAX_FILE_BYTES, MAX_PACK_BYTES, PACK_FORMAT, Pack, PackError,
    PackFile, PackManifest, pack_hash, template,
};
pub use program::{Bindings, Family, Field, Known, Reading, UNKNOWN, path};
pub use public::{generate_public, public_files, public_pack, public_templates};
pub use wording::Shape;

use schemars::generate::SchemaSettings;
use serde_json::Value;

/// The JSON Schema of a family file (`schemas/family.schema.json`).
pub fn family_schema() -> Value {
    schema::<FamilyFile>("urn:mcpbench:schema:family:1", "MCPBench task family")
}

/// The JSON Schema of a pack's `pack.json` (`schemas/pack.schema.json`).
pub fn pack_schema() -> Value {
    schema::<PackManifest>("urn:mcpbench:schema:pack:1", "MCPBench pack")
}

fn schema<T: schemars::JsonSchema>(id: &str, title: &str) -> Value {
    let generator = SchemaSettings::draft2020_12().into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    if let Some(map) = schema.as_object_mut() {
        map.insert("$id".into(), id.into());
        map.insert("title".into(), title.into());
    }
    schema
}
