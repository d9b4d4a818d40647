//! Behaviour a user of the tools would notice: errors, merges, determinism, schema checks.

use mcpbench_server_github::{
    Atom, CommitSeed, Github, IssueSeed, MergeMethod, Permission, PullSeed, RepoSeed, Seed,
};
use mcpbench_sim::{ErrorKind, Rng, Server, Simulated};
use serde_json::{Value, json};

/// acme/api: #1 bug issue, #2 clean PR (feature/a adds a file), #3 conflicting PR
/// (feature/b and main both change config.yaml), #4 PR behind a protected main.
fn seed() -> Seed {
    let mut repo = RepoSeed::new(
        "acme",
        "api",
        &[("README.md", "# api\n"), ("config.yaml", "port: 1\n")],
    );
    repo.collaborators = vec!["alice".into()];
    let mut a = CommitSeed::new("feature/a", "Add a", &[("src/a.py", "a = 1\n")]);
    a.from = Some("main".into());
    let mut b = CommitSeed::new("feature/b", "Port 2", &[("config.yaml", "port: 2\n")]);
    b.from = Some("main".into());
    repo.commits = vec![
        a,
        b,
        CommitSeed::new("main", "Port 3", &[("config.yaml", "port: 3\n")]),
    ];
    let mut c = CommitSeed::new("feature/c", "Add c", &[("src/c.py", "c = 1\n")]);
    c.from = Some("main".into());
    repo.commits.push(c);
    repo.commits
        .push(CommitSeed::new("main", "Docs", &[("docs/x.md", "x\n")]));
    repo.issues = vec![IssueSeed::new(1, "Crash on start", "It crashes.", &["bug"])];
    repo.pull_requests = vec![
        PullSeed::new(2, "Add a", "feature/a", "main"),
        PullSeed::new(3, "Port 2", "feature/b", "main"),
        PullSeed::new(4, "Add c", "feature/c", "main"),
    ];
    Seed {
        repos: vec![repo],
        ..Seed::default()
    }
}

fn server(seed: &Seed) -> Github {
    <Github as Simulated>::from_seed(seed).expect("valid seed")
}

fn call(gh: &mut Github, tool: &str, args: Value) -> Result<Value, mcpbench_sim::ToolError> {
    Server::call(gh, tool, &args)
}

#[test]
fn merging_a_conflicting_pull_request_fails_and_changes_nothing() {
    let mut gh = server(&seed());
    let pr = call(
        &mut gh,
        "get_pull_request",
        json!({"owner": "acme", "repo": "api", "pull_number": 3}),
    )
    .unwrap();
    assert_eq!(pr["mergeable"], json!(false));
    assert_eq!(pr["mergeable_state"], json!("dirty"));
    let before = Server::snapshot(&gh);
    let err = call(
        &mut gh,
        "merge_pull_request",
        json!({"owner": "acme", "repo": "api", "pull_number": 3}),
    )
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::FailedPrecondition);
    assert!(err.message.contains("config.yaml"), "{err}");
    assert_eq!(Server::snapshot(&gh), before);
}

#[test]
fn squash_merge_applies_the_head_files_to_base() {
    let mut gh = server(&seed());
    let out = call(
        &mut gh,
        "merge_pull_request",
        json!({"owner": "acme", "repo": "api", "pull_number": 2, "merge_method": "squash"}),
    )
    .unwrap();
    assert_eq!(out["merged"], json!(true));
    let file = call(
        &mut gh,
        "get_file_contents",
        json!({"owner": "acme", "repo": "api", "path": "src/a.py"}),
    )
    .unwrap();
    assert_eq!(file["content"], json!("a = 1\n"));
    let merged = |m| Atom::PrMerged {
        owner: "acme".into(),
        repo: "api".into(),
        number: 2,
        method: Some(m),
    };
    assert!(gh.holds(&merged(MergeMethod::Squash)));
    assert!(!gh.holds(&merged(MergeMethod::Rebase)));
    let again = call(
        &mut gh,
        "merge_pull_request",
        json!({"owner": "acme", "repo": "api", "pull_number": 2}),
    )
    .unwrap_err();
    assert_eq!(again.kind, ErrorKind::FailedPrecondition);
}

