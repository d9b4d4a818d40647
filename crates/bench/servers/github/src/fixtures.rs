//! Realistic repositories built from bounded pools, for this crate's templates and for
//! templates that combine GitHub with other servers.

use crate::seed::{CommitSeed, IssueSeed, RepoSeed, Seed};
use mcpbench_sim::Rng;

pub(crate) const ORGS: &[&str] = &[
    "acme",
    "northwind",
    "globex",
    "initech",
    "hooli",
    "umbrella-labs",
    "wayne-ent",
    "stark-ind",
];
pub(crate) const REPOS: &[(&str, &str)] = &[
    ("api", "Public REST API of the platform"),
    ("web", "Customer-facing web application"),
    ("billing", "Invoices, payments and tax rules"),
    ("docs", "Product documentation site"),
    ("infra", "Deployment and infrastructure code"),
    ("mobile", "iOS and Android app"),
    ("search", "Search indexing and query service"),
    ("scheduler", "Background job scheduler"),
    ("gateway", "Edge gateway and rate limiting"),
    ("notify", "Email and push notification service"),
];
pub(crate) const PEOPLE: &[&str] = &[
    "alice", "bob", "carol", "dmitri", "elena", "farid", "grace", "hiro",
];
pub(crate) const LABELS: &[&str] = &[
    "enhancement",
    "documentation",
    "question",
    "performance",
    "security",
    "ui",
    "good-first-issue",
];
/// Existing issues: (title, body).
pub(crate) const TOPICS: &[(&str, &str)] = &[
    (
        "Login fails after password reset",
        "Users who reset their password cannot log in until they clear cookies.",
    ),
    (
        "Dashboard loads slowly with many projects",
        "With more than 200 projects the dashboard takes over 10 seconds to render.",
    ),
    (
        "Typo in installation guide",
        "The setup guide says instal instead of install in step 2.",
    ),
    (
        "Export to CSV drops the last row",
        "Exporting a report to CSV always omits the final row.",
    ),
    (
        "Dark mode toggle does not persist",
        "The dark mode setting resets after every page reload.",
    ),
    (
        "Crash when uploading an empty file",
        "Uploading a zero-byte file makes the server return 500.",
    ),
    (
        "Add pagination to the audit log",
        "The audit log shows every entry at once; it should page by 50.",
    ),
    (
        "Timezone wrong in weekly email",
        "The weekly summary email shows times in UTC instead of the user's timezone.",
    ),
    (
        "Search ignores accented characters",
        "Searching for cafe with an accent does not find cafe without one.",
    ),
    (
        "Rate limiter blocks health checks",
        "The health endpoint is rate limited and the load balancer marks nodes down.",
    ),
    (
        "Document the retry settings",
        "The retry_count and retry_delay settings are not documented anywhere.",
    ),
    (
        "Memory leak in websocket handler",
        "Memory grows by about 50 MB per hour while clients stay connected.",
    ),
    (
        "Broken link in README",
        "The link to the contributing guide in README.md returns 404.",
    ),
    (
        "Flaky test in payment retries",
        "test_payment_retry fails about one run in ten on CI.",
    ),
    (
        "Invoice totals rounded incorrectly",
        "Invoices with three line items sometimes round the total down by one cent.",
    ),
    (
        "Session expires too early on mobile",
        "Mobile sessions end after 5 minutes instead of 30.",
    ),
];

/// A repository `owner/name` with a few files and a short history on `main`; collaborators
/// come from a pool of people.
pub fn base_repo(rng: &mut Rng, owner: &str, name: &str) -> RepoSeed {
    let description = REPOS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("Internal service", |(_, d)| d);
    let readme = format!("# {name}\n\n{description}.\n");
    let app = format!("def main():\n    print(\"{name} starting\")\n");
    let mut repo = RepoSeed::new(
        owner,
        name,
        &[
            ("README.md", &readme),
            (
                "docs/setup.md",
                "# Setup\n\n1. Install dependencies with make deps.\n2. Start the service with make run.\n",
            ),
            (
                "config/app.yaml",
                "port: 8080\nworkers: 4\nlog_level: info\n",
            ),
            ("src/app.py", &app),
            (
                "CHANGELOG.md",
                "# Changelog\n\n## 1.0.0\n- First release.\n",
            ),
        ],
    );
    repo.description = description.into();
    repo.collaborators = rng
        .sample(PEOPLE, 3)
        .into_iter()
        .map(String::from)
        .collect();
    let minor = rng.range(1, 4);
    let author = repo.collaborators[0].clone();
    let mut release = CommitSeed::new(
        "main",
        &format!("Release 1.{minor}.0"),
        &[(
            "CHANGELOG.md",
            &format!("# Changelog\n\n## 1.{minor}.0\n- Bug fixes.\n\n## 1.0.0\n- First release.\n"),
        )],
    );
    release.author = Some(author);
    repo.commits.push(release);
    repo
}

/// The number a template's own issues start from: a repository's first records are its
/// history's (a background fills the numbers below the task's and goes on after them), so the
/// task's records are neither its oldest nor its newest.
pub(crate) fn first_number(rng: &mut Rng) -> u64 {
    rng.range(12, 48) as u64
}

/// `count` open issues numbered from `first`, with distinct topics and 0-2 labels from the pool.
pub(crate) fn issues(rng: &mut Rng, first: u64, count: usize, avoid: &[&str]) -> Vec<IssueSeed> {
    let topics: Vec<&(&str, &str)> = TOPICS.iter().filter(|(t, _)| !avoid.contains(t)).collect();
    rng.sample(&topics, count)
        .into_iter()
        .enumerate()
        .map(|(k, (title, body))| {
            let n = rng.below(3) as usize;
            let labels: Vec<&str> = rng.sample(LABELS, n);
            IssueSeed::new(first + k as u64, title, body, &labels)
        })
        .collect()
}

/// A repository from the pools with a few open issues.
pub fn sample_repo(rng: &mut Rng) -> RepoSeed {
    let owner = rng.pick(ORGS);
    let (name, _) = rng.pick(REPOS);
    let mut repo = base_repo(rng, owner, name);
    let k = rng.range(2, 5) as usize;
    let first = first_number(rng);
    repo.issues = issues(rng, first, k, &[]);
    repo
}

/// A seed with one sample repository, the user being [`crate::DEFAULT_USER`].
pub fn sample_seed(rng: &mut Rng) -> Seed {
    Seed {
        repos: vec![sample_repo(rng)],
        ..Seed::default()
    }
}
