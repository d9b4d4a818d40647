//! Single-tool templates: one right call with the right arguments (plus reading, where the
//! task asks a question).

use super::{FEATURES, Kit, atom, commit_exists, file_is, params, place, sha_of};
use crate::fixtures::{base_repo, first_number, issues};
use crate::{Atom, CommitSeed, Github, IssueSeed, Seed, State};
use mcpbench_sim::{AnswerCheck, Draft, Pred, Rng, Step, call};
use serde_json::json;

/// New issues to file: (title, body).
const NEW_ISSUES: &[(&str, &str)] = &[
    (
        "Add a health check endpoint",
        "Expose GET /healthz returning 200 when the service is ready.",
    ),
    (
        "Upgrade the logging library",
        "The logging library we use is no longer maintained; move to the current major version.",
    ),
    (
        "Validate email addresses on signup",
        "Signup accepts addresses without an @ sign.",
    ),
    (
        "Cache exchange rates for an hour",
        "Every checkout fetches exchange rates again; cache them for 60 minutes.",
    ),
    (
        "Show last login time on profile",
        "Users want to see when their account was last used.",
    ),
    (
        "Retry failed webhook deliveries",
        "Failed webhook deliveries are dropped; retry them 3 times with backoff.",
    ),
    (
        "Remove the deprecated v1 endpoints",
        "The v1 API was deprecated in 2023 and can be removed.",
    ),
    (
        "Add keyboard shortcuts to the editor",
        "Power users want Ctrl+S to save and Ctrl+K to search.",
    ),
];

const NEW_LABELS: &[&str] = &[
    "bug",
    "enhancement",
    "documentation",
    "security",
    "performance",
    "ui",
];

pub(crate) fn open_issue(rng: &mut Rng) -> Draft<Github> {
    let (owner, name) = place(rng);
    let mut repo = base_repo(rng, &owner, &name);
    let k = rng.range(1, 4) as usize;
    let first = first_number(rng);
    repo.issues = issues(rng, first, k, &[]);
    let (title, body) = *rng.pick(NEW_ISSUES);
    let n = rng.range(1, 2) as usize;
    let labels: Vec<String> = rng
        .sample(NEW_LABELS, n)
        .into_iter()
        .map(String::from)
        .collect();
    let label_text = if n == 1 {
        format!("the label {}", labels[0])
    } else {
        format!("the labels {} and {}", labels[0], labels[1])
    };
    Draft {
        goal: format!(
            "Open an issue in {owner}/{name} titled \"{title}\" with the body \"{body}\" and {label_text}."
        ),
        max_steps: 3,
        seed: Seed {
            repos: vec![repo],
            ..Seed::default()
        },
        tools: Github::tools(&[
            "create_issue",
            "list_issues",
            "search_issues",
            "update_issue",
            "get_issue",
        ]),
        predicate: atom(Atom::IssueExists {
            owner: owner.clone(),
            repo: name.clone(),
            title: title.into(),
            body: Some(body.into()),
            labels: Some(labels.clone()),
            assignees: None,
            state: Some(State::Open),
        }),
        references: vec![vec![call::<Github>(
            "create_issue",
            json!({ "owner": owner, "repo": name, "title": title, "body": body, "labels": labels }),
        )]],
        faults: vec![],
        params: params(&[
            ("repo", json!(format!("{owner}/{name}"))),
            ("title", json!(title)),
            ("labels", json!(labels)),
        ]),
    }
}

