//! The filesystem keeps what it holds as a running total, moved by each write's exact size:
//! a record per file and directory, and the plain bytes of every path and content. Every call
//! goes through `Server::call`, so debug builds audit the total against a fresh measure after
//! each write; the tests below also check the bounds land on the exact byte.

use mcpbench_server_filesystem::{Background, FILES, Filesystem, Seed};
use mcpbench_sim::{ErrorKind, Server, Simulated, ToolError};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// `/`, `/w` and `/w/a.txt` holding `seed`: 3 records, 1 + 2 + 8 + 4 = 15 bytes.
fn small() -> Filesystem {
    let files = BTreeMap::from([("/w/a.txt".to_string(), "seed".to_string())]);
    Filesystem::from_seed(&Seed {
        files,
        read_only: vec!["/w/locked".into()],
        ..Seed::default()
    })
    .unwrap()
}
const SMALL_BYTES: usize = 15;

fn call(fs: &mut Filesystem, tool: &str, args: Value) -> Result<Value, ToolError> {
    Server::call(fs, tool, &args)
}

fn audited(fs: &Filesystem) {
    assert_eq!(Simulated::audit(fs), Ok(()));
}

fn full_refusal(e: &ToolError) {
    assert_eq!(e.kind, ErrorKind::FailedPrecondition, "{e}");
    assert!(e.message.contains("the filesystem is full"), "{e}");
    assert!(e.message.ends_with("nothing was changed"), "{e}");
}

/// Writes megabyte files `/w/f0` .. until fewer than a megabyte and its path are left, and
/// answers how many bytes are left.
fn fill(fs: &mut Filesystem, held: usize) -> usize {
    let megabyte = "x".repeat(1_000_000);
    let mut held = held;
    let mut k = 0;
    loop {
        let path = format!("/w/f{k}");
        if held + path.len() + megabyte.len() > FILES.bytes {
            return FILES.bytes - held;
        }
        call(fs, "write_file", json!({"path": path, "content": megabyte})).unwrap();
        held += path.len() + megabyte.len();
        k += 1;
    }
}

#[test]
fn every_write_tool_keeps_the_running_total() {
    let mut fs = Filesystem::from_seed(&Seed {
        background: Some(Background {
            seed: 7,
            files: 200,
        }),
        ..Seed::default()
    })
    .unwrap();
    audited(&fs);
    call(&mut fs, "create_directory", json!({"path": "/p/q/r"})).unwrap();
    call(&mut fs, "create_directory", json!({"path": "/p/q"})).unwrap();
    call(
        &mut fs,
        "write_file",
        json!({"path": "/p/q/r/x.txt", "content": "one"}),
    )
    .unwrap();
    call(
        &mut fs,
        "write_file",
        json!({"path": "/p/q/r/x.txt", "content": "a longer one"}),
    )
    .unwrap();
    call(
        &mut fs,
        "edit_file",
        json!({"path": "/p/q/r/x.txt", "edits": [{"oldText": "longer", "newText": "short"}]}),
    )
    .unwrap();
    call(
        &mut fs,
        "edit_file",
        json!({"path": "/p/q/r/x.txt", "edits": [{"oldText": "one", "newText": "two"}],
               "dryRun": true}),
    )
    .unwrap();
    call(
        &mut fs,
        "move_file",
        json!({"source": "/p/q/r/x.txt", "destination": "/p/y.txt"}),
    )
    .unwrap();
    call(
        &mut fs,
        "move_file",
        json!({"source": "/p/q", "destination": "/p/a-much-longer-name"}),
    )
    .unwrap();
    call(
        &mut fs,
        "move_file",
        json!({"source": "/p", "destination": "/z"}),
    )
    .unwrap();
    call(&mut fs, "delete_file", json!({"path": "/z/y.txt"})).unwrap();
    // Refused calls of every kind leave the total where it was.
    call(&mut fs, "delete_file", json!({"path": "/z/y.txt"})).unwrap_err();
    call(
        &mut fs,
        "move_file",
        json!({"source": "/z", "destination": "/z/in"}),
    )
    .unwrap_err();
    call(
        &mut fs,
        "create_directory",
        json!({"path": "/z/a-much-longer-name/r/.."}),
    )
    .unwrap_err();
    let snapshot = Simulated::snapshot(&fs);
    assert!(
        snapshot["directories"]
            .as_array()
            .unwrap()
            .contains(&json!("/z/a-much-longer-name/r"))
    );
    audited(&fs);
    let copy = Simulated::copy(&fs).unwrap();
    audited(&copy);
}

