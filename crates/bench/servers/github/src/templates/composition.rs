//! Composition templates: several calls with data flowing between them.

use super::{
    FEATURES, Kit, METHODS, atom, commit_exists, file_exists, file_is, method_name, method_phrase,
    not, params, place,
};
use crate::fixtures::{base_repo, first_number, issues};
use crate::{Atom, Background, CommitSeed, Github, IssueSeed, PrState, PullSeed, Seed, State};
use mcpbench_sim::{Draft, Pred, Rng, Simulated, call};
use serde_json::json;

pub(crate) fn close_with_comment(rng: &mut Rng) -> Draft<Github> {
    let (owner, name) = place(rng);
    let mut repo = base_repo(rng, &owner, &name);
    let k = rng.range(3, 6) as usize;
    let first = first_number(rng);
    repo.issues = issues(rng, first, k, &[]);
    let number = first + rng.below(k as u64);
    let comment = match rng.below(3) {
        0 => format!(
            "Fixed in release 1.{}.{}; closing.",
            rng.range(2, 9),
            rng.range(0, 9)
        ),
        1 => format!(
            "Cannot reproduce on version 2.{}, closing for now.",
            rng.range(0, 9)
        ),
        _ => format!(
            "Shipped in build {}. Thanks for the report!",
            rng.range(1200, 1999)
        ),
    };
    Draft {
        goal: format!(
            "Close issue #{number} in {owner}/{name}. Before closing it, add this comment to it: \"{comment}\""
        ),
        max_steps: 5,
        seed: Seed {
            repos: vec![repo],
            ..Seed::default()
        },
        tools: Github::tools(&[
            "add_issue_comment",
            "update_issue",
            "get_issue",
            "list_issues",
            "get_issue_comments",
            "search_issues",
        ]),
        predicate: Pred::All(vec![
            atom(Atom::IssueState {
                owner: owner.clone(),
                repo: name.clone(),
                number,
                state: State::Closed,
            }),
            atom(Atom::IssueCommentContains {
                owner: owner.clone(),
                repo: name.clone(),
                number,
                text: comment.clone(),
            }),
        ]),
        references: vec![vec![
            call::<Github>(
                "add_issue_comment",
                json!({ "owner": owner, "repo": name, "issue_number": number, "body": comment }),
            ),
            call::<Github>(
                "update_issue",
                json!({ "owner": owner, "repo": name, "issue_number": number, "state": "closed" }),
            ),
        ]],
        faults: vec![],
        params: params(&[
            ("repo", json!(format!("{owner}/{name}"))),
            ("number", json!(number)),
        ]),
    }
}

pub(crate) fn label_issue(rng: &mut Rng) -> Draft<Github> {
    let (owner, name) = place(rng);
    let mut repo = base_repo(rng, &owner, &name);
    let k = rng.range(4, 7) as usize;
    let first = first_number(rng);
    let mut list: Vec<IssueSeed> = issues(rng, first, k, &[]);
    let at = rng.below(k as u64) as usize;
    if list[at].labels.is_empty() {
        list[at].labels.push("question".into());
    }
    let target = list[at].clone();
    repo.issues = list;
    let new = rng
        .pick(&["bug", "needs-triage", "priority-high", "regression"])
        .to_string();
    let mut labels = target.labels.clone();
    labels.push(new.clone());
    let mut checks: Vec<Pred<Atom>> = labels
        .iter()
        .map(|l| {
            atom(Atom::IssueHasLabel {
                owner: owner.clone(),
                repo: name.clone(),
                number: target.number,
                label: l.clone(),
            })
        })
        .collect();
    checks.push(atom(Atom::IssueState {
        owner: owner.clone(),
        repo: name.clone(),
        number: target.number,
        state: State::Open,
    }));
    Draft {
        goal: format!(
            "In {owner}/{name}, the open issue titled \"{}\" should also carry the label {new}. Add that label and keep the labels it already has.",
            target.title
        ),
        max_steps: 5,
        seed: Seed {
            repos: vec![repo],
            ..Seed::default()
        },
        tools: Github::tools(&[
            "list_issues",
            "search_issues",
            "get_issue",
            "update_issue",
            "create_issue",
        ]),
        predicate: Pred::All(checks),
        references: vec![vec![
            // By its title: the repository's history may list it past the first page.
            call::<Github>(
                "search_issues",
                json!({ "q": format!("repo:{owner}/{name} is:issue is:open \"{}\"", target.title) }),
            ),
            call::<Github>(
                "update_issue",
                json!({ "owner": owner, "repo": name, "issue_number": target.number, "labels": labels }),
            ),
        ]],
        faults: vec![],
        params: params(&[
            ("repo", json!(format!("{owner}/{name}"))),
            ("number", json!(target.number)),
            ("label", json!(new)),
        ]),
    }
}