#[test]
fn a_protected_base_needs_the_branch_updated_first() {
    let mut s = seed();
    s.repos[0].require_up_to_date = vec!["main".into()];
    let mut gh = server(&s);
    let pr = call(
        &mut gh,
        "get_pull_request",
        json!({"owner": "acme", "repo": "api", "pull_number": 4}),
    )
    .unwrap();
    assert_eq!(pr["mergeable_state"], json!("behind"));
    let args = json!({"owner": "acme", "repo": "api", "pull_number": 4, "merge_method": "rebase"});
    assert_eq!(
        call(&mut gh, "merge_pull_request", args.clone())
            .unwrap_err()
            .kind,
        ErrorKind::FailedPrecondition
    );
    call(
        &mut gh,
        "update_pull_request_branch",
        json!({"owner": "acme", "repo": "api", "pull_number": 4}),
    )
    .unwrap();
    call(&mut gh, "merge_pull_request", args).unwrap();
    for path in ["src/c.py", "docs/x.md"] {
        assert!(gh.holds(&Atom::FileExists {
            owner: "acme".into(),
            repo: "api".into(),
            branch: "main".into(),
            path: path.into()
        }));
    }
}

#[test]
fn merging_with_a_closing_keyword_closes_the_issue() {
    let mut gh = server(&seed());
    call(
        &mut gh,
        "create_branch",
        json!({"owner": "acme", "repo": "api", "branch": "fix/crash"}),
    )
    .unwrap();
    let put = json!({"owner": "acme", "repo": "api", "branch": "fix/crash", "path": "src/fix.py", "content": "ok\n", "message": "Fix crash"});
    call(&mut gh, "create_or_update_file", put).unwrap();
    let pr = call(&mut gh, "create_pull_request", json!({"owner": "acme", "repo": "api", "title": "Fix crash", "body": "Fixes #1", "head": "fix/crash", "base": "main"})).unwrap();
    assert_eq!(pr["number"], json!(5));
    let closed = Atom::IssueState {
        owner: "acme".into(),
        repo: "api".into(),
        number: 1,
        state: mcpbench_server_github::State::Closed,
    };
    assert!(!gh.holds(&closed));
    call(
        &mut gh,
        "merge_pull_request",
        json!({"owner": "acme", "repo": "api", "pull_number": 5}),
    )
    .unwrap();
    assert!(gh.holds(&closed));
}

#[test]
fn read_only_repositories_refuse_pushes_and_forks_accept_them() {
    let mut s = seed();
    s.repos[0].permission = Permission::Read;
    let mut gh = server(&s);
    let put = |owner: &str| json!({"owner": owner, "repo": "api", "branch": "main", "path": "x.md", "content": "x", "message": "x"});
    assert_eq!(
        call(&mut gh, "create_or_update_file", put("acme"))
            .unwrap_err()
            .kind,
        ErrorKind::PermissionDenied
    );
    let fork = call(
        &mut gh,
        "fork_repository",
        json!({"owner": "acme", "repo": "api"}),
    )
    .unwrap();
    assert_eq!(fork["full_name"], json!("octocat/api"));
    call(&mut gh, "create_or_update_file", put("octocat")).unwrap();
    let again = call(
        &mut gh,
        "fork_repository",
        json!({"owner": "acme", "repo": "api"}),
    )
    .unwrap_err();
    assert_eq!(again.kind, ErrorKind::Conflict);
}

#[test]
fn the_same_calls_give_the_same_bytes() {
    let run = || {
        let mut gh = server(&seed());
        let a = call(&mut gh, "push_files", json!({"owner": "acme", "repo": "api", "branch": "main", "files": [{"path": "a.txt", "content": "1"}], "message": "m"})).unwrap();
        let b = call(
            &mut gh,
            "list_commits",
            json!({"owner": "acme", "repo": "api"}),
        )
        .unwrap();
        (a, b, Server::snapshot(&gh))
    };
    assert_eq!(run(), run());
}