#[test]
fn text_json_would_escape_counts_its_plain_bytes() {
    let mut fs = small();
    let odd = "say \"hi\" \\ back\nslash \u{1} bell \u{7f} é 日本 🦀";
    call(
        &mut fs,
        "edit_file",
        json!({"path": "/w/a.txt", "edits": [{"oldText": "seed", "newText": odd}]}),
    )
    .unwrap();
    audited(&fs);
    // The exact room left after the edit, in plain bytes (the text's UTF-8 length, no
    // escapes): a file that takes it all fits, one byte more does not.
    let held = SMALL_BYTES - "seed".len() + odd.len();
    let room = fill(&mut fs, held);
    let path = "/w/last";
    let too_much = "y".repeat(room - path.len() + 1);
    full_refusal(
        &call(
            &mut fs,
            "write_file",
            json!({"path": path, "content": too_much}),
        )
        .unwrap_err(),
    );
    let exact = "y".repeat(room - path.len());
    call(
        &mut fs,
        "write_file",
        json!({"path": path, "content": exact}),
    )
    .unwrap();
    audited(&fs);
    // An edit that shrinks is admitted however full the store is, and frees what it drops.
    call(
        &mut fs,
        "edit_file",
        json!({"path": "/w/a.txt", "edits": [{"oldText": odd, "newText": "é"}]}),
    )
    .unwrap();
    let freed = odd.len() - "é".len();
    let grow = "z".repeat(freed);
    call(
        &mut fs,
        "edit_file",
        json!({"path": "/w/a.txt", "edits": [{"oldText": "é", "newText": format!("é{grow}")}]}),
    )
    .unwrap();
    full_refusal(
        &call(
            &mut fs,
            "edit_file",
            json!({"path": "/w/a.txt", "edits": [{"oldText": "é", "newText": "éé"}]}),
        )
        .unwrap_err(),
    );
    audited(&fs);
}

#[test]
fn a_write_is_admitted_for_its_path_and_content_to_the_byte() {
    // Paths are kept beside the content, so they count: with the old count (content only) the
    // first write below was admitted and the tree held more than its bound.
    let mut fs = small();
    let room = fill(&mut fs, SMALL_BYTES);
    let path = "/w/a-file-with-a-long-name.txt";
    let over = "y".repeat(room - path.len() + 3);
    let before = Simulated::snapshot(&fs);
    let e = call(
        &mut fs,
        "write_file",
        json!({"path": path, "content": over}),
    )
    .unwrap_err();
    full_refusal(&e);
    assert_eq!(
        Simulated::snapshot(&fs),
        before,
        "a refusal changes nothing"
    );
    audited(&fs);
    let fits = "y".repeat(room - path.len());
    call(
        &mut fs,
        "write_file",
        json!({"path": path, "content": fits}),
    )
    .unwrap();
    // Full to the byte: an empty file still costs its path, a new directory its path.
    full_refusal(
        &call(
            &mut fs,
            "write_file",
            json!({"path": "/w/e", "content": ""}),
        )
        .unwrap_err(),
    );
    full_refusal(&call(&mut fs, "create_directory", json!({"path": "/d"})).unwrap_err());
    // Deleting frees the file's path and content; moving to a longer path needs room for it.
    call(&mut fs, "delete_file", json!({"path": "/w/f0"})).unwrap();
    let megabyte = "q".repeat(1_000_000);
    full_refusal(
        &call(
            &mut fs,
            "write_file",
            json!({"path": "/w/g00", "content": megabyte}),
        )
        .unwrap_err(),
    );
    call(
        &mut fs,
        "write_file",
        json!({"path": "/w/g0", "content": megabyte}),
    )
    .unwrap();
    audited(&fs);
    let before = Simulated::snapshot(&fs);
    let e = call(
        &mut fs,
        "move_file",
        json!({"source": "/w/f1", "destination": "/w/f1x"}),
    )
    .unwrap_err();
    full_refusal(&e);
    assert_eq!(Simulated::snapshot(&fs), before);
    call(
        &mut fs,
        "move_file",
        json!({"source": "/w/f1", "destination": "/w/1"}),
    )
    .unwrap();
    call(
        &mut fs,
        "move_file",
        json!({"source": "/w/1", "destination": "/w/f1"}),
    )
    .unwrap();
    audited(&fs);
}

#[test]
fn a_deep_directory_counts_every_path_it_makes() {
    // One path of 4,095 bytes makes 1,365 directories, each keeping its own full path: 2.8 MB.
    // The old count took directories as free, so three such calls were admitted.
    let deep = |root: char| format!("/{root}b").repeat(1_365);
    let per_tree: usize = (1..=1_365).map(|k| 3 * k).sum();
    assert_eq!(per_tree, 2_796_885);
    let mut fs = Filesystem::from_seed(&Seed::default()).unwrap();
    call(&mut fs, "create_directory", json!({"path": deep('a')})).unwrap();
    call(&mut fs, "create_directory", json!({"path": deep('c')})).unwrap();
    assert!(1 + 3 * per_tree > FILES.bytes && 3 * 1_365 + 1 < FILES.records);
    let before = Simulated::snapshot(&fs);
    full_refusal(&call(&mut fs, "create_directory", json!({"path": deep('d')})).unwrap_err());
    assert_eq!(Simulated::snapshot(&fs), before);
    // Moving a tree swaps the prefix of every path below it.
    let before = Simulated::snapshot(&fs);
    let e = call(
        &mut fs,
        "move_file",
        json!({"source": "/ab", "destination": format!("/{}", "m".repeat(3_000))}),
    )
    .unwrap_err();
    full_refusal(&e);
    assert_eq!(Simulated::snapshot(&fs), before);
    call(
        &mut fs,
        "move_file",
        json!({"source": "/ab", "destination": "/a"}),
    )
    .unwrap();
    audited(&fs);
}

#[test]
fn a_read_only_prefix_is_still_refused_first_and_changes_nothing() {
    let mut fs = small();
    let e = call(&mut fs, "create_directory", json!({"path": "/w/locked/x"})).unwrap_err();
    assert_eq!(e.kind, ErrorKind::PermissionDenied);
    let e = call(
        &mut fs,
        "write_file",
        json!({"path": "/w/locked", "content": "x"}),
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::PermissionDenied);
    audited(&fs);
}
