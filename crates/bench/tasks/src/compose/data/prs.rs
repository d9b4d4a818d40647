//! `compose.open_prs_to_memory` (github + memory): two or three repositories of one owner,
//! named in the goal, get their open pull request count refreshed in the knowledge graph,
//! where each already carries an outdated count. Closed pull requests and plain issues are
//! the near misses when counting; on the graph side the old count must go (the entity keeps
//! exactly one count), its other facts stay, and another repository of the same owner, not
//! named, keeps its own outdated count.

use super::{and_list, call, strings};
use mcpbench_server_github as gh;
use mcpbench_server_memory as mem;
use mcpbench_sim::{Pred, Rng, params};
use mcpbench_world::{Atom, Composed, InitialState};
use serde_json::json;

const OWNERS: &[&str] = &[
    "acme",
    "northwind",
    "globex",
    "initech",
    "hooli",
    "umbrella",
    "stark-labs",
    "wayne-tech",
];
const REPOS: &[&str] = &[
    "api",
    "web",
    "billing",
    "search",
    "gateway",
    "scheduler",
    "mobile",
    "payments",
    "auth",
    "notifications",
    "reporting",
    "inventory",
];
/// (branch slug, pull request title).
const FEATURES: &[(&str, &str)] = &[
    ("dark-mode", "Add dark mode"),
    ("csv-export", "Export reports as CSV"),
    ("retry-backoff", "Retry failed jobs with backoff"),
    ("audit-log", "Record changes in an audit log"),
    ("sso-login", "Sign in with SSO"),
    ("rate-limits", "Per-client rate limits"),
    ("bulk-edit", "Bulk edit of records"),
    ("webhooks", "Outgoing webhooks"),
    ("i18n", "Translate the UI"),
];
const REPO_FACTS: &[&str] = &[
    "Written in Python",
    "Deployed every Tuesday",
    "Owned by the platform team",
    "Uses GitHub Actions for CI",
    "On-call rotation is weekly",
    "Has a staging environment",
];

/// The observation recording a count.
fn count_text(n: usize) -> String {
    format!("Open pull requests: {n}")
}

pub(super) fn open_prs_to_memory(rng: &mut Rng) -> Composed {
    let owner = *rng.pick(OWNERS);
    let k = rng.range(2, 3) as usize;
    let names = rng.sample(REPOS, k + 1);
    let (targets, bystander) = names.split_at(k);
    let mut graph = mem::world::company(rng, 3, 2);
    let mut repos = Vec::new();
    let mut checks = Vec::new();
    let mut reads = Vec::new();
    let mut stale = Vec::new();
    let mut fresh = Vec::new();
    for name in targets {
        let (repo, open) = repository(rng, owner, name);
        let full = repo.full_name();
        repos.push(repo);
        let old = count_text(outdated(rng, open));
        let facts = rng.sample(REPO_FACTS, 2);
        graph.graph.entity(&full, "repository", &facts);
        graph.graph.observe(&full, &old);
        checks.push(observation(&full, &count_text(open)));
        checks.push(observations(&full, facts.len() + 1));
        reads.push(call(
            "github.list_pull_requests",
            json!({ "owner": owner, "repo": name, "state": "open" }),
        ));
        stale.push(json!({ "entityName": full, "observations": [old] }));
        fresh.push(json!({ "entityName": full, "contents": [count_text(open)] }));
    }
    // A repository of the same owner the goal does not name: its count stays as it is.
    let other = format!("{owner}/{}", bystander[0]);
    let other_count = count_text(rng.range(1, 6) as usize);
    graph
        .graph
        .entity(&other, "repository", &[REPO_FACTS[0], other_count.as_str()]);
    checks.push(observation(&other, &other_count));
    checks.push(observations(&other, 2));
    let maintainer = rng.pick(&graph.people).clone();
    let full_names: Vec<String> = repos.iter().map(|r| r.full_name()).collect();
    graph.graph.relate(&maintainer, &full_names[0], "maintains");

    let mut steps = reads;
    steps.push(call("memory.open_nodes", json!({ "names": full_names })));
    steps.push(call(
        "memory.delete_observations",
        json!({ "deletions": stale }),
    ));
    steps.push(call(
        "memory.add_observations",
        json!({ "observations": fresh }),
    ));

    let list = and_list(&full_names);
    let goal = match rng.below(3) {
        0 => format!(
            "The open pull request counts in our knowledge graph are out of date for {list}. Count each repository's open pull requests on GitHub now and replace the old count my memory keeps on it with `Open pull requests: <n>`, so that each keeps exactly one such count and its other notes stay."
        ),
        1 => format!(
            "Please refresh my memory of the GitHub repositories {list}: each has a note `Open pull requests: <n>` from an earlier check. Swap that note for the current number of open pull requests (closed ones and plain issues don't count), leaving everything else I know about them alone."
        ),
        _ => format!(
            "How many pull requests are open right now in {list}? Record the answer in my memory as each repository's `Open pull requests: <n>` note, replacing the stale count that is there today rather than adding a second one. Other repositories stay as they are."
        ),
    };
    Composed {
        max_steps: steps.len() as u32 + 5,
        goal,
        initial_state: InitialState {
            github: Some(gh::Seed {
                repos,
                ..Default::default()
            }),
            memory: Some(graph.graph.seed),
            ..Default::default()
        },
        available_tools: strings(&[
            "github.list_pull_requests",
            "github.get_pull_request",
            "github.list_issues",
            "github.search_issues",
            "memory.add_observations",
            "memory.delete_observations",
            "memory.open_nodes",
            "memory.search_nodes",
            "memory.read_graph",
        ]),
        success_predicate: Pred::All(checks),
        faults: vec![],
        reference_solutions: vec![steps],
        params: params(&[
            ("owner", json!(owner)),
            ("repos", json!(targets)),
            ("bystander", json!(other)),
        ]),
    }
}