pub(crate) fn branch_commit_pr(rng: &mut Rng) -> Draft<Github> {
    let (owner, name) = place(rng);
    let repo = base_repo(rng, &owner, &name);
    let (slug, feature) = *rng.pick(FEATURES);
    let branch = format!("docs/{slug}");
    let path = format!("docs/design/{slug}.md");
    let weeks = rng.range(2, 6);
    let content = format!(
        "# {feature}\n\nGoal: {}.\nEstimate: {weeks} weeks.",
        feature.to_lowercase()
    );
    let message = format!("Add design notes for {slug}");
    let title = format!("Design notes: {feature}");
    let main = "main";
    let step2 = |files: bool| {
        if files {
            call::<Github>(
                "push_files",
                json!({ "owner": owner, "repo": name, "branch": branch, "files": [{ "path": path, "content": content }], "message": message }),
            )
        } else {
            call::<Github>(
                "create_or_update_file",
                json!({ "owner": owner, "repo": name, "path": path, "content": content, "message": message, "branch": branch }),
            )
        }
    };
    let create = call::<Github>(
        "create_branch",
        json!({ "owner": owner, "repo": name, "branch": branch, "from_branch": main }),
    );
    let pr = call::<Github>(
        "create_pull_request",
        json!({ "owner": owner, "repo": name, "title": title, "head": branch, "base": main }),
    );
    Draft {
        goal: format!(
            "In {owner}/{name}, create a branch {branch} from main, commit a new file {path} on it with the commit message \"{message}\", then open a pull request from {branch} into main titled \"{title}\". The file must contain exactly these lines:\n{content}"
        ),
        max_steps: 6,
        seed: Seed {
            repos: vec![repo],
            ..Seed::default()
        },
        tools: Github::tools(&[
            "create_branch",
            "create_or_update_file",
            "push_files",
            "create_pull_request",
            "list_branches",
            "get_file_contents",
            "merge_pull_request",
        ]),
        predicate: Pred::All(vec![
            file_is(&owner, &name, &branch, &path, &content),
            commit_exists(&owner, &name, &branch, &message),
            atom(Atom::PrExists {
                owner: owner.clone(),
                repo: name.clone(),
                head: branch.clone(),
                base: main.into(),
                title: Some(title.clone()),
                body: None,
                state: Some(PrState::Open),
                method: None,
            }),
            not(file_exists(&owner, &name, main, &path)),
        ]),
        references: vec![
            vec![create.clone(), step2(false), pr.clone()],
            vec![create, step2(true), pr],
        ],
        faults: vec![],
        params: params(&[
            ("repo", json!(format!("{owner}/{name}"))),
            ("slug", json!(slug)),
            ("weeks", json!(weeks)),
        ]),
    }
}

