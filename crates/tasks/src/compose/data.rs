//! (being written)

use mcpbench_world::AnyTemplate;

pub(crate) fn templates() -> Vec<AnyTemplate> {
    Vec::new()
}
