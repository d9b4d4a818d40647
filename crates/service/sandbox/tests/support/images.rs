//! Test images, made here without a registry: static binaries (`rustc -C
//! target-feature=+crt-static`, or a cargo-built binary) in `FROM scratch` images built with
//! `docker build`, and `docker save` archives of them. Shared by the sandbox's and the API's
//! tests (`#[path]`-included).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Where built binaries and contexts go for this test process.
fn work_dir() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().expect("a temporary directory"))
        .path()
}

/// The hostile test agent (`tests/agents/hostile.rs`) as a static executable.
pub fn hostile_binary() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../sandbox/tests/agents/hostile.rs");
        let out = work_dir().join("hostile");
        let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
        let status = Command::new(rustc)
            .args([
                "--edition",
                "2024",
                "-O",
                "-C",
                "target-feature=+crt-static",
            ])
            .arg(&src)
            .arg("-o")
            .arg(&out)
            .status()
            .expect("rustc runs");
        assert!(status.success(), "building the hostile agent failed");
        out
    })
    .clone()
}

/// A `FROM scratch` image holding `files` (host path, path in the image) with `cmd`, tagged
/// `tag`; returns its id.
pub fn build_image(tag: &str, files: &[(&Path, &str)], cmd: &[&str]) -> String {
    build_image_with(tag, files, cmd, "")
}

/// [`build_image`] with `extra` Dockerfile lines (such as `WORKDIR /x`).
pub fn build_image_with(tag: &str, files: &[(&Path, &str)], cmd: &[&str], extra: &str) -> String {
    let context = work_dir().join(format!("ctx-{}", tag.replace([':', '/'], "-")));
    let _ = std::fs::remove_dir_all(&context);
    std::fs::create_dir_all(&context).unwrap();
    let mut dockerfile = String::from("FROM scratch\n");
    for (i, (source, dest)) in files.iter().enumerate() {
        let name = format!("f{i}");
        let target = context.join(&name);
        if source.is_dir() {
            copy_dir(source, &target);
        } else {
            std::fs::copy(source, &target).unwrap();
        }
        dockerfile.push_str(&format!("COPY {name} {dest}\n"));
    }
    dockerfile.push_str(extra);
    let cmd: Vec<String> = cmd.iter().map(|c| format!("{c:?}")).collect();
    dockerfile.push_str(&format!("CMD [{}]\n", cmd.join(", ")));
    std::fs::write(context.join("Dockerfile"), dockerfile).unwrap();
    let out = Command::new("docker")
        .args(["build", "-q", "-t", tag])
        .arg(&context)
        .env("DOCKER_BUILDKIT", "0")
        .output()
        .expect("docker build runs");
    assert!(
        out.status.success(),
        "docker build {tag}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The hostile agent in an image, with `args` after the binary.
pub fn hostile_image(tag: &str, args: &[&str]) -> String {
    let bin = hostile_binary();
    let mut cmd = vec!["/agent"];
    cmd.extend_from_slice(args);
    build_image(tag, &[(&bin, "/agent")], &cmd)
}

/// `docker save` of `tag` into a file; returns its path.
pub fn save(tag: &str) -> PathBuf {
    let path = work_dir().join(format!("{}.tar", tag.replace([':', '/'], "-")));
    let status = Command::new("docker")
        .args(["save", "-o"])
        .arg(&path)
        .arg(tag)
        .status()
        .expect("docker save runs");
    assert!(status.success(), "docker save {tag}");
    path
}

/// Removes an image (and its tag); ignores one that is gone.
pub fn remove_image(tag: &str) {
    let _ = Command::new("docker").args(["rmi", "-f", tag]).output();
}

/// Names of the containers (any state) carrying `label`.
pub fn containers_with_label(label: &str) -> Vec<String> {
    let out = Command::new("docker")
        .args(["ps", "-a", "--format", "{{.Names}}", "--filter"])
        .arg(format!("label={label}"))
        .output()
        .expect("docker ps runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Lines of `docker <args>` output, for counting networks and volumes.
pub fn docker_lines(args: &[&str]) -> Vec<String> {
    let out = Command::new("docker")
        .args(args)
        .output()
        .expect("docker runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
