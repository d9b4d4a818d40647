//! `compose.publish_notes_to_repo` (filesystem + github): the sprints' notes in a local
//! folder that the repository does not have yet are committed next to the published ones,
//! and the folder's README index gets a line for each, in the form of its other lines. The
//! repository already holds the oldest sprints; a draft of the next sprint sits in a drafts
//! folder and must stay local. A careless agent republishes everything, publishes the draft,
//! or rewrites the index without its old lines.

use super::{fill, tools};
use mcpbench_server_filesystem::{Filesystem, Seed as FsSeed};
use mcpbench_server_github::{BranchSeed, CommitSeed, Github};
use mcpbench_sim::{Pred, Rng, call, not, params};
use mcpbench_world::{Atom, Composed, InitialState};
use serde_json::json;
use std::collections::BTreeMap;

/// (kind of notes as the user says it, local folder, repository folder, heading, points).
const NOTES: &[(&str, &str, &str, &str, &[&str])] = &[
    (
        "release notes",
        "release-notes",
        "docs/releases",
        "Release notes",
        &[
            "Faster page loads on the dashboard",
            "CSV export keeps the last row",
            "New audit log export",
            "Dark mode setting is remembered",
            "Fixed rounding of invoice totals",
        ],
    ),
    (
        "sprint retro notes",
        "retros",
        "docs/retros",
        "Sprint retro",
        &[
            "Went well: releases were on time",
            "Went well: fewer flaky tests",
            "To improve: smaller pull requests",
            "To improve: earlier design reviews",
            "Action: rotate the on-call schedule weekly",
        ],
    ),
    (
        "on-call handovers",
        "oncall",
        "runbooks/handovers",
        "On-call handover",
        &[
            "Queue backlog alert fired twice, both self-resolved",
            "Search cluster disk at 78 percent",
            "Payment gateway certificate renews Friday",
            "Staging database credentials were rotated",
            "No open incidents",
        ],
    ),
    (
        "design decision notes",
        "decisions",
        "docs/adr",
        "Design decisions",
        &[
            "Use the scheduler for all cron jobs",
            "Keep the v1 endpoints until June",
            "Store invoice PDFs in the cache",
            "Rate limit the public API per token",
            "Move notifications to the notify service",
        ],
    ),
];

const BRANCHES: &[&str] = &["main", "docs", "notes-update"];
const MESSAGES: &[&str] = &[
    "Publish new sprint notes",
    "Add missing notes",
    "Sync notes",
];

/// Ways to ask, with the `{kind}` of notes, the local `{folder}`, `{repo}`, its `{dir}`,
/// `{branch}` and the commit `{message}`.
const GOALS: [&str; 3] = [
    "My {kind} live in {folder}, one file per sprint. Publish the sprints that {repo} on GitHub doesn't have yet: commit each file's exact content under {dir}/ with the same file name, on the {branch} branch, and add a line for each to {dir}/README.md in the same form as the lines already there, in sprint order. Commit message: \"{message}\". Drafts stay private.",
    "Please bring {dir}/ in the {repo} repository (branch {branch}) up to date with my {kind} in {folder}: every sprint file there that isn't in the repository yet goes in unchanged under the same name, and the README.md in that folder gets a matching line per new sprint, like its existing ones and in order. Use the commit message \"{message}\" and leave my drafts out.",
    "Sync my {kind} to GitHub: the folder {folder} has a file per sprint and {repo} keeps them in {dir}/ on {branch}. Commit the ones missing there, byte for byte with the same names, and extend {dir}/README.md with a line for each new sprint in the existing format, oldest first. The commit message should be \"{message}\"; nothing from the drafts folder.",
];

fn notes(heading: &str, sprint: i64, points: &[&str]) -> String {
    let mut text = format!("# {heading} (sprint {sprint})\n\n");
    for p in points {
        text.push_str(&format!("- {p}\n"));
    }
    text
}

fn index_line(sprint: i64) -> String {
    format!("- [Sprint {sprint}](sprint-{sprint}.md)\n")
}

