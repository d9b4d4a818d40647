//! `filesystem.*` predicate atoms.

use crate::state::Filesystem;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub enum Atom {
    /// A file (not a directory) exists at `path`.
    #[serde(rename = "filesystem.fileExists")]
    FileExists { path: String },
    /// A directory exists at `path`.
    #[serde(rename = "filesystem.dirExists")]
    DirExists { path: String },
    /// The file at `path` exists and contains `text`.
    #[serde(rename = "filesystem.fileContains")]
    FileContains { path: String, text: String },
    /// The file at `path` exists and its content is exactly `content`.
    #[serde(rename = "filesystem.fileEquals")]
    FileEquals { path: String, content: String },
    /// The directory at `path` exists and holds exactly `count` entries.
    #[serde(rename = "filesystem.entryCount")]
    EntryCount { path: String, count: u32 },
}

impl Atom {
    pub(crate) fn holds(&self, fs: &Filesystem) -> bool {
        match self {
            Atom::FileExists { path } => fs.files.contains_key(path),
            Atom::DirExists { path } => fs.is_dir(path),
            Atom::FileContains { path, text } => fs
                .files
                .get(path)
                .is_some_and(|c| c.contains(text.as_str())),
            Atom::FileEquals { path, content } => fs.files.get(path) == Some(content),
            Atom::EntryCount { path, count } => {
                fs.children(path).is_ok_and(|c| c.len() == *count as usize)
            }
        }
    }
}
