//! A run's repositories cannot take a worker's memory: every commit keeps its whole tree, so
//! pushing megabyte files over and over is refused once the run's commits hold [`ACCOUNT`],
//! with a tool error that changes nothing; forking the full repository (which would copy every
//! commit) is refused too; and this process's resident memory stays bounded over several runs.
//! Its own test binary, so no other test counts.

use mcpbench_server_github::{ACCOUNT, Github, RepoSeed, Seed};
use mcpbench_sim::conformance::resident_mib;
use mcpbench_sim::{Server, Simulated};
use serde_json::{Value, json};

fn call(gh: &mut Github, tool: &str, args: Value) -> Result<Value, mcpbench_sim::ToolError> {
    Server::call(gh, tool, &args)
}

#[test]
fn pushing_megabytes_until_the_repository_is_full_is_refused_and_memory_stays_bounded() {
    let before = resident_mib();
    let megabyte = "x".repeat(1_000_000);
    let mut runs = Vec::new();
    for _ in 0..8 {
        let seed = Seed {
            repos: vec![RepoSeed::new("acme", "api", &[("README.md", "# api\n")])],
            ..Seed::default()
        };
        let mut gh = <Github as Simulated>::from_seed(&seed).unwrap();
        // A new megabyte file each push: commit k keeps k megabytes, so the snapshots add up
        // quadratically until the repository is full.
        let mut pushed = 0;
        let refusal = loop {
            let put = json!({"owner": "acme", "repo": "api", "branch": "main",
                             "path": format!("blob{pushed}.bin"), "content": megabyte,
                             "message": "more"});
            match call(&mut gh, "create_or_update_file", put) {
                Ok(_) => pushed += 1,
                Err(e) => break e,
            }
            assert!(pushed < 100, "the repository never filled up");
        };
        assert!(
            refusal.message.contains("the GitHub account is full"),
            "{refusal}"
        );
        assert!(pushed >= 3, "{pushed} pushes");
        let tip = call(
            &mut gh,
            "list_commits",
            json!({"owner": "acme", "repo": "api", "sha": "main"}),
        )
        .unwrap();
        assert!(
            tip.to_string().matches("more").count() == pushed,
            "the refused push left a commit"
        );
        // A fork copies every commit, trees and all: refused once it would not fit.
        let e = call(
            &mut gh,
            "fork_repository",
            json!({"owner": "acme", "repo": "api"}),
        )
        .unwrap_err();
        assert!(e.message.contains("the GitHub account is full"), "{e}");
        // The run goes on: a small issue still fits.
        call(
            &mut gh,
            "create_issue",
            json!({"owner": "acme", "repo": "api", "title": "still here"}),
        )
        .unwrap();
        runs.push(gh);
    }
    let grown = resident_mib().saturating_sub(before);
    eprintln!(
        "8 full runs (repositories of at most {} MiB): resident memory grew by {grown} MiB",
        ACCOUNT.bytes >> 20
    );
    assert!(grown < 300, "resident memory grew by {grown} MiB");
    drop(runs);
}
