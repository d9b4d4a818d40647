//! Cleaning up a temporary cluster when its process dies without dropping it.
//!
//! A test binary usually keeps its one cluster in a `static`, which is never dropped, and a
//! test run can be killed. So `start_temp` also spawns a tiny `sh` that blocks reading a pipe
//! from us. When our process ends in any way the pipe closes, `read` sees end of file, and the
//! shell stops the server (`pg_ctl stop -m immediate`) and deletes the temporary directory.
//! A normal drop writes a line first, which tells the shell to exit without doing anything.
//! The shell runs in its own process group and ignores SIGINT/SIGHUP, so a Ctrl-C aimed at
//! the test run does not kill it before it has cleaned up.

use std::ffi::OsString;
use std::io::Write;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};

use std::os::unix::process::CommandExt;

use crate::Error;

const SCRIPT: &str = r#"trap '' INT HUP
if read -r _; then exit 0; fi
dir=$1; shift
"$@" >/dev/null 2>&1
rm -rf -- "$dir""#;

/// The armed watcher; [`Guard::disarm`] (or dropping it) releases it without cleanup.
#[derive(Debug)]
pub(crate) struct Guard {
    child: Child,
    stdin: Option<ChildStdin>,
}

impl Guard {
    /// Arms a watcher that runs `stop` and then removes `dir` once our process is gone.
    pub(crate) fn arm(dir: &Path, stop: Vec<OsString>) -> Result<Guard, Error> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(SCRIPT)
            .arg("mcpbench-pgcluster-guard")
            .arg(dir)
            .args(stop)
            .current_dir("/")
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(Error::io("could not spawn the cleanup guard `sh`"))?;
        let stdin = child.stdin.take();
        Ok(Guard { child, stdin })
    }

    /// Tells the watcher to exit without cleaning up, and reaps it.
    pub(crate) fn disarm(&mut self) {
        if let Some(mut stdin) = self.stdin.take() {
            // If the shell is already gone there is nothing to tell it.
            let _ = stdin.write_all(b"disarm\n");
        }
        if let Err(error) = self.child.wait() {
            tracing::warn!(%error, "could not reap the cleanup guard");
        }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.disarm();
    }
}