pub(crate) fn create_branch(rng: &mut Rng) -> Draft<Github> {
    let (owner, name) = place(rng);
    let mut repo = base_repo(rng, &owner, &name);
    let release = format!("release-1.{}", rng.range(5, 9));
    let mut prep = CommitSeed::new(
        &release,
        &format!("Prepare {release}"),
        &[("VERSION", &release[8..])],
    );
    prep.from = Some("main".into());
    repo.commits.push(prep);
    repo.commits.push(CommitSeed::new(
        "main",
        "Document the deploy steps",
        &[("docs/deploy.md", "# Deploy\n\nRun make deploy.\n")],
    ));
    let from = if rng.chance(1, 2) {
        "main".to_string()
    } else {
        release.clone()
    };
    let (slug, _) = rng.pick(FEATURES);
    let prefix = rng.pick(&["feature", "hotfix", "spike"]);
    let branch = format!("{prefix}/{slug}");
    let seed = Seed {
        repos: vec![repo],
        ..Seed::default()
    };
    let sha = sha_of(&seed, &owner, &name, &from);
    Draft {
        goal: format!(
            "In the {owner}/{name} repository, create a new branch named {branch} that starts from the current tip of {from}."
        ),
        max_steps: 3,
        seed,
        tools: Github::tools(&[
            "create_branch",
            "list_branches",
            "list_commits",
            "push_files",
        ]),
        predicate: atom(Atom::BranchHead {
            owner: owner.clone(),
            repo: name.clone(),
            branch: branch.clone(),
            sha,
        }),
        references: vec![vec![call::<Github>(
            "create_branch",
            json!({ "owner": owner, "repo": name, "branch": branch, "from_branch": from }),
        )]],
        faults: vec![],
        params: params(&[
            ("repo", json!(format!("{owner}/{name}"))),
            ("branch", json!(branch)),
            ("from", json!(from)),
        ]),
    }
}

pub(crate) fn open_pull_request(rng: &mut Rng) -> Draft<Github> {
    let (owner, name) = place(rng);
    let mut repo = base_repo(rng, &owner, &name);
    let picked = rng.sample(FEATURES, 2);
    let (slug, title) = picked[0];
    let head = format!("feature/{slug}");
    let module = slug.replace('-', "_");
    let mut work = CommitSeed::new(
        &head,
        &format!("Implement {slug}"),
        &[(
            &format!("src/{module}.py"),
            &format!("def {module}():\n    return True\n"),
        )],
    );
    work.author = Some(repo.collaborators[1].clone());
    repo.commits.push(work);
    let other = format!("feature/{}", picked[1].0);
    repo.commits.push(CommitSeed::new(
        &other,
        "Work in progress",
        &[("NOTES.md", "wip\n")],
    ));
    let body = format!("{title} in src/{module}.py. Tested locally with make test.");
    Draft {
        goal: format!(
            "Open a pull request in {owner}/{name} that merges the branch {head} into main, titled \"{title}\", with the description \"{body}\""
        ),
        max_steps: 3,
        seed: Seed {
            repos: vec![repo],
            ..Seed::default()
        },
        tools: Github::tools(&[
            "create_pull_request",
            "list_pull_requests",
            "get_pull_request",
            "list_branches",
            "create_issue",
        ]),
        predicate: atom(Atom::PrExists {
            owner: owner.clone(),
            repo: name.clone(),
            head: head.clone(),
            base: "main".into(),
            title: Some(title.into()),
            body: Some(body.clone()),
            state: Some(crate::PrState::Open),
            method: None,
        }),
        references: vec![vec![call::<Github>(
            "create_pull_request",
            json!({ "owner": owner, "repo": name, "title": title, "body": body, "head": head, "base": "main" }),
        )]],
        faults: vec![],
        params: params(&[
            ("repo", json!(format!("{owner}/{name}"))),
            ("head", json!(head)),
        ]),
    }
}