pub(crate) fn merge_mergeable(rng: &mut Rng) -> Draft<Github> {
    let (owner, name) = place(rng);
    let mut repo = base_repo(rng, &owner, &name);
    let first = first_number(rng);
    let first_issue = rng.range(1, 3) as u64;
    repo.issues = issues(rng, first, first_issue as usize, &[]);
    let count = rng.range(3, 4) as usize;
    let features = rng.sample(FEATURES, count);
    let clean = rng.below(count as u64) as usize;
    let mut numbers: Vec<u64> = (0..count as u64).map(|i| first + first_issue + i).collect();
    rng.shuffle(&mut numbers);
    for (i, (slug, title)) in features.iter().enumerate() {
        let branch = format!("feature/{slug}");
        let module = slug.replace('-', "_");
        let mut c = if i == clean {
            CommitSeed::new(
                &branch,
                &format!("Add {module} module"),
                &[(
                    &format!("src/{module}.py"),
                    &format!("def {module}():\n    return True\n"),
                )],
            )
        } else {
            let config = format!(
                "port: {}\nworkers: 4\nlog_level: info\n# tuned for {slug}\n",
                8100 + i
            );
            CommitSeed::new(
                &branch,
                &format!("Tune config for {slug}"),
                &[("config/app.yaml", &config)],
            )
        };
        c.from = Some("main".into());
        c.author = Some(repo.collaborators[i % 3].clone());
        repo.commits.push(c);
        let mut pr = PullSeed::new(numbers[i], title, &branch, "main");
        pr.user = Some(repo.collaborators[i % 3].clone());
        repo.pull_requests.push(pr);
    }
    repo.commits.push(CommitSeed::new(
        "main",
        "Tune production config",
        &[(
            "config/app.yaml",
            "port: 8080\nworkers: 6\nlog_level: warn\n",
        )],
    ));
    let method = *rng.pick(METHODS);
    let target = numbers[clean];
    let mut sorted = numbers.clone();
    sorted.sort_unstable();
    let mut checks = vec![atom(Atom::PrMerged {
        owner: owner.clone(),
        repo: name.clone(),
        number: target,
        method: Some(method),
    })];
    checks.extend(sorted.iter().filter(|n| **n != target).map(|n| {
        atom(Atom::IssueState {
            owner: owner.clone(),
            repo: name.clone(),
            number: *n,
            state: State::Open,
        })
    }));
    let mut steps = vec![call::<Github>(
        "list_pull_requests",
        json!({ "owner": owner, "repo": name }),
    )];
    for n in sorted.iter().rev() {
        steps.push(call::<Github>(
            "get_pull_request",
            json!({ "owner": owner, "repo": name, "pull_number": n }),
        ));
    }
    steps.push(call::<Github>(
        "merge_pull_request",
        json!({ "owner": owner, "repo": name, "pull_number": target, "merge_method": method_name(method) }),
    ));
    Draft {
        goal: format!(
            "Several pull requests are open against main in {owner}/{name}, but only one of them can be merged without conflicts. Merge that one {}, and leave the others open.",
            method_phrase(method)
        ),
        max_steps: (steps.len() + 3) as u32,
        seed: Seed {
            repos: vec![repo],
            ..Seed::default()
        },
        tools: Github::tools(&[
            "list_pull_requests",
            "get_pull_request",
            "merge_pull_request",
            "get_pull_request_files",
            "update_pull_request_branch",
            "update_issue",
        ]),
        predicate: Pred::All(checks),
        references: vec![steps],
        faults: vec![],
        params: params(&[
            ("repo", json!(format!("{owner}/{name}"))),
            ("pulls", json!(count)),
            ("mergeable", json!(target)),
            ("method", json!(method_name(method))),
        ]),
    }
}

