//! A pack: a directory of family files, read, hashed and compiled.
//!
//! ```text
//! pack.json        {"format": "mcpbench-pack/1", "name": "acme-2026-12", "about": "..."}
//! lib.jq           jq definitions every family of the pack may call (optional)
//! <family>.json    one family each, named after its id
//! ```
//!
//! Nothing else may stand in the directory, so what is hashed and stored is exactly what
//! draws. The pack's hash covers every file by name; each family's hash is its file's, so a
//! revealed family file can be checked against the hash listed when the pack was added.

use crate::family::{FamilyFile, parse_family};
use crate::program::{Family, compile_family};
use mcpbench_world::AnyTemplate;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::Path;
use std::sync::Arc;

/// The format string of `pack.json`.
pub const PACK_FORMAT: &str = "mcpbench-pack/1";

/// The most families a pack holds.
pub const MAX_FAMILIES: usize = 500;

/// The largest file a pack holds.
pub const MAX_FILE_BYTES: usize = 1 << 20;

/// The most a pack's files hold together.
pub const MAX_PACK_BYTES: usize = 32 << 20;

/// `pack.json`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PackManifest {
    /// `mcpbench-pack/1`.
    pub format: String,
    /// The pack's name: lower-case words and digits joined by `-`.
    #[schemars(
        regex(pattern = r"^[a-z0-9]+(-[a-z0-9]+)*$"),
        length(min = 1, max = 64)
    )]
    pub name: String,
    /// What the pack holds, for its authors.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub about: String,
}

/// One file of a pack, as read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackFile {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// A pack, read and compiled.
#[derive(Debug)]
pub struct Pack {
    pub name: String,
    pub about: String,
    /// Hex SHA-256 over every file (see [`pack_hash`]).
    pub sha256: String,
    pub files: Vec<PackFile>,
    pub families: Vec<Arc<LoadedFamily>>,
}

/// A family of a pack with its file's hash.
#[derive(Debug)]
pub struct LoadedFamily {
    pub family: Family,
    /// The file it was read from, `<id>.json`.
    pub file: String,
    /// Hex SHA-256 of that file.
    pub sha256: String,
    pub about: String,
}

/// Why a pack did not load: every problem found, each naming its file and field.
#[derive(Debug, thiserror::Error)]
#[error("the pack does not load:\n  {}", .problems.join("\n  "))]
pub struct PackError {
    pub problems: Vec<String>,
}

impl PackError {
    fn one(problem: String) -> Self {
        Self {
            problems: vec![problem],
        }
    }
}

/// Hex SHA-256 over `files` sorted by name: for each, its name, a zero byte, its length as 8
/// big-endian bytes, and its bytes.
pub fn pack_hash(files: &[PackFile]) -> String {
    let mut sorted: Vec<&PackFile> = files.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let mut h = Sha256::new();
    for f in sorted {
        h.update(f.name.as_bytes());
        h.update([0]);
        h.update((f.bytes.len() as u64).to_be_bytes());
        h.update(&f.bytes);
    }
    hex::encode(h.finalize())
}

impl Pack {
    /// Reads the pack in `dir`.
    pub fn read(dir: &Path) -> Result<Pack, PackError> {
        let entries = std::fs::read_dir(dir)
            .map_err(|e| PackError::one(format!("{}: cannot list: {e}", dir.display())))?;
        let mut files = Vec::new();
        let mut total = 0usize;
        let mut problems = Vec::new();
        for entry in entries {
            let entry = entry
                .map_err(|e| PackError::one(format!("{}: cannot list: {e}", dir.display())))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            if !path.is_file() {
                problems.push(format!("{name}: a pack holds files only"));
                continue;
            }
            let size = entry.metadata().map(|m| m.len() as usize).unwrap_or(0);
            if size > MAX_FILE_BYTES {
                problems.push(format!(
                    "{name}: {size} bytes; a pack's file holds at most {MAX_FILE_BYTES}"
                ));
                continue;
            }
            total += size;
            if total > MAX_PACK_BYTES {
                return Err(PackError::one(format!(
                    "{}: the files hold more than {MAX_PACK_BYTES} bytes together",
                    dir.display()
                )));
            }
            match std::fs::read(&path) {
                Ok(bytes) => files.push(PackFile { name, bytes }),
                Err(e) => problems.push(format!("{name}: cannot read: {e}")),
            }
        }
        if !problems.is_empty() {
            return Err(PackError { problems });
        }
        Pack::from_files(files)
    }

