//! Running the server tools as the right user.
//!
//! `initdb`, `pg_ctl` and `postgres` refuse to run as root. When our effective uid is 0 (CI,
//! containers) they run as the `postgres` system user, which Debian's `postgresql` package
//! creates, through `setpriv --reuid=postgres --regid=postgres --init-groups`. `setpriv` was
//! chosen over `runuser -u postgres`: it only changes credentials and `exec`s, with no PAM
//! session, no extra process and no surprise in the environment, and it ships in util-linux on
//! every Debian system. `su`/`sudo` need PAM or configuration. Otherwise the tools run as
//! ourselves.
//!
//! Running as `postgres` means the data directory must belong to it (we `chown` the directory
//! we create or hand over) and every parent of it must be enterable by it, which we check up
//! front so the error names the directory instead of initdb's "Permission denied".

use std::ffi::OsString;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::Command;

use crate::Error;

/// Who the server tools run as.
#[derive(Debug, Clone)]
pub(crate) enum RunAs {
    /// Ourselves: we are not root.
    CurrentUser,
    /// We are root; switch to the `postgres` user.
    Postgres { uid: u32, gid: u32 },
}

const POSTGRES_USER: &str = "postgres";

impl RunAs {
    /// Decides from our effective uid.
    pub(crate) fn detect() -> Result<RunAs, Error> {
        if effective_uid()? != 0 {
            return Ok(RunAs::CurrentUser);
        }
        let (uid, gid) = lookup_user(POSTGRES_USER).ok_or(Error::NoPostgresUser)?;
        tracing::debug!(uid, gid, "running as root: server tools run as `postgres`");
        Ok(RunAs::Postgres { uid, gid })
    }

    /// The argv that runs `program` as this user.
    pub(crate) fn argv(&self, program: &Path) -> Vec<OsString> {
        let mut argv: Vec<OsString> = match self {
            RunAs::CurrentUser => Vec::new(),
            RunAs::Postgres { .. } => [
                "setpriv",
                "--reuid=postgres",
                "--regid=postgres",
                "--init-groups",
                "--",
            ]
            .map(OsString::from)
            .into(),
        };
        argv.push(program.into());
        argv
    }

    /// A command running `program` as this user, from `/` (root's working directory may be
    /// closed to `postgres`) and without `PG*` variables that would redirect it.
    pub(crate) fn command(&self, program: &Path) -> Command {
        let argv = self.argv(program);
        let mut command = Command::new(&argv[0]);
        command.args(&argv[1..]);
        scrub(&mut command);
        command
    }

    /// Gives `path` (not recursively) to the `postgres` user when we are root.
    pub(crate) fn hand_over(&self, path: &Path) -> Result<(), Error> {
        match self {
            RunAs::CurrentUser => Ok(()),
            RunAs::Postgres { uid, gid } => std::os::unix::fs::chown(path, Some(*uid), Some(*gid))
                .map_err(Error::io(format!(
                    "could not chown {} to postgres",
                    path.display()
                ))),
        }
    }

    /// Checks that the `postgres` user can enter `dir` and all of its parents.
    ///
    /// Counts the owner and the primary group but not supplementary groups, which errs on
    /// the side of a clear error.
    pub(crate) fn check_reachable(&self, dir: &Path) -> Result<(), Error> {
        let RunAs::Postgres { uid, gid } = self else {
            return Ok(());
        };
        for ancestor in dir.ancestors() {
            let meta = std::fs::metadata(ancestor)
                .map_err(Error::io(format!("could not stat {}", ancestor.display())))?;
            let mode = meta.mode();
            let enterable = mode & 0o001 != 0
                || (meta.uid() == *uid && mode & 0o100 != 0)
                || (meta.gid() == *gid && mode & 0o010 != 0);
            if !enterable {
                return Err(Error::NotTraversable {
                    path: ancestor.to_path_buf(),
                });
            }
        }
        Ok(())
    }
}

/// Runs from `/` and drops `PG*` environment variables (PGDATA, PGPORT, PGOPTIONS, ...).
pub(crate) fn scrub(command: &mut Command) {
    command.current_dir("/");
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("PG") {
            command.env_remove(key);
        }
    }
}

/// The effective uid, from the third field of `Uid:` in /proc/self/status (Linux).
fn effective_uid() -> Result<u32, Error> {
    let status = std::fs::read_to_string("/proc/self/status")
        .map_err(Error::io("could not read /proc/self/status"))?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1))
        .and_then(|euid| euid.parse().ok())
        .ok_or_else(|| Error::Io {
            context: "no effective uid in /proc/self/status".into(),
            source: std::io::ErrorKind::InvalidData.into(),
        })
}

/// The uid and gid of `user`, through `getent passwd` (so NSS sources count too).
fn lookup_user(user: &str) -> Option<(u32, u32)> {
    let output = Command::new("getent")
        .args(["passwd", user])
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    parse_passwd_line(&String::from_utf8_lossy(&output.stdout))
}

fn parse_passwd_line(line: &str) -> Option<(u32, u32)> {
    let mut fields = line.trim().split(':').skip(2);
    let uid = fields.next()?.parse().ok()?;
    let gid = fields.next()?.parse().ok()?;
    Some((uid, gid))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_passwd_entries() {
        let line = "postgres:x:101:104:PostgreSQL administrator,,,:/var/lib/postgresql:/bin/bash\n";
        assert_eq!(parse_passwd_line(line), Some((101, 104)));
        assert_eq!(parse_passwd_line("broken"), None);
    }

    #[test]
    fn root_switches_user_through_setpriv() {
        let argv = RunAs::Postgres { uid: 1, gid: 1 }.argv(Path::new("/bin/pg_ctl"));
        assert_eq!(
            argv.first().map(OsString::as_os_str),
            Some("setpriv".as_ref())
        );
        assert_eq!(
            argv.last().map(OsString::as_os_str),
            Some("/bin/pg_ctl".as_ref())
        );
        assert_eq!(
            RunAs::CurrentUser.argv(Path::new("x")),
            vec![OsString::from("x")]
        );
    }
}
