//! Recovery templates: an injected fault to retry through, or a natural error (a protected
//! branch, no write access, a missing branch) for the agent to notice and get around; the
//! goal states only the outcome the user wants and what they will accept.

use super::{
    FEATURES, Kit, METHODS, atom, commit_exists, file_exists, file_is, method_name, method_phrase,
    not, params, place,
};
use crate::fixtures::{base_repo, first_number, issues};
use crate::{Atom, CommitSeed, DEFAULT_USER, Github, Permission, PullSeed, Seed};
use mcpbench_sim::{Draft, ErrorKind, Fault, Pred, Rng, call, qualified};
use serde_json::json;

pub(crate) fn merge_after_outage(rng: &mut Rng) -> Draft<Github> {
    let (owner, name) = place(rng);
    let mut repo = base_repo(rng, &owner, &name);
    let k = rng.range(1, 3) as usize;
    let first = first_number(rng);
    repo.issues = issues(rng, first, k, &[]);
    let features = rng.sample(FEATURES, 2);
    for (i, (slug, title)) in features.iter().enumerate() {
        let branch = format!("feature/{slug}");
        let module = slug.replace('-', "_");
        let mut c = CommitSeed::new(
            &branch,
            &format!("Add {module}"),
            &[(
                &format!("src/{module}.py"),
                &format!("def {module}():\n    return {i}\n"),
            )],
        );
        c.from = Some("main".into());
        repo.commits.push(c);
        repo.pull_requests.push(PullSeed::new(
            first + k as u64 + i as u64,
            title,
            &branch,
            "main",
        ));
    }
    let number = first + k as u64 + rng.below(2);
    let method = *rng.pick(METHODS);
    let (kind, message) = *rng.pick(&[
        (
            ErrorKind::RateLimited,
            "API rate limit exceeded for user octocat; try again in a moment",
        ),
        (
            ErrorKind::Unavailable,
            "GitHub is temporarily unavailable (502); nothing was merged, try again",
        ),
        (
            ErrorKind::Timeout,
            "the merge request timed out before GitHub answered; nothing was merged",
        ),
    ]);
    let merge = call::<Github>(
        "merge_pull_request",
        json!({ "owner": owner, "repo": name, "pull_number": number, "merge_method": method_name(method) }),
    );
    Draft {
        goal: format!(
            "Merge pull request #{number} in {owner}/{name} {}.",
            method_phrase(method)
        ),
        max_steps: 4,
        seed: Seed {
            repos: vec![repo],
            ..Seed::default()
        },
        tools: Github::tools(&[
            "merge_pull_request",
            "get_pull_request",
            "list_pull_requests",
            "update_pull_request_branch",
        ]),
        predicate: atom(Atom::PrMerged {
            owner: owner.clone(),
            repo: name.clone(),
            number,
            method: Some(method),
        }),
        references: vec![vec![merge.clone(), merge]],
        faults: vec![Fault {
            tool: qualified::<Github>("merge_pull_request"),
            on_call: 1,
            times: 1,
            error: kind,
            message: message.into(),
            landed: false,
        }],
        params: params(&[
            ("repo", json!(format!("{owner}/{name}"))),
            ("number", json!(number)),
            ("method", json!(method_name(method))),
            ("error", json!(kind.as_str())),
        ]),
    }
}

pub(crate) fn update_then_merge(rng: &mut Rng) -> Draft<Github> {
    let (owner, name) = place(rng);
    let mut repo = base_repo(rng, &owner, &name);
    repo.require_up_to_date = vec!["main".into()];
    let k = rng.range(0, 3) as usize;
    let first = first_number(rng);
    repo.issues = issues(rng, first, k, &[]);
    let (slug, title) = *rng.pick(FEATURES);
    let branch = format!("feature/{slug}");
    let module = slug.replace('-', "_");
    let code_path = format!("src/{module}.py");
    let code = format!("def {module}():\n    return True\n");
    let mut c = CommitSeed::new(&branch, &format!("Add {module}"), &[(&code_path, &code)]);
    c.from = Some("main".into());
    repo.commits.push(c);
    let step = rng.range(3, 6);
    let setup = format!(
        "# Setup\n\n1. Install dependencies with make deps.\n2. Run the migrations with make migrate.\n{step}. Start the service with make run.\n"
    );
    repo.commits.push(CommitSeed::new(
        "main",
        "Document the migration step",
        &[("docs/setup.md", &setup)],
    ));
    let number = first + k as u64;
    repo.pull_requests
        .push(PullSeed::new(number, title, &branch, "main"));
    let method = *rng.pick(METHODS);
    let merge = call::<Github>(
        "merge_pull_request",
        json!({ "owner": owner, "repo": name, "pull_number": number, "merge_method": method_name(method) }),
    );
    let how = method_phrase(method);
    let goal = match rng.below(3) {
        0 => format!(
            "Merge pull request #{number} in {owner}/{name} {how}, without losing anything that is already on main."
        ),
        1 => format!(
            "Pull request #{number} in {owner}/{name} has been approved: please get it merged {how}. Whatever has landed on main since it was opened must stay there."
        ),
        _ => format!(
            "Please merge PR #{number} of {owner}/{name} {how}. Keep main's recent commits as they are."
        ),
    };
    Draft {
        goal,
        max_steps: 6,
        seed: Seed {
            repos: vec![repo],
            ..Seed::default()
        },
        tools: Github::tools(&[
            "merge_pull_request",
            "get_pull_request",
            "update_pull_request_branch",
            "list_pull_requests",
            "create_branch",
            "push_files",
        ]),
        predicate: Pred::All(vec![
            atom(Atom::PrMerged {
                owner: owner.clone(),
                repo: name.clone(),
                number,
                method: Some(method),
            }),
            file_is(&owner, &name, "main", &code_path, &code),
            file_is(&owner, &name, "main", "docs/setup.md", &setup),
        ]),
        references: vec![vec![
            merge.clone(),
            call::<Github>(
                "update_pull_request_branch",
                json!({ "owner": owner, "repo": name, "pull_number": number }),
            ),
            merge,
        ]],
        faults: vec![],
        params: params(&[
            ("repo", json!(format!("{owner}/{name}"))),
            ("number", json!(number)),
            ("method", json!(method_name(method))),
        ]),
    }
}

