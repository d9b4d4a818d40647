//! The tree, its seed, and the path rules.

use crate::background::{self, Background, MAX_FILES};
use mcpbench_sim::{Capacity, Ledger, SeedError, ToolError, Usage};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// `initial_state.filesystem`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Seed {
    /// File path -> text content. Parent directories exist implicitly.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    /// Directories that exist even when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub directories: Vec<String>,
    /// Path prefixes where writes are refused with `permission_denied`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read_only: Vec<String>,
    /// A lived-in tree beside `files`, under the same roots, expanded when the filesystem is
    /// built.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<Background>,
}

/// What a run's files hold at most, counted in plain bytes: each file's content and path and
/// each directory's path, as the tree keeps them (seeds hold a few kilobytes), so that a
/// hundred calls of a megabyte each cannot fill a worker's memory, nor one `create_directory`
/// of a deep path (a few kilobytes of path make thousands of directories, each keeping its
/// own full path).
pub const FILES: Capacity = Capacity {
    store: "filesystem",
    records: 5_000,
    noun: "files and directories",
    bytes: 8 << 20,
};

/// The simulated server: every directory and every file with its content.
#[derive(Clone, Debug)]
pub struct Filesystem {
    pub(crate) files: BTreeMap<String, String>,
    pub(crate) dirs: BTreeSet<String>,
    pub(crate) read_only: Vec<String>,
    /// What the files and directories hold, against [`FILES`]: [`Filesystem::measure`] when
    /// built, then moved by each write.
    pub(crate) ledger: Ledger,
}

/// Checks that `path` is absolute and normal (`/a/b`, no `.`/`..`, no empty parts, no trailing
/// slash) and returns it unchanged.
pub(crate) fn normal(path: &str) -> Result<&str, String> {
    if path == "/" {
        return Ok(path);
    }
    if !path.starts_with('/') {
        return Err(format!(
            "path {path:?} is not absolute; paths look like /home/user/notes.txt"
        ));
    }
    if path.ends_with('/')
        || path[1..]
            .split('/')
            .any(|p| p.is_empty() || p == "." || p == "..")
    {
        return Err(format!(
            "path {path:?} is not normalised (no trailing /, //, . or ..)"
        ));
    }
    Ok(path)
}

pub(crate) fn parent(path: &str) -> &str {
    match path.rfind('/') {
        Some(0) | None => "/",
        Some(i) => &path[..i],
    }
}

pub(crate) fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// What a file takes of [`FILES`]: one record, its path and its content in plain bytes.
pub(crate) fn file(path: &str, content: &str) -> Usage {
    Usage {
        records: 1,
        bytes: path.len() + content.len(),
    }
}

/// What a directory takes of [`FILES`]: one record and its path.
pub(crate) fn dir(path: &str) -> Usage {
    Usage {
        records: 1,
        bytes: path.len(),
    }
}

pub(crate) fn join(dir: &str, name: &str) -> String {
    if dir == "/" {
        format!("/{name}")
    } else {
        format!("{dir}/{name}")
    }
}

impl Filesystem {
    pub(crate) fn from_seed(seed: &Seed) -> Result<Self, SeedError> {
        let bad = |m: String| SeedError::new("filesystem", m);
        let mut fs = Filesystem {
            files: BTreeMap::new(),
            dirs: BTreeSet::new(),
            read_only: Vec::new(),
            ledger: Ledger::new(FILES, Usage::default()),
        };
        fs.dirs.insert("/".into());
        for dir in &seed.directories {
            normal(dir).map_err(bad)?;
            fs.add_dirs(dir);
        }
        let more = match &seed.background {
            Some(b) if b.files > MAX_FILES => {
                return Err(bad(format!(
                    "a background of {} files is more than the {MAX_FILES} a seed may ask for",
                    b.files
                )));
            }
            Some(b) => background::files(b, seed),
            None => vec![],
        };
        for (path, content) in seed.files.iter().chain(more.iter().map(|(p, c)| (p, c))) {
            normal(path).map_err(bad)?;
            if fs.dirs.contains(path) {
                return Err(bad(format!("{path} is both a file and a directory")));
            }
            fs.add_dirs(parent(path));
            fs.files.insert(path.clone(), content.clone());
        }
        for dir in fs.dirs.iter() {
            if fs.files.contains_key(dir) {
                return Err(bad(format!("{dir} is both a file and a directory")));
            }
        }
        for prefix in &seed.read_only {
            normal(prefix).map_err(bad)?;
            fs.read_only.push(prefix.clone());
        }
        fs.ledger = Ledger::new(FILES, fs.measure());
        Ok(fs)
    }

    fn add_dirs(&mut self, dir: &str) {
        let mut at = dir;
        while self.dirs.insert(at.to_string()) && at != "/" {
            at = parent(at);
        }
    }

    pub(crate) fn is_dir(&self, path: &str) -> bool {
        self.dirs.contains(path)
    }

    pub(crate) fn read(&self, path: &str) -> Result<&String, ToolError> {
        let path = normal(path).map_err(ToolError::invalid)?;
        if self.is_dir(path) {
            return Err(ToolError::invalid(format!(
                "{path} is a directory, not a file"
            )));
        }
        self.files
            .get(path)
            .ok_or_else(|| ToolError::not_found(format!("no such file: {path}")))
    }

