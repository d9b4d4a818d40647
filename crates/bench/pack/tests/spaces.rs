//! Room for many months. Two public months generated from different seeds should share fewer than
//! 0.1% of their goals word for word; with `u` uses of a template in a month and a chance `p`
//! that two of its draws write the same goal, two months are expected to share
//! `sum(u * u * p)` goals. This test estimates `p` for every template from fresh draws and `u`
//! from a generated set of 200, and holds the sum under [`MAX_SHARED`], the target of 0.2
//! (0.1% of 200). (The months a deployment generates keep apart from every goal in clear or
//! sealed in another month, so they share none; this measures the generator alone.)
//!
//! `SPACES_REPORT=1` prints the table (template, uses, distinct goals among the draws, pairwise
//! collision chance, expected shared goals, shortest reference, heuristic agent's passes),
//! worst first;
//! `SPACES_ONLY=<id prefix>[,...]` narrows the report to some templates.

use mcpbench_pack::{generate_public, public_templates};
use mcpbench_sim::Rng;
use mcpbench_tasks::{Task, heuristic_passes};
use std::collections::{BTreeMap, HashMap};

/// The bound on the goals two generated months of 200 are expected to share: 0.1% of 200.
const MAX_SHARED: f64 = 0.2;

/// Draws per family: enough to see a space of a couple of thousand goals repeat (a family
/// draws slower than a template in Rust did, which took 300).
const DRAWS: u64 = 120;

/// Estimated per-template figures.
struct Space {
    id: String,
    uses: usize,
    distinct: usize,
    /// The chance two draws give the same goal.
    p: f64,
    shortest: usize,
    /// Of the first [`PLAYED`] draws, how many the heuristic agent passes (report only).
    heuristic: usize,
}

/// Draws the heuristic agent plays in a report.
const PLAYED: u64 = 20;

fn measure(only: &str, play: bool) -> Vec<Space> {
    let wanted = |id: &str| only.is_empty() || only.split(',').any(|p| id.starts_with(p.trim()));
    let mut uses: BTreeMap<String, usize> = BTreeMap::new();
    // The slots' tasks: an attacked twin repeats its task's goal.
    for t in generate_public(20261101, 200, &[]).expect("a month") {
        if let (Some(template), None) = (t.template, t.attack) {
            *uses.entry(template.id).or_default() += 1;
        }
    }
    (public_templates().iter())
        .filter(|t| wanted(&t.id))
        .map(|t| {
            let mut seen: HashMap<String, u64> = HashMap::new();
            let mut shortest = usize::MAX;
            let mut heuristic = 0;
            for n in 0..DRAWS {
                let body = t.try_build(&mut Rng::new(0x5_9ACE, n)).expect("a draw");
                let calls = body.reference_solutions.iter().map(Vec::len).min();
                shortest = shortest.min(calls.unwrap_or(0));
                if play && n < PLAYED {
                    let task = Task::from_body(format!("s-{n}"), t.servers[0], &t.id, body.clone());
                    heuristic += usize::from(heuristic_passes(&task));
                }
                *seen.entry(body.goal).or_default() += 1;
            }
            let pairs = (DRAWS * (DRAWS - 1) / 2) as f64;
            let equal: u64 = seen.values().map(|c| c * c.saturating_sub(1) / 2).sum();
            Space {
                uses: uses.get(&t.id).copied().unwrap_or(0),
                id: t.id.clone(),
                distinct: seen.len(),
                p: equal as f64 / pairs,
                shortest,
                heuristic,
            }
        })
        .collect()
}

fn shared(s: &Space) -> f64 {
    (s.uses * s.uses) as f64 * s.p
}

#[test]
fn two_months_are_expected_to_share_under_a_tenth_of_a_percent_of_their_goals() {
    let only = std::env::var("SPACES_ONLY").unwrap_or_default();
    let report = std::env::var_os("SPACES_REPORT").is_some();
    let mut spaces = measure(&only, report);
    spaces.sort_by(|a, b| shared(b).total_cmp(&shared(a)).then(a.id.cmp(&b.id)));
    let expected: f64 = spaces.iter().map(shared).sum();
    if report {
        println!(
            "{:<48} {:>4} {:>8} {:>8} {:>7} {:>5} {:>5}",
            "template", "uses", "distinct", "p", "shared", "calls", "heur"
        );
        for s in &spaces {
            println!(
                "{:<48} {:>4} {:>8} {:>8.5} {:>7.3} {:>5} {:>2}/{PLAYED}",
                s.id,
                s.uses,
                s.distinct,
                s.p,
                shared(s),
                s.shortest,
                s.heuristic
            );
        }
        println!("expected goals two months of 200 share: {expected:.2}");
    }
    if only.is_empty() {
        let worst: Vec<String> = spaces
            .iter()
            .take(5)
            .map(|s| format!("{} ({:.2})", s.id, shared(s)))
            .collect();
        assert!(
            expected < MAX_SHARED,
            "two months of 200 would share {expected:.2} goals (at most {MAX_SHARED}); the \
             templates with least room: {worst:?}"
        );
    }
}
