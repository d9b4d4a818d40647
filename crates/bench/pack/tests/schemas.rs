//! The committed JSON Schemas of the pack format are exactly what the types give.

use std::path::Path;

fn assert_current(relative: &str, schema: serde_json::Value) {
    let mut want = serde_json::to_string_pretty(&schema).unwrap();
    want.push('\n');
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../..")
        .join(relative);
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "{relative} is stale; run with UPDATE_SCHEMA=1 to rewrite it"
    );
}

#[test]
fn family_schema_file_is_current() {
    assert_current("schemas/family.schema.json", mcpbench_pack::family_schema());
}

#[test]
fn pack_schema_file_is_current() {
    assert_current("schemas/pack.schema.json", mcpbench_pack::pack_schema());
}
