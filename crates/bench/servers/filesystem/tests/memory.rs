//! A run's files cannot take a worker's memory: writing and editing until the filesystem is
//! full is refused with a tool error that changes nothing, in several runs at once, reading
//! one large file fifty times in one call shows it only as often as fits, and this process's
//! resident memory stays bounded. Its own test binary, so no other test counts.

use mcpbench_server_filesystem::{FILES, Filesystem, Seed};
use mcpbench_sim::conformance::resident_mib;
use mcpbench_sim::{Server, Simulated};
use serde_json::{Value, json};
use std::collections::BTreeMap;

fn call(fs: &mut Filesystem, tool: &str, args: Value) -> Result<Value, mcpbench_sim::ToolError> {
    Server::call(fs, tool, &args)
}

#[test]
fn writing_until_the_filesystem_is_full_is_refused_and_memory_stays_bounded() {
    let before = resident_mib();
    let megabyte = "x".repeat(1_000_000);
    let mut runs = Vec::new();
    for _ in 0..8 {
        let files = BTreeMap::from([("/w/seed.txt".to_string(), "seed".to_string())]);
        let mut fs = Filesystem::from_seed(&Seed {
            files,
            ..Seed::default()
        })
        .unwrap();
        // A megabyte a call, the largest content a call takes, until the run is full.
        let mut written = 0;
        let refusal = loop {
            let path = format!("/w/f{written}.txt");
            match call(
                &mut fs,
                "write_file",
                json!({"path": path, "content": megabyte}),
            ) {
                Ok(_) => written += 1,
                Err(e) => break e,
            }
            assert!(written < 100, "the filesystem never filled up");
        };
        assert!(
            refusal.message.contains("the filesystem is full"),
            "{refusal}"
        );
        assert_eq!(written, FILES.bytes / 1_000_000);
        // An edit that would grow a file past the room left is refused too, and changes nothing.
        let e = call(
            &mut fs,
            "edit_file",
            json!({"path": "/w/seed.txt", "edits": [{"oldText": "seed", "newText": megabyte}]}),
        )
        .unwrap_err();
        assert!(e.message.contains("the filesystem is full"), "{e}");
        let seed = call(&mut fs, "read_text_file", json!({"path": "/w/seed.txt"})).unwrap();
        assert!(seed.to_string().contains("seed"), "{seed}");
        // One answer repeats a megabyte file only as often as a run's files could hold.
        let paths = vec!["/w/f1.txt"; 50];
        let many = call(&mut fs, "read_multiple_files", json!({ "paths": paths })).unwrap();
        let many = many.as_str().unwrap();
        assert!(many.len() < FILES.bytes + 50 * 200, "{} bytes", many.len());
        assert!(many.contains("one answer shows at most 8 MiB"));
        // Replacing a file with smaller content is still allowed.
        call(
            &mut fs,
            "write_file",
            json!({"path": "/w/f0.txt", "content": "small"}),
        )
        .unwrap();
        runs.push(fs);
    }
    // Entries are bounded too: directories until the count is reached.
    let mut fs = Filesystem::from_seed(&Seed::default()).unwrap();
    let mut made = 0;
    let refusal = loop {
        match call(
            &mut fs,
            "create_directory",
            json!({"path": format!("/d/{made}")}),
        ) {
            Ok(_) => made += 1,
            Err(e) => break e,
        }
        assert!(made <= FILES.records, "the entries never ran out");
    };
    assert_eq!(
        refusal.message,
        "the filesystem is full: a run's filesystem holds at most 5,000 files and directories; \
         nothing was changed"
    );
    let grown = resident_mib().saturating_sub(before);
    eprintln!("8 full runs: resident memory grew by {grown} MiB");
    // Eight runs of 8 MiB of files each (the unbounded files took a gigabyte in 16 calls).
    assert!(grown < 200, "resident memory grew by {grown} MiB");
    drop(runs);
}