#[test]
fn a_stale_file_sha_is_a_conflict() {
    let mut gh = server(&seed());
    let file = call(
        &mut gh,
        "get_file_contents",
        json!({"owner": "acme", "repo": "api", "path": "README.md"}),
    )
    .unwrap();
    let sha = file["sha"].as_str().unwrap().to_string();
    let put = json!({"owner": "acme", "repo": "api", "branch": "main", "path": "README.md", "content": "# v2\n", "message": "v2", "sha": sha});
    call(&mut gh, "create_or_update_file", put.clone()).unwrap();
    assert_eq!(
        call(&mut gh, "create_or_update_file", put)
            .unwrap_err()
            .kind,
        ErrorKind::Conflict
    );
}

#[test]
fn schemas_reject_bad_arguments_before_the_handler() {
    let mut gh = server(&seed());
    let bad = [
        (
            "merge_pull_request",
            json!({"owner": "acme", "repo": "api", "pull_number": 2, "merge_method": "fast-forward"}),
        ),
        (
            "get_issue",
            json!({"owner": "acme", "repo": "api", "issue_number": 0}),
        ),
        (
            "create_issue",
            json!({"owner": "acme", "repo": "api", "title": ""}),
        ),
        (
            "list_issues",
            json!({"owner": "acme", "repo": "api", "colour": "red"}),
        ),
        (
            "get_file_contents",
            json!({"owner": "acme/api", "path": ""}),
        ),
    ];
    for (tool, args) in bad {
        let err = call(&mut gh, tool, args.clone()).unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidArguments, "{tool} {args}");
    }
}

#[test]
fn issue_lists_exclude_pull_requests_and_search_finds_them() {
    let mut gh = server(&seed());
    let open = call(
        &mut gh,
        "list_issues",
        json!({"owner": "acme", "repo": "api"}),
    )
    .unwrap();
    assert_eq!(open.as_array().unwrap().len(), 1);
    let prs = call(
        &mut gh,
        "search_issues",
        json!({"q": "repo:acme/api is:pr is:open"}),
    )
    .unwrap();
    assert_eq!(prs["total_count"], json!(3));
    let bugs = call(&mut gh, "search_issues", json!({"q": "label:bug crash"})).unwrap();
    assert_eq!(bugs["items"][0]["number"], json!(1));
}

#[test]
fn assignees_must_be_collaborators_and_labels_replace() {
    let mut gh = server(&seed());
    let err = call(
        &mut gh,
        "create_issue",
        json!({"owner": "acme", "repo": "api", "title": "T", "assignees": ["mallory"]}),
    )
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidArguments);
    let out = call(&mut gh, "update_issue", json!({"owner": "acme", "repo": "api", "issue_number": 1, "labels": ["p1"], "assignees": ["alice"]})).unwrap();
    assert_eq!(out["labels"], json!(["p1"]));
    assert_eq!(out["assignees"], json!(["alice"]));
}

#[test]
fn bad_seeds_are_refused() {
    let mut dup = seed();
    dup.repos[0]
        .issues
        .push(IssueSeed::new(2, "Clash", "", &[]));
    let mut missing = seed();
    missing.repos[0]
        .pull_requests
        .push(PullSeed::new(9, "Ghost", "feature/ghost", "main"));
    let mut delete = seed();
    let mut c = CommitSeed::new("main", "rm", &[]);
    c.delete = vec!["nope.txt".into()];
    delete.repos[0].commits.push(c);
    for s in [dup, missing, delete] {
        assert!(<Github as Simulated>::from_seed(&s).is_err());
    }
    assert!(
        <Github as Simulated>::from_seed(&mcpbench_server_github::sample_seed(&mut Rng::new(1, 2)))
            .is_ok()
    );
}
