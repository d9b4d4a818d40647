//! The pod directories' home: `<socket_dir>/<deployment>`, the worker's own and private.
//!
//! Pod directories hold the proxy's Unix sockets, and a root worker hands each to the proxy's
//! uid. So no other local user may have a hand in any directory on the way: the base must be
//! a real directory (never a symlink), owned by the worker or by root and writable by nobody
//! else; the deployment's directory inside it is the worker's, mode 0700. Everything below it
//! is then beyond another user's reach, and a symlink planted there before us is refused, not
//! followed.

use std::io::{Error, ErrorKind};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

/// The effective uid, from the `Uid:` line of /proc/self/status (Linux).
pub(crate) fn effective_uid() -> std::io::Result<u32> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1))
        .and_then(|euid| euid.parse().ok())
        .ok_or_else(|| Error::other("no effective uid in /proc/self/status"))
}

fn refused(path: &Path, why: &str) -> Error {
    Error::new(
        ErrorKind::PermissionDenied,
        format!(
            "{} {why}; the sandbox keeps its pod directories only where no other user can \
             reach (set MCPBENCH_SANDBOX_DIR to a directory of the worker's own)",
            path.display()
        ),
    )
}

/// A directory that exists (made 0700 if it did not), is not a symlink, belongs to `uid` (or,
/// when `root_may_own`, to root) and is writable by its owner only.
fn checked(path: &Path, uid: u32, root_may_own: bool) -> std::io::Result<()> {
    match std::fs::create_dir(path) {
        Ok(()) => std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700))?,
        Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
        Err(e) if e.kind() == ErrorKind::NotFound => {
            // Its parents are made as usual; the directory itself is made (and checked) here.
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            return checked(path, uid, root_may_own);
        }
        Err(e) => return Err(e),
    }
    let meta = std::fs::symlink_metadata(path)?;
    if meta.file_type().is_symlink() {
        return Err(refused(path, "is a symbolic link"));
    }
    if !meta.is_dir() {
        return Err(refused(path, "is not a directory"));
    }
    if meta.uid() != uid && !(root_may_own && meta.uid() == 0) {
        return Err(refused(path, &format!("belongs to uid {}", meta.uid())));
    }
    if meta.mode() & 0o022 != 0 {
        if meta.uid() != uid {
            return Err(refused(path, "is writable by others"));
        }
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Makes (or checks) `<base>/<deployment>` as this worker's private directory.
pub(crate) fn pods_home(base: &Path, deployment: &str) -> std::io::Result<()> {
    let uid = effective_uid()?;
    checked(base, uid, true)?;
    let home = base.join(deployment);
    checked(&home, uid, false)?;
    std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o700))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_home_is_made_private_and_a_planted_symlink_or_open_directory_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().join("sandbox");
        pods_home(&base, "d1").unwrap();
        let mode = |p: &Path| std::fs::symlink_metadata(p).unwrap().mode() & 0o777;
        assert_eq!((mode(&base), mode(&base.join("d1"))), (0o700, 0o700));
        pods_home(&base, "d1").unwrap();

        // Someone planted a link where the deployment's directory goes.
        let elsewhere = tmp.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, base.join("d2")).unwrap();
        let e = pods_home(&base, "d2").unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        // ... or where the base goes.
        let linked = tmp.path().join("linked");
        std::os::unix::fs::symlink(&elsewhere, &linked).unwrap();
        assert!(pods_home(&linked, "d1").is_err());

        // A base another user may write into is refused unless it is ours (then it is closed).
        let open = tmp.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        pods_home(&open, "d1").unwrap();
        assert_eq!(mode(&open), 0o700);
    }

    #[test]
    fn a_directory_of_another_user_is_refused() {
        if effective_uid().unwrap() != 0 {
            return; // only root can give a directory away to test this
        }
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().join("sandbox");
        std::fs::create_dir(&base).unwrap();
        let theirs = base.join("d1");
        std::fs::create_dir(&theirs).unwrap();
        std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).unwrap();
        let e = pods_home(&base, "d1").unwrap_err();
        assert!(e.to_string().contains("belongs to uid 65534"), "{e}");
    }
}