pub(crate) fn fix_and_close(rng: &mut Rng) -> Draft<Github> {
    let (owner, name) = place(rng);
    let mut repo = base_repo(rng, &owner, &name);
    let k = rng.range(1, 4) as usize;
    let first = first_number(rng);
    let mut list = issues(rng, first, k, &[]);
    let number = first + rng.below(k as u64 + 1);
    let port = rng.pick(&[8000, 8443, 9000, 9443]);
    for issue in list.iter_mut().filter(|i| i.number >= number) {
        issue.number += 1;
    }
    let mut bug = IssueSeed::new(
        number,
        "Wrong default port in config/app.yaml",
        "",
        &["bug"],
    );
    bug.body =
        format!("config/app.yaml sets port 8080, but the service is deployed behind port {port}.");
    list.push(bug);
    list.sort_by_key(|i| i.number);
    repo.issues = list;
    let path = "config/app.yaml";
    let branch = format!("fix/issue-{number}");
    let content = format!("port: {port}\nworkers: 4\nlog_level: info");
    let message = format!("Set default port to {port}");
    let title = format!("Use port {port} by default");
    let body = format!("Fixes #{number}");
    let method = *rng.pick(METHODS);
    // The pull request the run opens is numbered after the repository's history: the task
    // draws that history itself (a furnished seed keeps it), so the reference knows the number.
    let seed = Seed {
        repos: vec![repo],
        background: Some(Background::draw(rng)),
        ..Seed::default()
    };
    let pr_number = <Github as Simulated>::from_seed(&seed)
        .ok()
        .and_then(|gh| gh.next_number(&owner, &name))
        .expect("templates build valid seeds");
    let commit = |push: bool| {
        if push {
            call::<Github>(
                "push_files",
                json!({ "owner": owner, "repo": name, "branch": branch, "files": [{ "path": path, "content": content }], "message": message }),
            )
        } else {
            call::<Github>(
                "create_or_update_file",
                json!({ "owner": owner, "repo": name, "path": path, "content": content, "message": message, "branch": branch }),
            )
        }
    };
    let steps = |push: bool| {
        vec![
            call::<Github>(
                "create_branch",
                json!({ "owner": owner, "repo": name, "branch": branch, "from_branch": "main" }),
            ),
            commit(push),
            call::<Github>(
                "create_pull_request",
                json!({ "owner": owner, "repo": name, "title": title, "body": body, "head": branch, "base": "main" }),
            ),
            call::<Github>(
                "merge_pull_request",
                json!({ "owner": owner, "repo": name, "pull_number": pr_number, "merge_method": method_name(method) }),
            ),
        ]
    };
    Draft {
        goal: format!(
            "Issue #{number} in {owner}/{name} reports a wrong default port. Fix it through a pull request: create a branch {branch} from main, change {path} on it to exactly the three lines below (commit message \"{message}\"), open a pull request into main titled \"{title}\" whose description is exactly \"{body}\", and merge it {}. Issue #{number} must end up closed.\n{content}",
            method_phrase(method)
        ),
        max_steps: 7,
        seed,
        tools: Github::tools(&[
            "get_issue",
            "create_branch",
            "get_file_contents",
            "create_or_update_file",
            "push_files",
            "create_pull_request",
            "merge_pull_request",
            "update_issue",
            "list_pull_requests",
        ]),
        predicate: Pred::All(vec![
            file_is(&owner, &name, "main", path, &content),
            commit_exists(&owner, &name, &branch, &message),
            atom(Atom::PrExists {
                owner: owner.clone(),
                repo: name.clone(),
                head: branch.clone(),
                base: "main".into(),
                title: Some(title.clone()),
                body: Some(body.clone()),
                state: Some(PrState::Merged),
                method: Some(method),
            }),
            atom(Atom::IssueState {
                owner: owner.clone(),
                repo: name.clone(),
                number,
                state: State::Closed,
            }),
        ]),
        references: vec![steps(false), steps(true)],
        faults: vec![],
        params: params(&[
            ("repo", json!(format!("{owner}/{name}"))),
            ("issue", json!(number)),
            ("port", json!(port)),
            ("method", json!(method_name(method))),
        ]),
    }
}