    /// A pack from its files (as [`Pack::read`] reads them, or as a deployment stores them).
    pub fn from_files(mut files: Vec<PackFile>) -> Result<Pack, PackError> {
        files.sort_by(|a, b| a.name.cmp(&b.name));
        let mut problems = Vec::new();
        fn text(f: &PackFile) -> Result<&str, String> {
            std::str::from_utf8(&f.bytes).map_err(|_| format!("{}: is not UTF-8 text", f.name))
        }
        let manifest = match files.iter().find(|f| f.name == "pack.json") {
            None => {
                return Err(PackError::one(
                    "pack.json: missing; a pack names itself there".into(),
                ));
            }
            Some(f) => text(f).and_then(|t| {
                serde_path_to_error::deserialize::<_, PackManifest>(
                    &mut serde_json::Deserializer::from_str(t),
                )
                .map_err(|e| format!("pack.json: {}: {}", e.path(), e.inner()))
            }),
        };
        let manifest = manifest.map_err(PackError::one)?;
        if manifest.format != PACK_FORMAT {
            problems.push(format!(
                "pack.json: format {:?} is not {PACK_FORMAT:?}",
                manifest.format
            ));
        }
        if !valid_name(&manifest.name) {
            problems.push(format!(
                "pack.json: name {:?} is not lower-case words and digits joined by '-' (1 to 64)",
                manifest.name
            ));
        }
        let lib = match files.iter().find(|f| f.name == "lib.jq") {
            Some(f) => text(f).map_err(PackError::one)?.to_string(),
            None => String::new(),
        };
        let family_files: Vec<&PackFile> = files
            .iter()
            .filter(|f| f.name != "pack.json" && f.name != "lib.jq")
            .collect();
        if family_files.len() > MAX_FAMILIES {
            problems.push(format!(
                "{} families; a pack holds at most {MAX_FAMILIES}",
                family_files.len()
            ));
        }
        let mut families = Vec::new();
        for f in family_files {
            let Some(stem) = f.name.strip_suffix(".json") else {
                problems.push(format!(
                    "{}: a pack holds pack.json, lib.jq and family files (<id>.json) only",
                    f.name
                ));
                continue;
            };
            let parsed = text(f).map_err(|e| vec![e]).and_then(|t| {
                parse_family(t)
                    .map_err(|errs| errs.iter().map(|e| format!("{}: {e}", f.name)).collect())
            });
            match parsed {
                Err(errs) => problems.extend(errs),
                Ok(file) => match load_family(&file, stem, f, &lib) {
                    Ok(loaded) => families.push(Arc::new(loaded)),
                    Err(errs) => problems.extend(errs),
                },
            }
        }
        if families.is_empty() && problems.is_empty() {
            problems.push("the pack holds no family".into());
        }
        if !problems.is_empty() {
            return Err(PackError { problems });
        }
        Ok(Pack {
            name: manifest.name,
            about: manifest.about,
            sha256: pack_hash(&files),
            files,
            families,
        })
    }

    /// `<name> sha256:<hex>`, as a generated set's manifest records it.
    pub fn label(&self) -> String {
        format!("{} sha256:{}", self.name, self.sha256)
    }

    /// Every family as a template the generator draws from.
    pub fn templates(&self) -> Vec<AnyTemplate> {
        self.families.iter().map(|f| template(f.clone())).collect()
    }
}

/// A family as a template the generator draws from.
pub fn template(family: Arc<LoadedFamily>) -> AnyTemplate {
    let f = &family.family;
    let (id, servers, category, difficulty) =
        (f.id.clone(), f.servers.clone(), f.category, f.difficulty);
    AnyTemplate::fallible(
        id,
        servers,
        category,
        difficulty,
        Box::new(move |rng| family.family.draw(rng)),
    )
}

fn load_family(
    file: &FamilyFile,
    stem: &str,
    f: &PackFile,
    lib: &str,
) -> Result<LoadedFamily, Vec<String>> {
    if file.family != stem {
        return Err(vec![format!(
            "{}: the family {:?} is kept in a file named after it, {}.json",
            f.name, file.family, file.family
        )]);
    }
    let family = compile_family(file, lib).map_err(|errs| {
        errs.into_iter()
            .map(|e| format!("{}: {e}", f.name))
            .collect::<Vec<_>>()
    })?;
    Ok(LoadedFamily {
        family,
        file: f.name.clone(),
        sha256: hex::encode(Sha256::digest(&f.bytes)),
        about: file.about.clone(),
    })
}

fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.split('-').all(|p| {
            !p.is_empty()
                && p.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}
