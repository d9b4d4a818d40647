//! Templates of tasks across two or three servers, where one server's output is another's
//! input (a count read from the tracker is posted to a channel, a file's text is mailed).
//! Each file groups templates by theme; every template here lists more than one server, and
//! its references call every server it lists.

mod data;
mod ops;
mod people;
mod plans;
mod rounds_customers;
mod rounds_schedule;
mod rounds_team;

use mcpbench_world::AnyTemplate;

pub(crate) fn templates() -> Vec<AnyTemplate> {
    let mut all = ops::templates();
    all.extend(people::templates());
    all.extend(data::templates());
    all.extend(plans::templates());
    all.extend(rounds_team::templates());
    all.extend(rounds_customers::templates());
    all.extend(rounds_schedule::templates());
    all
}

/// `template` with each `{name}` of `slots` replaced by its value (the goals' phrasings).
fn fill(template: &str, slots: &[(&str, &str)]) -> String {
    let mut out = template.to_string();
    for (name, value) in slots {
        out = out.replace(&format!("{{{name}}}"), value);
    }
    out
}
