//! A real S3-compatible server for the tests: the `s3s-fs` binary on 127.0.0.1, one per test,
//! serving a temporary directory, killed when its guard drops.

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use aws_sdk_s3::config::{BehaviorVersion, Credentials, Region};
use mcpbench_storage::{S3Config, Secret};

pub const ACCESS_KEY: &str = "mcpbench-test-access";
pub const SECRET_KEY: &str = "mcpbench-test-secret-6a1f93c2";
pub const BUCKET: &str = "traces";
pub const REGION: &str = "us-east-1";

const INSTALL_HINT: &str = "the storage tests need the s3s-fs binary (an S3-compatible server). \
     Run scripts/test, which installs it, or install it by hand with \
     `cargo install s3s-fs --version 0.14.1 --locked --features binary --root ~/.cache/mcpbench` \
     or set MCPBENCH_S3S_FS to the path of an installed binary";

/// The binary: `$MCPBENCH_S3S_FS`, else `s3s-fs` on `PATH`, else `~/.cache/mcpbench/bin/s3s-fs`.
fn locate_s3s_fs() -> PathBuf {
    if let Some(path) = std::env::var_os("MCPBENCH_S3S_FS") {
        let path = PathBuf::from(path);
        assert!(
            path.is_file(),
            "MCPBENCH_S3S_FS={} is not a file; {INSTALL_HINT}",
            path.display()
        );
        return path;
    }
    let on_path: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join("s3s-fs"))
                .collect()
        })
        .unwrap_or_default();
    let cached =
        std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache/mcpbench/bin/s3s-fs"));
    on_path
        .into_iter()
        .chain(cached)
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| panic!("s3s-fs not found; {INSTALL_HINT}"))
}

/// A running `s3s-fs`; dropping it kills the process.
pub struct S3sFs {
    child: Child,
    /// `http://127.0.0.1:<port>`.
    pub endpoint: String,
    /// The directory it serves: one subdirectory per bucket.
    pub root: tempfile::TempDir,
}

impl S3sFs {
    /// Starts a server with an empty root (no bucket yet).
    pub fn start() -> Self {
        let root = tempfile::tempdir().expect("temporary directory");
        let binary = locate_s3s_fs();
        // Port 0: the kernel picks a free port and the server logs it, so there is no race
        // between choosing a port and binding it.
        let mut child = Command::new(&binary)
            .args(["--host", "127.0.0.1", "--port", "0"])
            .args(["--access-key", ACCESS_KEY, "--secret-key", SECRET_KEY])
            .arg(root.path())
            .env("RUST_LOG", "s3s_fs=info")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|err| panic!("cannot run {}: {err}; {INSTALL_HINT}", binary.display()));

        let (address_tx, address_rx) = mpsc::channel();
        let stdout = child.stdout.take().expect("piped stdout");
        // Keeps draining stdout after the address line, so the server never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some((_, rest)) = line.split_once("server is running at ") {
                    let _ = address_tx.send(rest.trim().to_owned());
                }
            }
        });
        match address_rx.recv_timeout(Duration::from_secs(30)) {
            Ok(endpoint) => Self {
                child,
                endpoint,
                root,
            },
            Err(_) => {
                let _ = child.kill();
                let status = child.wait();
                let mut stderr = String::new();
                if let Some(mut pipe) = child.stderr.take() {
                    let _ = pipe.read_to_string(&mut stderr);
                }
                panic!("s3s-fs did not start (exit: {status:?}); its stderr:\n{stderr}");
            }
        }
    }

    /// Starts a server and creates [`BUCKET`] in it through the S3 API.
    pub async fn start_with_bucket() -> Self {
        let server = Self::start();
        server
            .admin_client()
            .create_bucket()
            .bucket(BUCKET)
            .send()
            .await
            .expect("CreateBucket");
        server
    }

    /// The configuration a deployment would use to reach this server.
    pub fn config(&self) -> S3Config {
        S3Config {
            endpoint: Some(self.endpoint.clone()),
            bucket: BUCKET.to_owned(),
            region: REGION.to_owned(),
            access_key: ACCESS_KEY.to_owned(),
            secret_key: Secret::new(SECRET_KEY),
            path_style: true,
        }
    }

    /// A plain SDK client, for what the store under test does not offer (bucket creation,
    /// object metadata).
    pub fn admin_client(&self) -> aws_sdk_s3::Client {
        let config = aws_sdk_s3::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new(REGION))
            .credentials_provider(Credentials::new(ACCESS_KEY, SECRET_KEY, None, None, "test"))
            .endpoint_url(&self.endpoint)
            .force_path_style(true)
            .build();
        aws_sdk_s3::Client::from_conf(config)
    }
}

impl Drop for S3sFs {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