pub(crate) fn update_file(rng: &mut Rng) -> Draft<Github> {
    let (owner, name) = place(rng);
    let mut repo = base_repo(rng, &owner, &name);
    let branch = if rng.chance(1, 2) {
        "main".to_string()
    } else {
        let b = rng
            .pick(&["config-tuning", "staging", "perf-test"])
            .to_string();
        let mut c = CommitSeed::new(
            &b,
            "Turn on debug logging",
            &[(
                "config/app.yaml",
                "port: 8080\nworkers: 4\nlog_level: debug\n",
            )],
        );
        c.from = Some("main".into());
        repo.commits.push(c);
        b
    };
    let port = rng.pick(&[8081, 8443, 9000, 9090]);
    let workers = rng.pick(&[2, 6, 8, 16]);
    let level = rng.pick(&["info", "warn", "error"]);
    let content = format!("port: {port}\nworkers: {workers}\nlog_level: {level}");
    let message = format!("Serve on port {port} with {workers} workers");
    let path = "config/app.yaml";
    Draft {
        goal: format!(
            "On the {branch} branch of {owner}/{name}, replace the whole content of {path} with the three lines below, committing with the message \"{message}\".\n{content}"
        ),
        max_steps: 4,
        seed: Seed {
            repos: vec![repo],
            ..Seed::default()
        },
        tools: Github::tools(&[
            "get_file_contents",
            "create_or_update_file",
            "push_files",
            "list_commits",
            "delete_file",
        ]),
        predicate: Pred::All(vec![
            file_is(&owner, &name, &branch, path, &content),
            commit_exists(&owner, &name, &branch, &message),
        ]),
        references: vec![
            vec![call::<Github>(
                "create_or_update_file",
                json!({ "owner": owner, "repo": name, "path": path, "content": content, "message": message, "branch": branch }),
            )],
            vec![call::<Github>(
                "push_files",
                json!({ "owner": owner, "repo": name, "branch": branch, "files": [{ "path": path, "content": content }], "message": message }),
            )],
        ],
        faults: vec![],
        params: params(&[
            ("repo", json!(format!("{owner}/{name}"))),
            ("branch", json!(branch)),
            ("port", json!(port)),
            ("workers", json!(workers)),
        ]),
    }
}

/// Ways to ask for the open bug count, with `{repo}`.
const BUG_ASKS: &[&str] = &[
    "How many open issues in {repo} carry the label bug? Reply with just the number.",
    "Before triage: how many bugs are still open in {repo}? Only the number, please.",
    "Count the open issues labelled bug in {repo} and tell me the number.",
    "What's the open bug count for {repo} right now? A number is enough.",
    "I need the number of open bug reports in {repo} (issues with the bug label) for my status update.",
];

pub(crate) fn count_open_bugs(rng: &mut Rng) -> Draft<Github> {
    let (owner, name) = place(rng);
    let mut repo = base_repo(rng, &owner, &name);
    let open_bugs = rng.range(1, 5) as usize;
    let closed_bugs = rng.range(1, 3) as usize;
    let others = rng.range(2, 5) as usize;
    let mut kinds: Vec<(bool, State)> = Vec::new();
    kinds.extend(std::iter::repeat_n((true, State::Open), open_bugs));
    kinds.extend(std::iter::repeat_n((true, State::Closed), closed_bugs));
    kinds.extend((0..others).map(|i| {
        (
            false,
            if i % 2 == 0 {
                State::Open
            } else {
                State::Closed
            },
        )
    }));
    rng.shuffle(&mut kinds);
    let first = first_number(rng);
    let mut list: Vec<IssueSeed> = issues(rng, first, kinds.len(), &[]);
    for (issue, (bug, state)) in list.iter_mut().zip(&kinds) {
        if *bug {
            issue.labels.insert(0, "bug".into());
        }
        issue.state = *state;
    }
    repo.issues = list;
    let answer = open_bugs.to_string();
    Draft {
        goal: rng
            .pick(BUG_ASKS)
            .replace("{repo}", &format!("{owner}/{name}")),
        max_steps: 4,
        seed: Seed {
            repos: vec![repo],
            ..Seed::default()
        },
        tools: Github::tools(&[
            "list_issues",
            "search_issues",
            "get_issue",
            "list_pull_requests",
        ]),
        predicate: Pred::Answer(AnswerCheck::OnlyNumber {
            value: open_bugs as f64,
            tolerance: 0.0,
        }),
        references: vec![vec![
            call::<Github>(
                "list_issues",
                json!({ "owner": owner, "repo": name, "state": "open", "labels": ["bug"] }),
            ),
            Step::Answer { answer },
        ]],
        faults: vec![],
        params: params(&[
            ("repo", json!(format!("{owner}/{name}"))),
            ("open_bugs", json!(open_bugs)),
            ("closed_bugs", json!(closed_bugs)),
            ("others", json!(others)),
        ]),
    }
}