pub(super) fn publish_notes_to_repo(rng: &mut Rng) -> Composed {
    let &(kind, local_dir, dir, heading, points) = rng.pick(NOTES);
    let start = rng.range(12, 40);
    let published = rng.range(1, 2);
    let fresh = rng.range(2, 3);
    let folder = format!("/home/alex/notes/{local_dir}");
    let mut files = BTreeMap::new();
    let mut texts = Vec::new();
    for sprint in start..start + published + fresh {
        let n = rng.range(2, 4) as usize;
        let text = notes(heading, sprint, &rng.sample(points, n));
        files.insert(format!("{folder}/sprint-{sprint}.md"), text.clone());
        texts.push((sprint, text));
    }
    // A draft of the next sprint: newer than all, but not to be published.
    let next = start + published + fresh;
    let draft_points = rng.sample(points, 2);
    let draft = notes(heading, next, &draft_points);
    files.insert(format!("{folder}/drafts/sprint-{next}.md"), draft);
    files.insert("/home/alex/todo.txt".into(), "- book flights\n".into());
    let fs = FsSeed {
        files,
        ..FsSeed::default()
    };

    let mut gh = mcpbench_server_github::sample_seed(rng);
    let branch = *rng.pick(BRANCHES);
    let repo = &mut gh.repos[0];
    let (owner, name) = (repo.owner.clone(), repo.name.clone());
    let mut index = format!("# {heading}\n\n");
    let mut old: Vec<(&str, &str)> = Vec::new();
    let old_files: Vec<(String, String)> = (texts[..published as usize].iter())
        .map(|(s, t)| (format!("{dir}/sprint-{s}.md"), t.clone()))
        .collect();
    for (s, _) in &texts[..published as usize] {
        index.push_str(&index_line(*s));
    }
    let readme = format!("{dir}/README.md");
    old.push((readme.as_str(), index.as_str()));
    old.extend(old_files.iter().map(|(p, t)| (p.as_str(), t.as_str())));
    let mut seeded = CommitSeed::new("main", "Publish earlier notes", &old);
    seeded.author = Some(repo.collaborators[0].clone());
    repo.commits.push(seeded);
    if branch != "main" {
        repo.branches.push(BranchSeed {
            name: branch.into(),
            from: None,
        });
    }

    let message = *rng.pick(MESSAGES);
    let mut new_index = index.clone();
    let mut pushed = Vec::new();
    let mut steps = vec![
        call::<Filesystem>("list_directory", json!({ "path": folder })),
        call::<Github>(
            "get_file_contents",
            json!({ "owner": owner, "repo": name, "path": readme, "branch": branch }),
        ),
    ];
    let mut checks = Vec::new();
    for (s, text) in &texts[published as usize..] {
        let path = format!("{dir}/sprint-{s}.md");
        let local = format!("{folder}/sprint-{s}.md");
        steps.push(call::<Filesystem>(
            "read_text_file",
            json!({ "path": local }),
        ));
        new_index.push_str(&index_line(*s));
        checks.push(file_equals(&owner, &name, branch, &path, text));
        pushed.push(json!({ "path": path, "content": text }));
    }
    pushed.push(json!({ "path": readme, "content": new_index }));
    steps.push(call::<Github>(
        "push_files",
        json!({ "owner": owner, "repo": name, "branch": branch, "files": pushed, "message": message }),
    ));
    checks.push(file_equals(&owner, &name, branch, &readme, &new_index));
    for (path, text) in &old_files {
        checks.push(file_equals(&owner, &name, branch, path, text));
    }
    checks.push(not(Pred::Atom(Atom::github(
        mcpbench_server_github::Atom::FileExists {
            owner: owner.clone(),
            repo: name.clone(),
            branch: branch.into(),
            path: format!("{dir}/sprint-{next}.md"),
        },
    ))));
    checks.push(Pred::Atom(Atom::github(
        mcpbench_server_github::Atom::CommitExists {
            owner: owner.clone(),
            repo: name.clone(),
            branch: branch.into(),
            message: message.into(),
        },
    )));
    let full = format!("{owner}/{name}");
    let slots = [
        ("kind", kind),
        ("folder", folder.as_str()),
        ("repo", full.as_str()),
        ("dir", dir),
        ("branch", branch),
        ("message", message),
    ];
    let template = *rng.pick(&GOALS);
    let goal = fill(template, &slots);
    Composed {
        max_steps: steps.len() as u32 + 5,
        goal,
        initial_state: InitialState {
            filesystem: Some(fs),
            github: Some(gh),
            ..Default::default()
        },
        available_tools: tools(&[
            (
                "filesystem",
                &["read_text_file", "list_directory", "search_files"],
            ),
            (
                "github",
                &[
                    "get_file_contents",
                    "create_or_update_file",
                    "push_files",
                    "list_branches",
                    "list_commits",
                ],
            ),
        ]),
        success_predicate: Pred::All(checks),
        faults: vec![],
        reference_solutions: vec![steps],
        params: params(&[
            ("folder", json!(folder)),
            ("repo", json!(full)),
            ("dir", json!(dir)),
            ("branch", json!(branch)),
            ("published", json!(published)),
            ("fresh", json!(fresh)),
        ]),
    }
}

fn file_equals(owner: &str, repo: &str, branch: &str, path: &str, content: &str) -> Pred<Atom> {
    Pred::Atom(Atom::github(mcpbench_server_github::Atom::FileEquals {
        owner: owner.into(),
        repo: repo.into(),
        branch: branch.into(),
        path: path.into(),
        content: content.into(),
    }))
}
