//! An account at a real scale: the history a generated task gives it, walked page by page.

use mcpbench_server_github::{Background, Github, Seed, sample_seed};
use mcpbench_sim::{Rng, Server, Simulated};
use serde_json::{Value, json};
use std::collections::BTreeSet;

fn own() -> Seed {
    sample_seed(&mut Rng::new(3, 0))
}

fn seed(issues: u32, repos: u32) -> Seed {
    Seed {
        background: Some(Background {
            seed: 11,
            issues,
            repos,
        }),
        ..own()
    }
}

fn call(gh: &mut Github, tool: &str, args: Value) -> Value {
    Server::call(gh, tool, &args).expect("the call succeeds")
}

/// Every page of a listing that answers with an array, `args` plus `page`, 30 a page.
fn walk(gh: &mut Github, tool: &str, args: Value) -> Vec<Vec<Value>> {
    let mut pages = Vec::new();
    for page in 1.. {
        let mut a = args.clone();
        a["page"] = json!(page);
        let got = call(gh, tool, a);
        let items = got.as_array().expect("a list").clone();
        if items.is_empty() {
            break;
        }
        pages.push(items);
    }
    pages
}

fn numbers(items: &[Value]) -> Vec<u64> {
    items
        .iter()
        .map(|i| i["number"].as_u64().unwrap())
        .collect()
}

#[test]
fn the_history_takes_the_numbers_around_the_seeds_own_and_leaves_them_as_they_are() {
    let own = own();
    let repo = &own.repos[0];
    let (owner, name) = (repo.owner.as_str(), repo.name.as_str());
    let mut gh = Github::from_seed(&seed(150, 5)).unwrap();
    let at = json!({ "owner": owner, "repo": name, "state": "all" });
    let issues: Vec<u64> = walk(&mut gh, "list_issues", at.clone())
        .concat()
        .iter()
        .flat_map(|i| numbers(std::slice::from_ref(i)))
        .collect();
    let pulls = numbers(&walk(&mut gh, "list_pull_requests", at).concat());
    // The seed's one repository holds the whole history, one number each, in one sequence.
    let all: BTreeSet<u64> = issues.iter().chain(&pulls).copied().collect();
    assert_eq!(all.len(), issues.len() + pulls.len());
    assert_eq!(all.len(), repo.issues.len() + 150);
    assert_eq!(all.last(), Some(&(repo.issues.len() as u64 + 150)));
    // No gaps, and the seed's records are neither the oldest nor the newest.
    assert!(all.iter().copied().eq(1..=all.len() as u64));
    let own_numbers: Vec<u64> = repo.issues.iter().map(|i| i.number).collect();
    assert!(own_numbers.iter().all(|n| *n > 10), "{own_numbers:?}");
    assert!(own_numbers.iter().all(|n| *n < all.len() as u64 - 10));
    assert!(pulls.len() > 10, "{} merged pull requests", pulls.len());
    for i in &repo.issues {
        let got = call(
            &mut gh,
            "get_issue",
            json!({ "owner": owner, "repo": name, "issue_number": i.number }),
        );
        assert_eq!(got["title"], i.title.as_str(), "#{}", i.number);
        assert_eq!(got["user"], owner, "#{}", i.number);
    }
    // What a run creates comes after the history.
    let new = call(
        &mut gh,
        "create_issue",
        json!({ "owner": owner, "repo": name, "title": "A new one" }),
    );
    assert_eq!(new["number"], json!(repo.issues.len() as u64 + 151));
    // The same background, the same account; another seed, another history.
    assert_eq!(
        Simulated::snapshot(&Github::from_seed(&seed(150, 5)).unwrap()),
        Simulated::snapshot(&Github::from_seed(&seed(150, 5)).unwrap())
    );
    let other = Seed {
        background: Some(Background {
            seed: 12,
            issues: 150,
            repos: 5,
        }),
        ..own.clone()
    };
    assert_ne!(
        Simulated::snapshot(&Github::from_seed(&other).unwrap()),
        Simulated::snapshot(&Github::from_seed(&seed(150, 5)).unwrap())
    );
}

#[test]
fn the_history_opens_no_pull_request_and_moves_no_branch() {
    let own = own();
    let repo = &own.repos[0];
    let at = json!({ "owner": repo.owner, "repo": repo.name });
    let mut bare = Github::from_seed(&own).unwrap();
    let mut gh = Github::from_seed(&seed(200, 3)).unwrap();
    for tool in ["list_branches", "list_commits", "list_pull_requests"] {
        assert_eq!(
            call(&mut gh, tool, at.clone()),
            call(&mut bare, tool, at.clone()),
            "{tool}"
        );
    }
    // Its pull requests are merged, and read as such.
    let mut closed = at.clone();
    closed["state"] = json!("closed");
    let listed = call(&mut gh, "list_pull_requests", closed);
    let first = &listed[0];
    assert_eq!(first["merged"], true, "{first}");
    let mut one = at.clone();
    one["pull_number"] = first["number"].clone();
    let pr = call(&mut gh, "get_pull_request", one.clone());
    assert_eq!(pr["state"], "closed");
    assert!(
        pr["merge_commit_sha"]
            .as_str()
            .is_some_and(|s| s.len() == 40)
    );
    let files = call(&mut gh, "get_pull_request_files", one);
    assert!(!files.as_array().unwrap().is_empty(), "{files}");
}

