//! Starts real PostgreSQL clusters with the system's binaries (as `postgres` when root).

use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use mcpbench_pgcluster::{Cluster, Error, Options};

/// Runs one SQL statement through `psql` against `url`, returning its unaligned output.
fn psql(url: &str, sql: &str) -> String {
    let output = Command::new("psql")
        .args(["-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", url, "-c", sql])
        .output()
        .expect("psql runs");
    assert!(
        output.status.success(),
        "psql {url} -c {sql:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

fn postmaster_pid(data_dir: &Path) -> u32 {
    let text = std::fs::read_to_string(data_dir.join("postmaster.pid")).expect("postmaster.pid");
    text.lines()
        .next()
        .and_then(|l| l.parse().ok())
        .expect("a pid")
}

fn port_is_free(port: u16) -> bool {
    TcpStream::connect(("127.0.0.1", port)).is_err()
        && TcpListener::bind(("127.0.0.1", port)).is_ok()
}

/// A persistent data directory in a temporary directory the `postgres` user can enter.
fn persistent_root() -> tempfile::TempDir {
    let root = tempfile::Builder::new()
        .prefix("pgcluster-test-")
        .tempdir()
        .unwrap();
    std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    root
}

#[test]
fn temp_cluster_serves_several_databases() {
    let started = Instant::now();
    let cluster = Cluster::start_temp().unwrap();
    eprintln!("start_temp took {:?}", started.elapsed());

    let password = std::fs::read_to_string(cluster.data_dir().join("mcpbench.password")).unwrap();
    assert_eq!(
        cluster.url(),
        format!(
            "postgres://mcpbench:{}@127.0.0.1:{}/mcpbench",
            password.trim(),
            cluster.port()
        )
    );
    assert_eq!(
        psql(&cluster.url(), "select current_database()"),
        "mcpbench"
    );

    let first = cluster.create_database("first_db").unwrap();
    let second = cluster.create_database("second_db").unwrap();
    assert_eq!(first, cluster.url_for("first_db"));
    assert_eq!(psql(&first, "select 1"), "1");
    assert_eq!(psql(&second, "select 1"), "1");
    assert_eq!(psql(&second, "select current_database()"), "second_db");
    assert_eq!(psql(&first, "show fsync"), "off");

    assert!(matches!(
        cluster.create_database("first_db"),
        Err(Error::DatabaseExists { .. })
    ));
    assert!(matches!(
        cluster.create_database("Bad-Name"),
        Err(Error::InvalidDatabaseName { .. })
    ));
}

#[test]
fn two_clusters_at_once_get_different_ports() {
    let a = Cluster::start_temp().unwrap();
    let b = Cluster::start_temp().unwrap();
    assert_ne!(a.port(), b.port());
    assert_eq!(psql(&a.url(), "select 1"), "1");
    assert_eq!(psql(&b.url(), "select 1"), "1");
}

#[test]
fn persistent_data_survives_a_restart() {
    let root = persistent_root();
    let data_dir = root.path().join("pg");

    let cluster = Cluster::start(&data_dir, &Options::default()).unwrap();
    assert_eq!(psql(&cluster.url(), "show fsync"), "on");
    psql(
        &cluster.url(),
        "create table kept (v text); insert into kept values ('still here')",
    );
    let port = cluster.port();
    cluster.stop().unwrap();
    assert!(port_is_free(port), "port {port} still taken after stop");
    assert!(!data_dir.join("postmaster.pid").exists());

    let again = Cluster::start(&data_dir, &Options::default()).unwrap();
    assert_eq!(psql(&again.url(), "select v from kept"), "still here");
}

#[test]
fn drop_stops_the_server_and_removes_the_temp_dir() {
    let cluster = Cluster::start_temp().unwrap();
    let port = cluster.port();
    let data_dir = cluster.data_dir().to_path_buf();
    assert!(!port_is_free(port));
    drop(cluster);
    assert!(port_is_free(port), "port {port} still taken after drop");
    assert!(!data_dir.exists(), "{} not removed", data_dir.display());
}

#[test]
fn starts_again_after_the_postmaster_was_killed() {
    let root = persistent_root();
    let data_dir = root.path().join("pg");
    let cluster = Cluster::start(&data_dir, &Options::default()).unwrap();
    psql(
        &cluster.url(),
        "create table t (v int); insert into t values (7)",
    );
    let pid = postmaster_pid(&data_dir);
    let status = Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    // The dead server cannot be stopped; dropping must cope.
    drop(cluster);
    assert!(
        data_dir.join("postmaster.pid").exists(),
        "the stale pid file is the point"
    );

    let again = Cluster::start(&data_dir, &Options::default()).unwrap();
    assert_ne!(postmaster_pid(&data_dir), pid);
    assert_eq!(psql(&again.url(), "select v from t"), "7");
}

#[test]
fn a_second_start_attaches_to_the_running_server() {
    let root = persistent_root();
    let data_dir = root.path().join("pg");
    let owner = Cluster::start(&data_dir, &Options::default()).unwrap();
    let attached = Cluster::start(&data_dir, &Options::default()).unwrap();
    assert_eq!(attached.port(), owner.port());
    drop(attached);
    assert_eq!(
        psql(&owner.url(), "select 1"),
        "1",
        "dropping an attached cluster stopped it"
    );
}

#[test]
fn a_fixed_port_is_used() {
    let port = TcpListener::bind(("127.0.0.1", 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let root = persistent_root();
    let options = Options {
        durable: false,
        port: Some(port),
    };
    let cluster = Cluster::start(&root.path().join("pg"), &options).unwrap();
    assert_eq!(cluster.port(), port);
    assert_eq!(psql(&cluster.url(), "show port"), port.to_string());
}

#[test]
fn refuses_a_directory_that_is_not_a_cluster() {
    let root = persistent_root();
    std::fs::write(root.path().join("notes.txt"), "mine").unwrap();
    let error = Cluster::start(root.path(), &Options::default()).unwrap_err();
    assert!(matches!(error, Error::NotADataDir { .. }), "{error}");
    assert!(root.path().join("notes.txt").exists());
}

/// Set in the child process of `a_killed_owner_leaves_nothing_behind`.
const CHILD_ENV: &str = "MCPBENCH_PGCLUSTER_TEST_CHILD";

#[test]
fn a_killed_owner_leaves_nothing_behind() {
    if std::env::var_os(CHILD_ENV).is_some() {
        // The child: hold a cluster the way a `static` would (never dropped) until killed.
        let cluster = Box::leak(Box::new(Cluster::start_temp().unwrap()));
        println!(
            "CLUSTER {} {}",
            cluster.port(),
            cluster.data_dir().display()
        );
        std::thread::sleep(std::time::Duration::from_secs(120));
        return;
    }
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_killed_owner_leaves_nothing_behind",
            "--nocapture",
        ])
        .env(CHILD_ENV, "1")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let line = std::io::BufRead::lines(stdout)
        .map(Result::unwrap)
        .find(|line| line.starts_with("CLUSTER "))
        .expect("the child reports its cluster");
    let mut fields = line.split_whitespace().skip(1);
    let port: u16 = fields.next().unwrap().parse().unwrap();
    let data_dir = std::path::PathBuf::from(fields.next().unwrap());
    assert!(!port_is_free(port));

    child.kill().unwrap();
    child.wait().unwrap();
    let deadline = Instant::now() + std::time::Duration::from_secs(30);
    while (data_dir.exists() || !port_is_free(port)) && Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(port_is_free(port), "server on {port} outlived its owner");
    assert!(
        !data_dir.exists(),
        "{} outlived its owner",
        data_dir.display()
    );
}

#[test]
fn a_closed_parent_is_reported_when_root() {
    let uid = Command::new("id").arg("-u").output().unwrap().stdout;
    let is_root = String::from_utf8_lossy(&uid).trim() == "0";
    // Mode 0700 and owned by us: closed to `postgres` when we are root.
    let closed = tempfile::tempdir().unwrap();
    std::fs::set_permissions(closed.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let result = Cluster::start(&closed.path().join("pg"), &Options::default());
    if is_root {
        let error = result.unwrap_err();
        assert!(
            matches!(error, Error::NotTraversable { ref path } if path == closed.path()),
            "{error}"
        );
        assert!(error.to_string().contains("postgres"), "{error}");
    } else {
        let cluster = result.unwrap();
        assert_eq!(psql(&cluster.url(), "select 1"), "1");
    }
}

/// Whether `psql` gets in with `url`, with no password from the environment or a file.
fn connects(url: &str) -> bool {
    Command::new("psql")
        .args(["-X", "-A", "-t", "-w", url, "-c", "select 1"])
        .env_remove("PGPASSWORD")
        .env("PGPASSFILE", "/nonexistent")
        .output()
        .expect("psql runs")
        .status
        .success()
}

#[test]
fn another_local_user_cannot_connect_without_the_password_file() {
    let root = persistent_root();
    let data_dir = root.path().join("pg");
    let cluster = Cluster::start(&data_dir, &Options::default()).unwrap();
    let password_file = data_dir.join("mcpbench.password");
    let meta = std::fs::metadata(&password_file).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert!(
        connects(&cluster.url()),
        "the URL with the password gets in"
    );
    let port = cluster.port();
    let without = format!("postgres://mcpbench@127.0.0.1:{port}/mcpbench");
    assert!(!connects(&without), "in without a password");
    let guessed = format!("postgres://mcpbench:guess@127.0.0.1:{port}/mcpbench");
    assert!(!connects(&guessed), "in with a wrong password");
    assert!(!connects(&format!(
        "postgres://postgres@127.0.0.1:{port}/mcpbench"
    )));
    assert!(
        !cluster
            .display_url()
            .contains(std::fs::read_to_string(&password_file).unwrap().trim())
    );
    psql(
        &cluster.url(),
        "create table kept (v text); insert into kept values ('here')",
    );
    cluster.stop().unwrap();

    // A cluster an older version made trusted every local user and kept no password file:
    // its next start gives it one and password auth, and keeps its data.
    let hba = data_dir.join("pg_hba.conf");
    let trusting = std::fs::read_to_string(&hba)
        .unwrap()
        .replace("scram-sha-256", "trust");
    std::fs::write(&hba, trusting).unwrap();
    std::fs::remove_file(&password_file).unwrap();
    let again = Cluster::start(&data_dir, &Options::default()).unwrap();
    assert_eq!(psql(&again.url(), "select v from kept"), "here");
    let port = again.port();
    assert!(!connects(&format!(
        "postgres://mcpbench@127.0.0.1:{port}/mcpbench"
    )));
    assert!(connects(&again.url()));
    assert!(!std::fs::read_to_string(&hba).unwrap().lines().any(|l| {
        !l.trim_start().starts_with('#') && l.split_whitespace().last() == Some("trust")
    }));
    let meta = std::fs::metadata(&password_file).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
}
