//! Template grammars for tasks on the filesystem alone, one file per category. Every parameter is drawn from a
//! bounded pool or range, and every goal states each concrete value the task needs.

mod composition;
mod recovery;
mod single;

use composition::*;
use recovery::*;
use single::*;

use crate::{Atom, Filesystem, Seed};
use mcpbench_sim::{
    Category, Difficulty, Draft, ErrorKind, Fault, Pred, Rng, Step, Template, call, qualified,
};
use serde_json::json;
use std::collections::BTreeMap;

pub(super) const USERS: &[&str] = &[
    "dana", "omar", "li", "priya", "jonas", "mei", "tariq", "ines", "kofi", "sven",
];
pub(super) const APPS: &[&str] = &[
    "acme", "billing", "ingest", "search", "gateway", "payments", "ledger", "notify",
];
pub(super) const WORDS: &[&str] = &[
    "eggs",
    "rice",
    "tomatoes",
    "invoice",
    "quarterly",
    "budget",
    "roadmap",
    "meeting",
    "deploy",
    "backup",
    "review",
    "summary",
    "draft",
    "launch",
    "metrics",
    "onboarding",
    "audit",
    "retro",
];
pub(super) const SETTINGS: &[(&str, &[&str])] = &[
    ("port", &["8080", "9090", "3000", "5432", "7000"]),
    ("log_level", &["info", "debug", "warn", "error"]),
    ("workers", &["2", "4", "8", "16"]),
    ("timeout_seconds", &["30", "60", "90", "120"]),
    ("region", &["eu-west", "us-east", "ap-south"]),
];

pub(crate) fn all() -> Vec<Template<Filesystem>> {
    use Category::*;
    use Difficulty::*;
    vec![
        Template {
            id: "filesystem.write_note",
            category: SingleTool,
            difficulty: Easy,
            build: write_note,
        },
        Template {
            id: "filesystem.make_directory",
            category: SingleTool,
            difficulty: Easy,
            build: make_directory,
        },
        Template {
            id: "filesystem.rename_file",
            category: SingleTool,
            difficulty: Medium,
            build: rename_file,
        },
        Template {
            id: "filesystem.replace_setting",
            category: SingleTool,
            difficulty: Medium,
            build: replace_setting,
        },
        Template {
            id: "filesystem.move_by_extension",
            category: Composition,
            difficulty: Medium,
            build: move_by_extension,
        },
        Template {
            id: "filesystem.merge_files",
            category: Composition,
            difficulty: Hard,
            build: merge_files,
        },
        Template {
            id: "filesystem.find_largest",
            category: Composition,
            difficulty: Medium,
            build: find_largest,
        },
        Template {
            id: "filesystem.backup_then_edit",
            category: Composition,
            difficulty: Hard,
            build: backup_then_edit,
        },
        Template {
            id: "filesystem.move_after_outage",
            category: Recovery,
            difficulty: Easy,
            build: move_after_outage,
        },
        Template {
            id: "filesystem.write_fallback",
            category: Recovery,
            difficulty: Medium,
            build: write_fallback,
        },
        Template {
            id: "filesystem.write_into_new_dir",
            category: Recovery,
            difficulty: Hard,
            build: write_into_new_dir,
        },
    ]
}

pub(super) fn exists(path: &str) -> Pred<Atom> {
    atom(Atom::FileExists { path: path.into() })
}

pub(super) fn equals(path: &str, content: &str) -> Pred<Atom> {
    atom(Atom::FileEquals {
        path: path.into(),
        content: content.into(),
    })
}

pub(crate) use mcpbench_sim::params;
pub(crate) use mcpbench_sim::{Kit, atom};

pub(super) fn phrase(rng: &mut Rng, n: usize) -> String {
    rng.sample(WORDS, n).join(" ")
}

/// A few unrelated files so that listings are not trivially short.
pub(super) fn clutter(rng: &mut Rng, dir: &str, files: &mut BTreeMap<String, String>) {
    for i in 0..rng.range(1, 3) {
        let word = rng.pick(WORDS);
        files.insert(
            format!("{dir}/{word}-{i}.txt"),
            format!("{} notes\n", rng.pick(WORDS)),
        );
    }
}
