//! The JSON Schema of the task format, generated from the types. `schemas/task.schema.json` is
//! this function's output, kept in sync by a test.

use crate::task::Task;
use schemars::generate::SchemaSettings;
use serde_json::Value;

pub fn task_schema() -> Value {
    let generator = SchemaSettings::draft2020_12().into_generator();
    let mut schema = generator.into_root_schema_for::<Task>().to_value();
    if let Some(map) = schema.as_object_mut() {
        map.insert("$id".into(), "urn:mcpbench:schema:task:1".into());
        map.insert("title".into(), "MCPBench task".into());
    }
    schema
}
