//! The account keeps what it holds as a running total, moved by each write's exact footprint.
//! Every call goes through `Server::call`, so debug builds audit the total against a fresh
//! measure after each write. The tests here also measure the account from its snapshot, on
//! their own, and check that a write is admitted exactly when what it stores fits: merges,
//! rebases, branch updates and forks add commits (trees and all), branches and records, and
//! edits grow records by their JSON-escaped text.

use mcpbench_server_github::{
    ACCOUNT, Background, CommitSeed, Github, IssueSeed, PullSeed, RepoSeed, Seed,
};
use mcpbench_sim::{ErrorKind, Server, Simulated, ToolError};
use serde::Serialize;
use serde_json::{Value, json};

/// Text JSON escapes: quotes, a backslash, a newline, a tab, a control character, and
/// characters beyond ASCII (stored as they are, two to four bytes each).
const ODD: &str = "say \"hi\" \\ back\nnext\tcol \u{1} é 日本 🦀";

/// acme/api: #1 an issue; #2 feature/a (closes #1), #3 feature/r (two commits), #4 feature/s,
/// all behind main by one commit and free of conflicts.
fn api() -> RepoSeed {
    let mut repo = RepoSeed::new(
        "acme",
        "api",
        &[("README.md", "# api\n"), ("config.yaml", "port: 1\n")],
    );
    repo.collaborators = vec!["alice".into()];
    let from_main = |mut c: CommitSeed| {
        c.from = Some("main".into());
        c
    };
    repo.commits = vec![
        from_main(CommitSeed::new(
            "feature/a",
            "Add a",
            &[("src/a.py", "a = 1\n")],
        )),
        from_main(CommitSeed::new(
            "feature/r",
            "R one",
            &[("r1.py", "r = 1\n")],
        )),
        CommitSeed::new("feature/r", "R two", &[("r2.py", "r = 2\n")]),
        from_main(CommitSeed::new(
            "feature/s",
            "S one",
            &[("s.py", "s = 1\n")],
        )),
        CommitSeed::new("main", "Docs", &[("docs/x.md", "x\n")]),
    ];
    repo.issues = vec![IssueSeed::new(1, "Crash on start", "It crashes.", &["bug"])];
    let mut a = PullSeed::new(2, "Add a", "feature/a", "main");
    a.body = "Fixes #1 and closes #1.".into();
    repo.pull_requests = vec![
        a,
        PullSeed::new(3, "Add r", "feature/r", "main"),
        PullSeed::new(4, "Add s", "feature/s", "main"),
    ];
    repo
}

/// acme/api beside acme/bulk, a repository whose one large file leaves the account about
/// 30 KB of room.
fn nearly_full() -> Github {
    let big = "x".repeat(ACCOUNT.bytes - 30_000);
    let bulk = RepoSeed::new("acme", "bulk", &[("blob.bin", big.as_str())]);
    let seed = Seed {
        repos: vec![api(), bulk],
        ..Seed::default()
    };
    <Github as Simulated>::from_seed(&seed).unwrap()
}

fn call(gh: &mut Github, tool: &str, args: Value) -> Result<Value, ToolError> {
    Server::call(gh, tool, &args)
}

fn api_call(gh: &mut Github, tool: &str, mut args: Value) -> Result<Value, ToolError> {
    args["owner"] = json!("acme");
    args["repo"] = json!("api");
    call(gh, tool, args)
}

fn copy(gh: &Github) -> Github {
    Simulated::copy(gh).unwrap()
}

fn audited(gh: &Github) {
    assert_eq!(Simulated::audit(gh), Ok(()));
}

fn full_refusal(e: ToolError) {
    assert_eq!(e.kind, ErrorKind::FailedPrecondition, "{e}");
    assert!(e.message.contains("the GitHub account is full"), "{e}");
    assert!(e.message.ends_with("nothing was changed"), "{e}");
}

fn len<T: Serialize + ?Sized>(value: &T) -> usize {
    serde_json::to_string(value).unwrap().len()
}

