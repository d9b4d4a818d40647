//! The script author's own knowledge of some public families (`hints.json`): how a value the
//! references need is worked out from the goal's values and from what a tool answered, written
//! as jq over the family's names and `$answer`. This is the "fixed plan per family" of a script
//! written against the public generator; the held-out families have none.

use mcpbench_pack::{Bindings, Known, Pack, Reading};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// The hints built in.
const HINTS: &str = include_str!("../hints.json");

#[derive(Deserialize)]
struct File {
    families: BTreeMap<String, Vec<Entry>>,
}

#[derive(Deserialize)]
struct Entry {
    /// The tool whose answer the value is read from (`schema`: the records the script read
    /// from a database, [`crate::schema::RECORDS`]); none: from the goal's values alone.
    #[serde(default)]
    after: Option<String>,
    #[serde(rename = "let")]
    name: String,
    value: String,
}

/// One hint, compiled against its family.
pub struct Hint {
    after: Option<String>,
    name: String,
    reading: Reading,
}

/// The hints of each of `pack`'s families, in its order (none for a family without any, or
/// whose hint does not compile against it: a family changed since its hints were written; a
/// test holds that the public ones all compile).
pub fn of(pack: &Pack, lib: &str) -> Vec<Vec<Hint>> {
    let file: File = serde_json::from_str(HINTS).expect("hints.json is checked by its test");
    (pack.families.iter())
        .map(|f| {
            let entries = file
                .families
                .get(&f.family.id)
                .map_or(&[][..], Vec::as_slice);
            (entries.iter())
                .filter_map(|e| {
                    Some(Hint {
                        after: e.after.clone(),
                        name: e.name.clone(),
                        reading: f.family.reading(&e.value, lib).ok()?,
                    })
                })
                .collect()
        })
        .collect()
}

/// Binds what the hints read from `answer` of `tool` (`None`: before any call); whether any
/// value changed.
pub fn apply(hints: &[Hint], tool: Option<&str>, answer: &Value, b: &mut Bindings) -> bool {
    let mut any = false;
    for h in hints.iter().filter(|h| h.after.as_deref() == tool) {
        // A value from the goal alone is worked out once; an answer's may refine it.
        if tool.is_none() && b.known(&h.name) != Known::No {
            continue;
        }
        if let Some(v) = b.read(&h.reading, answer)
            && b.value(&h.name).as_ref() != Some(&v)
        {
            any |= b.set(&h.name, &v);
        }
    }
    any
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_hint_names_a_public_family_and_compiles_against_it() {
        let script = crate::Script::public();
        let file: File = serde_json::from_str(HINTS).expect("hints.json parses");
        for (family, entries) in &file.families {
            let f = script
                .family(family)
                .unwrap_or_else(|| panic!("{family} is not a public family"));
            for e in entries {
                if let Err(problems) = f.reading(&e.value, script.lib()) {
                    panic!("{family} ${}: {problems:?}", e.name);
                }
                assert!(
                    f.bindings().names().contains(&e.name),
                    "{family}: ${} is not one of its names",
                    e.name
                );
            }
        }
    }
}
