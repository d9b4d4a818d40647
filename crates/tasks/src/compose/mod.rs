//! Templates of tasks across two or three servers, where one server's output is another's
//! input (a number read from the database is posted to a channel, a file's text is mailed).

use mcpbench_world::AnyTemplate;

pub(crate) fn templates() -> Vec<AnyTemplate> {
    Vec::new()
}