/// The bytes the account holds, measured from its snapshot by this test on its own: each
/// repository's full name and own fields, each branch as `[name, sha]`, each commit as
/// `[sha, commit]`, each issue without its comments, each comment (compact JSON; the order of
/// a record's fields does not change its length).
fn held(gh: &Github) -> usize {
    let snapshot = Simulated::snapshot(gh);
    let mut bytes = 0;
    for (name, repo) in snapshot["repos"].as_object().unwrap() {
        let repo = repo.as_object().unwrap();
        let parts = ["branches", "commits", "issues", "clock"];
        let fields: serde_json::Map<String, Value> = repo
            .iter()
            .filter(|(k, _)| !parts.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        bytes += len(name) + len(&fields);
        for part in ["branches", "commits"] {
            let entries = repo[part].as_object().unwrap().iter();
            bytes += entries.map(|entry| len(&entry)).sum::<usize>();
        }
        for issue in repo["issues"].as_object().unwrap().values() {
            let head: serde_json::Map<String, Value> = issue
                .as_object()
                .unwrap()
                .iter()
                .filter(|(k, _)| *k != "comments")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            bytes += len(&head);
            bytes += issue["comments"]
                .as_array()
                .unwrap()
                .iter()
                .map(len)
                .sum::<usize>();
        }
    }
    bytes
}

fn comment(gh: &mut Github, body: &str) -> Result<Value, ToolError> {
    api_call(
        gh,
        "add_issue_comment",
        json!({"issue_number": 1, "body": body}),
    )
}

/// Fills the account with a comment so that exactly what `tool` stores is left, and checks
/// that the call is then admitted (filling the account to the byte), while with three bytes
/// less it is refused and changes nothing.
fn admitted_to_the_byte(tool: &str, args: Value) {
    let mut gh = nearly_full();
    // What the write stores, measured after a one-byte filler (the filler takes a tick of the
    // clock, which the write's records and commits are numbered by).
    let mut filled = copy(&gh);
    comment(&mut filled, "x").unwrap();
    let before = held(&filled);
    let mut written = copy(&filled);
    call(&mut written, tool, args.clone()).unwrap();
    let stores = held(&written) - before;
    assert!(stores > 0, "{tool} stores nothing");
    // A filler one byte longer costs one byte more.
    let filler = ACCOUNT.bytes - before - stores + 1;
    let mut short = copy(&gh);
    comment(&mut short, &"x".repeat(filler + 3)).unwrap();
    let snapshot = Simulated::snapshot(&short);
    full_refusal(call(&mut short, tool, args.clone()).unwrap_err());
    assert!(
        Simulated::snapshot(&short) == snapshot,
        "{tool}: a refusal changes nothing"
    );
    audited(&short);
    comment(&mut gh, &"x".repeat(filler)).unwrap();
    assert_eq!(held(&gh), ACCOUNT.bytes - stores);
    call(&mut gh, tool, args).unwrap();
    assert_eq!(held(&gh), ACCOUNT.bytes, "{tool}: full to the byte");
    audited(&gh);
}

#[test]
fn a_merge_commit_and_the_merged_record_are_admitted_to_the_byte() {
    // The old count took a merge's tree content alone (a dozen bytes here): the commit's sha,
    // parents, message and paths, the pull request's merge record and the issue it closes
    // went uncounted, and this merge was admitted with three bytes too few.
    admitted_to_the_byte(
        "merge_pull_request",
        json!({"owner": "acme", "repo": "api", "pull_number": 2}),
    );
}

#[test]
fn a_rebase_is_admitted_for_every_commit_it_replays() {
    admitted_to_the_byte(
        "merge_pull_request",
        json!({"owner": "acme", "repo": "api", "pull_number": 3, "merge_method": "rebase"}),
    );
    admitted_to_the_byte(
        "merge_pull_request",
        json!({"owner": "acme", "repo": "api", "pull_number": 4, "merge_method": "squash",
               "commit_message": ODD}),
    );
}

#[test]
fn a_branch_update_a_fork_and_a_new_branch_are_admitted_to_the_byte() {
    admitted_to_the_byte(
        "update_pull_request_branch",
        json!({"owner": "acme", "repo": "api", "pull_number": 3}),
    );
    admitted_to_the_byte("fork_repository", json!({"owner": "acme", "repo": "api"}));
    admitted_to_the_byte(
        "create_branch",
        json!({"owner": "acme", "repo": "api", "branch": "topic/long-name"}),
    );
    admitted_to_the_byte(
        "push_files",
        json!({"owner": "acme", "repo": "api", "branch": "main", "message": ODD,
               "files": [{"path": "a/b.md", "content": ODD}, {"path": "c.md", "content": ""}]}),
    );
}

#[test]
fn an_edit_is_admitted_for_its_escaped_growth_to_the_byte() {
    let mut gh = nearly_full();
    let room = ACCOUNT.bytes - held(&gh);
    assert!((1_000..60_000).contains(&room), "{room}");
    // What setting the body to ODD grows the issue by: its text as JSON escapes it.
    let mut probe = copy(&gh);
    let edit = |body: &str| json!({"issue_number": 1, "body": body});
    api_call(&mut probe, "update_issue", edit(ODD)).unwrap();
    let grows = held(&probe) - held(&gh);
    let escaped = len(ODD) - 2;
    assert!(escaped > ODD.len());
    assert!(grows >= escaped - "It crashes.".len(), "{grows}");
    // One quote more than the room: its raw length fits (the old count, which let it in), its
    // escaped length does not.
    let fits = format!("{ODD}{}", "x".repeat(room - grows));
    let over = format!("{fits}\"");
    assert!(over.len() - "It crashes.".len() < room);
    let snapshot = Simulated::snapshot(&gh);
    full_refusal(api_call(&mut gh, "update_issue", edit(&over)).unwrap_err());
    assert!(
        Simulated::snapshot(&gh) == snapshot,
        "a refusal changes nothing"
    );
    audited(&gh);
    api_call(&mut gh, "update_issue", edit(&fits)).unwrap();
    assert_eq!(held(&gh), ACCOUNT.bytes, "full to the byte");
    // Full: whatever adds a byte is refused, an edit that shrinks is admitted and frees room.
    full_refusal(comment(&mut gh, "x").unwrap_err());
    full_refusal(api_call(&mut gh, "create_branch", json!({"branch": "more"})).unwrap_err());
    full_refusal(api_call(&mut gh, "create_issue", json!({"title": "more"})).unwrap_err());
    full_refusal(
        api_call(
            &mut gh,
            "delete_file",
            json!({"path": "README.md", "message": "rm", "branch": "main"}),
        )
        .unwrap_err(),
    );
    api_call(&mut gh, "update_issue", edit("short")).unwrap();
    let freed = ACCOUNT.bytes - held(&gh);
    assert!(freed > fits.len() - "short".len(), "{freed}");
    api_call(
        &mut gh,
        "update_issue",
        json!({"issue_number": 1, "labels": [], "state": "closed"}),
    )
    .unwrap();
    comment(&mut gh, ODD).unwrap();
    audited(&gh);
}

#[test]
fn every_write_tool_keeps_the_running_total() {
    let seed = Seed {
        repos: vec![api()],
        background: Some(Background {
            seed: 5,
            issues: 40,
            repos: 3,
        }),
        ..Seed::default()
    };
    let mut gh = <Github as Simulated>::from_seed(&seed).unwrap();
    audited(&gh);
    let at = held(&gh);
    assert!(at > 0);
    let ok = |gh: &mut Github, tool: &str, args: Value| api_call(gh, tool, args).unwrap();
    ok(&mut gh, "create_branch", json!({"branch": "topic"}));
    ok(
        &mut gh,
        "create_or_update_file",
        json!({"path": "notes/odd.md", "content": ODD, "message": ODD, "branch": "topic"}),
    );
    ok(
        &mut gh,
        "create_or_update_file",
        json!({"path": "notes/odd.md", "content": "é", "message": "shrink", "branch": "topic"}),
    );
    ok(
        &mut gh,
        "push_files",
        json!({"branch": "topic", "message": "two", "files": [
            {"path": "p/one.md", "content": "1\n"}, {"path": "p/two.md", "content": ODD}]}),
    );
    ok(
        &mut gh,
        "delete_file",
        json!({"path": "notes/odd.md", "message": "rm", "branch": "topic"}),
    );
    // The same change on two branches at the same tip is one commit, stored once.
    ok(&mut gh, "create_branch", json!({"branch": "twin-a"}));
    ok(&mut gh, "create_branch", json!({"branch": "twin-b"}));
    let same = |branch: &str| json!({"path": "twin.md", "content": "t", "message": "twin", "branch": branch});
    let a = ok(&mut gh, "create_or_update_file", same("twin-a"));
    let b = ok(&mut gh, "create_or_update_file", same("twin-b"));
    assert_eq!(a["commit"]["sha"], b["commit"]["sha"]);
    ok(
        &mut gh,
        "create_issue",
        json!({"title": ODD, "body": ODD, "labels": ["bug", "é"], "assignees": ["alice"]}),
    );
    let edits = [
        json!({"issue_number": 1, "title": ODD, "body": ODD.repeat(20)}),
        json!({"issue_number": 1, "body": "shorter"}),
        json!({"issue_number": 1, "labels": ["a", "b", "c"], "assignees": ["alice", "acme"]}),
        json!({"issue_number": 1, "labels": [], "state": "closed", "state_reason": "not_planned"}),
        json!({"issue_number": 1, "state": "open"}),
    ];
    for edit in edits {
        ok(&mut gh, "update_issue", edit);
    }
    ok(
        &mut gh,
        "add_issue_comment",
        json!({"issue_number": 1, "body": ODD}),
    );
    ok(
        &mut gh,
        "add_issue_comment",
        json!({"issue_number": 2, "body": "on a PR"}),
    );
    let topic = ok(
        &mut gh,
        "create_pull_request",
        json!({"title": ODD, "body": ODD, "head": "topic", "base": "main"}),
    )["number"]
        .clone();
    // feature/r gets a merge commit from main, which a rebase then leaves out of its picks.
    ok(
        &mut gh,
        "update_pull_request_branch",
        json!({"pull_number": 3}),
    );
    ok(
        &mut gh,
        "merge_pull_request",
        json!({"pull_number": 3, "merge_method": "rebase"}),
    );
    let merged = ok(&mut gh, "merge_pull_request", json!({"pull_number": 2}));
    assert_eq!(merged["closed_issues"], json!([1]));
    ok(
        &mut gh,
        "merge_pull_request",
        json!({"pull_number": 4, "merge_method": "squash", "commit_title": ODD}),
    );
    ok(
        &mut gh,
        "update_pull_request_branch",
        json!({"pull_number": topic}),
    );
    ok(
        &mut gh,
        "merge_pull_request",
        json!({"pull_number": topic, "merge_method": "rebase"}),
    );
    ok(&mut gh, "fork_repository", json!({}));
    // Calls refused for other reasons leave the total where it was.
    let refused = [
        ("merge_pull_request", json!({"pull_number": 2})),
        ("create_branch", json!({"branch": "topic"})),
        ("update_issue", json!({"issue_number": 1})),
        ("update_pull_request_branch", json!({"pull_number": 4})),
        ("fork_repository", json!({})),
        (
            "add_issue_comment",
            json!({"issue_number": 9999, "body": "x"}),
        ),
    ];
    for (tool, args) in refused {
        api_call(&mut gh, tool, args).unwrap_err();
    }
    // The fork is a repository like any other.
    call(
        &mut gh,
        "create_or_update_file",
        json!({"owner": "octocat", "repo": "api", "path": "f.md", "content": ODD,
               "message": "in the fork", "branch": "main"}),
    )
    .unwrap();
    audited(&gh);
    audited(&copy(&gh));
    assert!(held(&gh) > at);
}