    /// Refuses writes under a read-only prefix.
    pub(crate) fn writable(&self, path: &str) -> Result<(), ToolError> {
        let hit = self
            .read_only
            .iter()
            .find(|p| path == p.as_str() || path.starts_with(&format!("{p}/")));
        match hit {
            Some(p) => Err(ToolError::denied(format!(
                "{p} is read-only; cannot modify {path}"
            ))),
            None => Ok(()),
        }
    }

    /// Whether `path` may be moved: it is writable and holds nothing read-only (moving a
    /// directory carries every entry below it, so a read-only one below would leave its place).
    pub(crate) fn movable(&self, path: &str) -> Result<(), ToolError> {
        self.writable(path)?;
        let inside = format!("{path}/");
        match self.read_only.iter().find(|p| p.starts_with(&inside)) {
            Some(p) => Err(ToolError::denied(format!(
                "{p} is read-only; cannot move {path}, which holds it"
            ))),
            None => Ok(()),
        }
    }

    /// The path as a new file's location: normal, writable, parent directory present.
    pub(crate) fn new_file_slot<'a>(&self, path: &'a str) -> Result<&'a str, ToolError> {
        let path = normal(path).map_err(ToolError::invalid)?;
        if path == "/" || self.is_dir(path) {
            return Err(ToolError::invalid(format!(
                "{path} is a directory, not a file"
            )));
        }
        self.writable(path)?;
        let dir = parent(path);
        if !self.is_dir(dir) {
            if self.files.contains_key(dir) {
                return Err(ToolError::invalid(format!(
                    "{dir} is a file, not a directory"
                )));
            }
            return Err(ToolError::not_found(format!(
                "parent directory {dir} does not exist"
            )));
        }
        Ok(path)
    }

    /// What the files and directories hold, against [`FILES`], measured from scratch: a
    /// record for each file and directory, and the plain bytes of each path and content.
    pub(crate) fn measure(&self) -> Usage {
        let files = self.files.iter().map(|(p, c)| file(p, c));
        let dirs = self.dirs.iter().map(|d| dir(d));
        files.chain(dirs).fold(Usage::default(), |a, b| a + b)
    }

    /// Stores `content` at `path` (a new file or a replacement) if it fits within [`FILES`];
    /// a refusal changes nothing.
    pub(crate) fn put_file(&mut self, path: &str, content: String) -> Result<(), ToolError> {
        let before = self
            .files
            .get(path)
            .map_or(Usage::default(), |old| file(path, old));
        let after = file(path, &content);
        self.ledger.admit_change(before, after)?;
        self.files.insert(path.to_string(), content);
        self.ledger.change(before, after);
        Ok(())
    }

    /// Deletes the file at `path`, if there is one.
    pub(crate) fn remove_file(&mut self, path: &str) {
        if let Some(content) = self.files.remove(path) {
            self.ledger.remove(file(path, &content));
        }
    }

    pub(crate) fn mkdir_p(&mut self, path: &str) -> Result<(), ToolError> {
        let path = normal(path).map_err(ToolError::invalid)?;
        // Every missing directory keeps its own full path, so a deep path costs the sum of
        // its prefixes, not its own length.
        let (mut at, mut adding) = (path, Usage::default());
        loop {
            if self.files.contains_key(at) {
                return Err(ToolError::conflict(format!("{at} exists and is a file")));
            }
            if at == "/" || self.is_dir(at) {
                break;
            }
            adding = adding + dir(at);
            at = parent(at);
        }
        self.ledger.admit(adding)?;
        if !self.is_dir(path) {
            self.writable(path)?;
        }
        self.add_dirs(path);
        self.ledger.add(adding);
        Ok(())
    }

    /// Names directly inside `dir`: (name, is_dir), sorted by name.
    pub(crate) fn children(&self, dir: &str) -> Result<Vec<(String, bool)>, ToolError> {
        let dir = normal(dir).map_err(ToolError::invalid)?;
        if !self.is_dir(dir) {
            if self.files.contains_key(dir) {
                return Err(ToolError::invalid(format!(
                    "{dir} is a file, not a directory"
                )));
            }
            return Err(ToolError::not_found(format!("no such directory: {dir}")));
        }
        // Only the paths below `dir` are looked at, so a tree walk stays linear in its size.
        let prefix = if dir == "/" {
            "/".to_string()
        } else {
            format!("{dir}/")
        };
        let below = |p: &&String| p.starts_with(&prefix);
        let direct = |p: &&String| p.as_str() != dir && !p[prefix.len()..].contains('/');
        let mut out: Vec<(String, bool)> = Vec::new();
        out.extend(
            (self.dirs.range(prefix.clone()..))
                .take_while(below)
                .filter(direct)
                .map(|p| (file_name(p).to_string(), true)),
        );
        out.extend(
            (self.files.range(prefix.clone()..))
                .map(|(p, _)| p)
                .take_while(below)
                .filter(direct)
                .map(|p| (file_name(p).to_string(), false)),
        );
        out.sort();
        Ok(out)
    }

    pub(crate) fn snapshot(&self) -> Value {
        json!({ "files": self.files, "directories": self.dirs })
    }
}
