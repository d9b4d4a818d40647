//! A tracker at a real scale: the backlog a generated task gives it, walked page by page.

use mcpbench_server_tracker::{Background, Seed, Tracker, sample_seed};
use mcpbench_sim::{Rng, Server, Simulated};
use serde_json::{Value, json};
use std::collections::BTreeSet;

fn seed(issues: u32) -> Seed {
    Seed {
        background: Some(Background { seed: 11, issues }),
        ..sample_seed(&mut Rng::new(3, 0))
    }
}

fn call(t: &mut Tracker, tool: &str, args: Value) -> Value {
    Server::call(t, tool, &args).expect("the call succeeds")
}

fn ids(page: &Value) -> Vec<String> {
    page["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_backlog_runs_through_the_seeds_own_issues() {
    let own = sample_seed(&mut Rng::new(3, 0));
    let mut t = Tracker::from_seed(&seed(150)).unwrap();
    let first = call(&mut t, "search_issues", json!({}));
    let total = first["total"].as_u64().unwrap() as usize;
    assert_eq!(total, own.issues.len() + 150);
    // Walk every page: each issue once, the seed's own among them, unchanged.
    let mut seen = ids(&first);
    let mut cursor = first["pageInfo"]["endCursor"].clone();
    while let Some(c) = cursor.as_str() {
        let page = call(&mut t, "search_issues", json!({ "after": c }));
        seen.extend(ids(&page));
        cursor = page["pageInfo"]["endCursor"].clone();
    }
    assert_eq!(seen.iter().collect::<BTreeSet<_>>().len(), total);
    for issue in &own.issues {
        let got = call(&mut t, "get_issue", json!({ "id": issue.id }));
        assert_eq!(got["title"], issue.title.as_str(), "{}", issue.id);
    }
    // Some of the backlog is numbered below the seed's own issues: no range marks either.
    let lowest_own = own
        .issues
        .iter()
        .map(|i| i.id.rsplit_once('-').unwrap().1.parse::<u32>().unwrap())
        .min()
        .unwrap();
    let below = seen
        .iter()
        .filter(|id| !own.issues.iter().any(|i| &&i.id == id))
        .filter(|id| id.rsplit_once('-').unwrap().1.parse::<u32>().unwrap() < lowest_own)
        .count();
    assert!(below > 0 || lowest_own == 1, "lowest own {lowest_own}");
    // The same background, the same tracker.
    assert_eq!(
        Simulated::snapshot(&Tracker::from_seed(&seed(150)).unwrap()),
        Simulated::snapshot(&t)
    );
}

#[test]
fn the_backlog_brings_people_and_labels_no_seed_has() {
    let own = sample_seed(&mut Rng::new(3, 0));
    let mut t = Tracker::from_seed(&seed(150)).unwrap();
    let users = call(&mut t, "list_users", json!({})).to_string();
    for u in &own.users {
        assert!(users.contains(&u.username), "{users}");
    }
    let labels = call(&mut t, "list_labels", json!({})).to_string();
    assert!(labels.contains("chore"), "{labels}");
}

#[test]
fn a_backlog_larger_than_a_tracker_is_refused() {
    let err = Tracker::from_seed(&seed(1001)).unwrap_err();
    assert!(err.to_string().contains("1000"), "{err}");
}
