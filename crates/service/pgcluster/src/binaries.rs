//! Finding the PostgreSQL server binaries (`initdb`, `pg_ctl`, `postgres`) and `psql`.
//!
//! In order: `pg_config --bindir`, the directory `initdb` on `PATH` resolves to (Debian
//! installs no `initdb` on `PATH`, but images often symlink it from /usr/local/bin), and the
//! highest version under /usr/lib/postgresql/*/bin (Debian's layout).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::Error;

/// Debian's versioned install root.
const DEBIAN_ROOT: &str = "/usr/lib/postgresql";
/// Where Debian's `postgresql-client` puts its `psql` wrapper.
const SYSTEM_PSQL: &str = "/usr/bin/psql";

/// A directory holding `initdb`, `pg_ctl` and `postgres`.
#[derive(Debug, Clone)]
pub(crate) struct Binaries {
    dir: PathBuf,
}

impl Binaries {
    /// Finds the server binaries, or says where it looked.
    pub(crate) fn locate() -> Result<Binaries, Error> {
        let candidates = [
            ("pg_config --bindir", pg_config_bindir()),
            ("initdb on PATH", initdb_on_path()),
            ("/usr/lib/postgresql/*/bin", highest_debian_version()),
        ];
        let mut searched = Vec::new();
        for (source, dir) in candidates {
            match dir {
                Some(dir) if has_server(&dir) => {
                    tracing::debug!(dir = %dir.display(), source, "found PostgreSQL binaries");
                    return Ok(Binaries { dir });
                }
                Some(dir) => searched.push(format!("{source} ({})", dir.display())),
                None => searched.push(format!("{source} (nothing)")),
            }
        }
        Err(Error::BinariesNotFound {
            searched: searched.join(", "),
        })
    }

    /// The path of a server tool such as `initdb` or `pg_ctl`.
    pub(crate) fn tool(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// `psql` from the same directory, else the system one, else whatever `PATH` finds.
    pub(crate) fn psql(&self) -> PathBuf {
        [self.dir.join("psql"), PathBuf::from(SYSTEM_PSQL)]
            .into_iter()
            .find(|path| path.is_file())
            .unwrap_or_else(|| PathBuf::from("psql"))
    }
}

fn has_server(dir: &Path) -> bool {
    ["initdb", "pg_ctl", "postgres"]
        .iter()
        .all(|name| dir.join(name).is_file())
}

fn pg_config_bindir() -> Option<PathBuf> {
    let output = Command::new("pg_config")
        .arg("--bindir")
        .stdin(Stdio::null())
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let dir = String::from_utf8(output.stdout).ok()?;
    let dir = dir.trim();
    (!dir.is_empty()).then(|| PathBuf::from(dir))
}

/// The real directory of the first `initdb` on `PATH` (symlinks resolved, so that `pg_ctl`
/// and `postgres` are looked for next to the real binary).
fn initdb_on_path() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("initdb"))
        .find(|candidate| candidate.is_file())
        .and_then(|initdb| initdb.canonicalize().ok())
        .and_then(|initdb| initdb.parent().map(Path::to_path_buf))
}

/// The `bin` directory of the highest version under /usr/lib/postgresql.
fn highest_debian_version() -> Option<PathBuf> {
    std::fs::read_dir(DEBIAN_ROOT)
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let version = parse_version(&entry.file_name())?;
            Some((version, entry.path().join("bin")))
        })
        .filter(|(_, bin)| has_server(bin))
        .max_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, bin)| bin)
}

/// "15" -> [15], "9.6" -> [9, 6]; anything else is not a version directory.
fn parse_version(name: &OsStr) -> Option<Vec<u32>> {
    name.to_str()?
        .split('.')
        .map(|part| part.parse().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_sort_numerically() {
        let v = |s: &str| parse_version(OsStr::new(s));
        assert!(v("10") > v("9.6"));
        assert!(v("15") > v("9"));
        assert_eq!(v("common"), None);
    }
}
