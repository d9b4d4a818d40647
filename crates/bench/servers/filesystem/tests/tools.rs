//! What an agent notices when it calls the filesystem tools.

use mcpbench_server_filesystem::{Atom, Filesystem, Seed};
use mcpbench_sim::{ErrorKind, Server, Simulated};
use serde_json::{Value, json};
use std::collections::BTreeMap;

fn fs() -> Filesystem {
    let files = BTreeMap::from([
        ("/var/app/b.log".to_string(), "bee".to_string()),
        ("/var/app/a.log".to_string(), "ay".to_string()),
        (
            "/var/app/notes.txt".to_string(),
            "port = 80\nhost = x\n".to_string(),
        ),
        ("/shared/readme".to_string(), "hello".to_string()),
    ]);
    Filesystem::from_seed(&Seed {
        files,
        read_only: vec!["/shared".into()],
        ..Seed::default()
    })
    .unwrap()
}

fn call(fs: &mut Filesystem, tool: &str, args: Value) -> Result<Value, mcpbench_sim::ToolError> {
    Server::call(fs, tool, &args)
}

#[test]
fn arguments_that_break_the_schema_are_refused_with_the_reason() {
    let mut fs = fs();
    let e = call(&mut fs, "write_file", json!({"path": "/a"})).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArguments);
    assert!(e.message.contains("content"), "{e}");
    let e = call(
        &mut fs,
        "read_text_file",
        json!({"path": "/var/app/a.log", "lines": 3}),
    )
    .unwrap_err();
    assert!(
        e.message.contains("lines"),
        "unknown arguments are named: {e}"
    );
    let e = call(
        &mut fs,
        "read_text_file",
        json!({"path": "/var/app/a.log", "head": 0}),
    )
    .unwrap_err();
    assert!(
        e.message.contains("head") || e.message.contains("minimum"),
        "{e}"
    );
    let e = call(&mut fs, "read_text_file", json!({"path": "relative.txt"})).unwrap_err();
    assert!(e.message.contains("not absolute"), "{e}");
}

#[test]
fn typed_errors_name_the_thing() {
    let mut fs = fs();
    let e = call(&mut fs, "read_text_file", json!({"path": "/nope"})).unwrap_err();
    assert_eq!(
        (e.kind, e.to_string()),
        (ErrorKind::NotFound, "not_found: no such file: /nope".into())
    );
    let e = call(
        &mut fs,
        "write_file",
        json!({"path": "/shared/x", "content": "y"}),
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::PermissionDenied);
    let e = call(
        &mut fs,
        "move_file",
        json!({"source": "/var/app/a.log", "destination": "/var/app/b.log"}),
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Conflict);
    let e = call(
        &mut fs,
        "write_file",
        json!({"path": "/missing/dir/x", "content": "y"}),
    )
    .unwrap_err();
    assert!(
        e.kind == ErrorKind::NotFound && e.message.contains("/missing/dir"),
        "{e}"
    );
    let e = call(
        &mut fs,
        "edit_file",
        json!({"path": "/var/app/notes.txt", "edits": [{"oldText": "port = 81", "newText": "x"}]}),
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::NotFound);
    assert!(
        fs.holds(&Atom::FileEquals {
            path: "/var/app/notes.txt".into(),
            content: "port = 80\nhost = x\n".into()
        }),
        "a failed edit changes nothing"
    );
}

#[test]
fn listings_are_sorted_and_replays_are_identical() {
    let run = || {
        let mut fs = fs();
        let mut out = vec![call(&mut fs, "list_directory", json!({"path": "/var/app"})).unwrap()];
        out.push(
            call(
                &mut fs,
                "create_directory",
                json!({"path": "/archive/2026"}),
            )
            .unwrap(),
        );
        out.push(
            call(
                &mut fs,
                "move_file",
                json!({"source": "/var/app/a.log", "destination": "/archive/2026/a.log"}),
            )
            .unwrap(),
        );
        out.push(
            call(
                &mut fs,
                "search_files",
                json!({"path": "/", "pattern": "*.log"}),
            )
            .unwrap(),
        );
        out.push(call(&mut fs, "directory_tree", json!({"path": "/archive"})).unwrap());
        (out, Simulated::snapshot(&fs))
    };
    let (first, state) = run();
    assert_eq!(
        first[0],
        json!("[FILE] a.log\n[FILE] b.log\n[FILE] notes.txt")
    );
    assert_eq!(first[3], json!("/archive/2026/a.log\n/var/app/b.log"));
    assert_eq!(
        serde_json::to_string(&run()).unwrap(),
        serde_json::to_string(&(first, state)).unwrap()
    );
}

#[test]
fn predicates_read_the_final_state() {
    let mut fs = fs();
    let moved = Atom::FileExists {
        path: "/var/app/c.log".into(),
    };
    assert!(!fs.holds(&moved));
    call(
        &mut fs,
        "move_file",
        json!({"source": "/var/app/a.log", "destination": "/var/app/c.log"}),
    )
    .unwrap();
    assert!(fs.holds(&moved));
    assert!(fs.holds(&Atom::EntryCount {
        path: "/var/app".into(),
        count: 3
    }));
    assert!(fs.holds(&Atom::FileContains {
        path: "/var/app/notes.txt".into(),
        text: "host = x".into()
    }));
    assert!(!fs.holds(&Atom::DirExists {
        path: "/var/app/c.log".into()
    }));
}

#[test]
fn seeds_that_cannot_exist_are_refused() {
    let both = Seed {
        files: BTreeMap::from([("/a".into(), "x".into()), ("/a/b".into(), "y".into())]),
        ..Seed::default()
    };
    assert!(
        Filesystem::from_seed(&both)
            .unwrap_err()
            .to_string()
            .contains("both a file and a directory")
    );
    let dotdot = Seed {
        files: BTreeMap::from([("/a/../b".into(), "x".into())]),
        ..Seed::default()
    };
    assert!(Filesystem::from_seed(&dotdot).is_err());
}

#[test]
fn a_directory_holding_a_read_only_one_cannot_be_moved_away_from_it() {
    let mut fs = fs();
    call(&mut fs, "create_directory", json!({"path": "/team"})).unwrap();
    let before = Simulated::snapshot(&fs);
    // Moving `/data` would carry the read-only `/data/ro` to a writable place.
    let mut seeded = Filesystem::from_seed(&Seed {
        files: BTreeMap::from([("/data/ro/keep.txt".to_string(), "kept".to_string())]),
        read_only: vec!["/data/ro".into()],
        ..Seed::default()
    })
    .unwrap();
    let held = Simulated::snapshot(&seeded);
    let e = call(
        &mut seeded,
        "move_file",
        json!({"source": "/data", "destination": "/elsewhere"}),
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::PermissionDenied);
    assert!(e.message.contains("/data/ro is read-only"), "{e}");
    assert_eq!(Simulated::snapshot(&seeded), held, "nothing moved");
    // A directory holding nothing read-only moves as before.
    call(
        &mut fs,
        "move_file",
        json!({"source": "/team", "destination": "/crew"}),
    )
    .unwrap();
    assert_ne!(Simulated::snapshot(&fs), before);
}