pub(crate) fn fork_fallback(rng: &mut Rng) -> Draft<Github> {
    let (owner, name) = place(rng);
    let mut repo = base_repo(rng, &owner, &name);
    repo.permission = Permission::Read;
    let (slug, feature) = *rng.pick(FEATURES);
    let path = format!("proposals/{slug}.md");
    let votes = rng.range(3, 40);
    let content = format!("# Proposal: {feature}\n\nRequested by {votes} customers.");
    let message = format!("Propose {slug}");
    let me = DEFAULT_USER;
    let put = |who: &str| {
        call::<Github>(
            "create_or_update_file",
            json!({ "owner": who, "repo": name, "path": path, "content": content, "message": message, "branch": "main" }),
        )
    };
    let goal = match rng.below(3) {
        0 => format!(
            "Add a file {path} to the main branch of {owner}/{name} with the commit message \"{message}\"; if I can't write to {owner}/{name}, the main branch of my own fork of it will do. The file must contain exactly these lines:\n{content}"
        ),
        1 => format!(
            "Please commit a file {path} with the message \"{message}\" to the main branch of {owner}/{name}, or, if I have no write access there, to the main branch of my own fork of it. The file must say exactly:\n{content}"
        ),
        _ => format!(
            "Commit {path} with the message \"{message}\" to main in {owner}/{name}. If the original won't take it, the main branch of my own fork of {owner}/{name} is fine. Exact file content:\n{content}"
        ),
    };
    Draft {
        goal,
        max_steps: 6,
        seed: Seed {
            repos: vec![repo],
            ..Seed::default()
        },
        tools: Github::tools(&[
            "create_or_update_file",
            "push_files",
            "fork_repository",
            "get_file_contents",
            "search_repositories",
            "create_pull_request",
        ]),
        predicate: Pred::All(vec![
            file_is(me, &name, "main", &path, &content),
            commit_exists(me, &name, "main", &message),
            not(file_exists(&owner, &name, "main", &path)),
        ]),
        references: vec![vec![
            put(&owner),
            call::<Github>("fork_repository", json!({ "owner": owner, "repo": name })),
            put(me),
        ]],
        faults: vec![],
        params: params(&[
            ("repo", json!(format!("{owner}/{name}"))),
            ("slug", json!(slug)),
            ("votes", json!(votes)),
        ]),
    }
}

pub(crate) fn commit_to_new_branch(rng: &mut Rng) -> Draft<Github> {
    let (owner, name) = place(rng);
    let repo = base_repo(rng, &owner, &name);
    let version = format!("1.{}.{}", rng.range(5, 9), rng.range(0, 9));
    let branch = format!("release-notes/{version}");
    let path = format!("notes/{version}.md");
    let (_, feature) = *rng.pick(FEATURES);
    let content = format!("# Release {version}\n\n- {feature}.");
    let message = format!("Add release notes for {version}");
    let put = call::<Github>(
        "create_or_update_file",
        json!({ "owner": owner, "repo": name, "path": path, "content": content, "message": message, "branch": branch }),
    );
    let goal = match rng.below(3) {
        0 => format!(
            "Commit a file {path} to the branch {branch} of {owner}/{name} with the commit message \"{message}\". The file must contain exactly these lines:\n{content}"
        ),
        1 => format!(
            "The release notes for {version} go on the branch {branch} in {owner}/{name}: a file {path}, committed with the message \"{message}\". Leave main itself alone. The file must say exactly:\n{content}"
        ),
        _ => format!(
            "Please add {path} to {owner}/{name} on the branch {branch} (not on main), with the commit message \"{message}\" and exactly these lines as its content:\n{content}"
        ),
    };
    Draft {
        goal,
        max_steps: 6,
        seed: Seed {
            repos: vec![repo],
            ..Seed::default()
        },
        tools: Github::tools(&[
            "create_or_update_file",
            "push_files",
            "create_branch",
            "list_branches",
            "get_file_contents",
        ]),
        predicate: Pred::All(vec![
            file_is(&owner, &name, &branch, &path, &content),
            commit_exists(&owner, &name, &branch, &message),
            not(file_exists(&owner, &name, "main", &path)),
        ]),
        references: vec![vec![
            put.clone(),
            call::<Github>(
                "create_branch",
                json!({ "owner": owner, "repo": name, "branch": branch, "from_branch": "main" }),
            ),
            put,
        ]],
        faults: vec![],
        params: params(&[
            ("repo", json!(format!("{owner}/{name}"))),
            ("version", json!(version)),
        ]),
    }
}