/// A repository with 1-5 open pull requests, 1-2 closed ones and 1-2 open issues; returns it
/// with its open count.
fn repository(rng: &mut Rng, owner: &str, name: &str) -> (gh::RepoSeed, usize) {
    let mut repo = gh::base_repo(rng, owner, name);
    let n_issues = rng.range(1, 2) as u64;
    for k in 0..n_issues {
        repo.issues.push(gh::IssueSeed::new(
            k + 1,
            &format!("Follow-up {} from the last release", k + 1),
            "Left over from the release checklist.",
            &[],
        ));
    }
    let open = rng.range(1, 5) as usize;
    let closed = rng.range(1, 2) as usize;
    let features = rng.sample(FEATURES, open + closed);
    for (i, (slug, title)) in features.iter().enumerate() {
        let branch = format!("feature/{slug}");
        let module = slug.replace('-', "_");
        let mut c = gh::CommitSeed::new(
            &branch,
            &format!("Add {module}"),
            &[(
                &format!("src/{module}.py"),
                &format!("def {module}():\n    return True\n"),
            )],
        );
        c.from = Some("main".into());
        repo.commits.push(c);
        let mut pr = gh::PullSeed::new(n_issues + 1 + i as u64, title, &branch, "main");
        pr.user = Some(repo.collaborators[i % repo.collaborators.len()].clone());
        if i >= open {
            pr.state = gh::State::Closed;
        }
        repo.pull_requests.push(pr);
    }
    (repo, open)
}

/// An earlier count, never the current one.
fn outdated(rng: &mut Rng, open: usize) -> usize {
    let earlier = rng.range(1, 6) as usize;
    if earlier == open { open + 2 } else { earlier }
}

fn observation(entity: &str, text: &str) -> Pred<Atom> {
    Pred::Atom(Atom::memory(mem::Atom::HasObservation {
        entity: entity.into(),
        observation: text.into(),
    }))
}

fn observations(entity: &str, count: usize) -> Pred<Atom> {
    Pred::Atom(Atom::memory(mem::Atom::ObservationCount {
        entity: entity.into(),
        count: count as u32,
    }))
}