#[test]
fn the_user_has_repositories_of_their_own() {
    let mut gh = Github::from_seed(&seed(120, 6)).unwrap();
    let found = call(
        &mut gh,
        "search_repositories",
        json!({ "query": "user:octocat" }),
    );
    assert_eq!(found["total_count"], 6, "{found}");
    for r in found["items"].as_array().unwrap() {
        let at = json!({ "owner": "octocat", "repo": r["name"] });
        let mut readme = at.clone();
        readme["path"] = json!("README.md");
        let got = call(&mut gh, "get_file_contents", readme);
        assert!(got.to_string().contains(r["name"].as_str().unwrap()));
        let commits = call(&mut gh, "list_commits", at);
        assert!(commits.as_array().unwrap().len() >= 2, "{commits}");
    }
}

#[test]
fn the_tasks_open_issues_are_on_a_later_page_and_every_issue_comes_once() {
    let own = own();
    let repo = &own.repos[0];
    let mut gh = Github::from_seed(&seed(220, 3)).unwrap();
    let pages = walk(
        &mut gh,
        "list_issues",
        json!({ "owner": repo.owner, "repo": repo.name }),
    );
    assert!(pages.len() >= 2, "{} pages", pages.len());
    assert!(pages.iter().all(|p| p.len() <= 30));
    let first: BTreeSet<u64> = numbers(&pages[0]).into_iter().collect();
    let seen = numbers(&pages.concat());
    assert_eq!(seen.iter().collect::<BTreeSet<_>>().len(), seen.len());
    for i in &repo.issues {
        assert!(!first.contains(&i.number), "#{} on page 1", i.number);
        assert!(seen.contains(&i.number), "#{} on no page", i.number);
    }
    // A filter finds it at once.
    let title = &repo.issues[0].title;
    let hit = call(
        &mut gh,
        "search_issues",
        json!({ "q": format!("repo:{}/{} is:open \"{title}\"", repo.owner, repo.name) }),
    );
    assert_eq!(hit["total_count"], 1, "{hit}");
}

#[test]
fn without_a_background_the_listings_hold_the_seed_alone() {
    let own = own();
    let repo = &own.repos[0];
    let mut gh = Github::from_seed(&own).unwrap();
    let listed = call(
        &mut gh,
        "list_issues",
        json!({ "owner": repo.owner, "repo": repo.name, "state": "all", "direction": "asc" }),
    );
    let want: Vec<u64> = repo.issues.iter().map(|i| i.number).collect();
    assert_eq!(numbers(listed.as_array().unwrap()), want);
    let found = call(
        &mut gh,
        "search_repositories",
        json!({ "query": "user:octocat" }),
    );
    assert_eq!(found["total_count"], 0, "{found}");
}

#[test]
fn a_background_larger_than_an_account_is_refused() {
    // The largest history leaves the run room to work.
    let mut gh = Github::from_seed(&seed(1000, 40)).unwrap();
    let repo = &own().repos[0];
    let at = json!({ "owner": repo.owner, "repo": repo.name, "title": "Room left" });
    assert_eq!(call(&mut gh, "create_issue", at)["title"], "Room left");
    let err = Github::from_seed(&seed(1001, 3)).unwrap_err().to_string();
    assert!(err.contains("1001 issues") && err.contains("1000"), "{err}");
    let err = Github::from_seed(&seed(100, 41)).unwrap_err().to_string();
    assert!(
        err.contains("41 repositories") && err.contains("40"),
        "{err}"
    );
}

#[test]
fn no_template_names_a_background_title_person_label_or_repository() {
    let mut gh = Github::from_seed(&seed(400, 40)).unwrap();
    let mut words = BTreeSet::new();
    let mut labels = BTreeSet::new();
    for page in 1..=20 {
        let got = call(
            &mut gh,
            "search_issues",
            json!({ "q": "is:closed", "per_page": 100, "page": page }),
        );
        for i in got["items"].as_array().unwrap() {
            let title = i["title"].as_str().unwrap();
            words.insert(title.split(" (").next().unwrap().to_string());
            words.insert(i["user"].as_str().unwrap().to_string());
            for l in i["labels"].as_array().unwrap() {
                labels.insert(l.as_str().unwrap().to_string());
            }
        }
    }
    let repos = call(
        &mut gh,
        "search_repositories",
        json!({ "query": "user:octocat", "perPage": 100 }),
    );
    for r in repos["items"].as_array().unwrap() {
        words.insert(r["name"].as_str().unwrap().to_string());
    }
    assert!(
        words.len() > 40 && labels.len() >= 4,
        "{words:?} {labels:?}"
    );
    for t in Github::templates() {
        for n in 0..12 {
            let draft = (t.build)(&mut mcpbench_sim::conformance::template_rng(t.id, n));
            let seed = serde_json::to_string(&Seed {
                background: None,
                ..draft.seed.clone()
            })
            .unwrap();
            for w in &words {
                assert!(!draft.goal.contains(w.as_str()), "{}: {w}", t.id);
                assert!(!seed.contains(&format!("\"{w}")), "{}: {w}", t.id);
            }
            for r in &draft.seed.repos {
                for i in &r.issues {
                    assert!(i.labels.iter().all(|l| !labels.contains(l)), "{}", t.id);
                }
            }
        }
    }
}
