//! Builds the sandbox proxy (`proxy/main.rs`, standard library only) as a static executable
//! and leaves it in OUT_DIR for `include_bytes!`: the worker carries the proxy it needs and
//! makes its image itself, with no registry and no separate build step.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let src = "proxy/main.rs";
    println!("cargo:rerun-if-changed={src}");
    let status = Command::new(rustc)
        .args([
            "--edition",
            "2024",
            "-O",
            "-C",
            "target-feature=+crt-static",
            "-C",
            "strip=symbols",
        ])
        .args([
            "--crate-name",
            "mcpbench_sandbox_proxy",
            "--crate-type",
            "bin",
        ])
        .arg(src)
        .arg("-o")
        .arg(out.join("mcpbench-sandbox-proxy"))
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .status()
        .expect("running rustc for the sandbox proxy");
    assert!(status.success(), "building the sandbox proxy failed");
}
