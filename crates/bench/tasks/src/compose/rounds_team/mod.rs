//! Long team rounds across two servers, where every write depends on something read first:
//! [`triage`] (tracker + slack) assigns and announces a project's unowned issues of a label,
//! [`mirror`] (github + tracker) copies a repository's open issues of a label into a tracker
//! project.
//!
//! Each is registered twice: as composition, and as recovery, where one call of a write tool
//! in the middle of the work fails once with a transient error and the reference repeats it.
//! This module holds the list and the helpers both share.

mod mirror;
mod triage;

use mcpbench_server_tracker::{Issue, Status};
use mcpbench_sim::{Category, Difficulty, ErrorKind, Fault, Pred, Rng, Step};
use mcpbench_world::{AnyTemplate, Atom, Composed};
use mirror::{mirror, mirror_after_fault};
use triage::{triage, triage_after_fault};

pub(crate) fn templates() -> Vec<AnyTemplate> {
    use Category::{Composition, Recovery};
    type Build = fn(&mut Rng) -> Composed;
    const TRIAGE: [&str; 2] = ["tracker", "slack"];
    const MIRROR: [&str; 2] = ["github", "tracker"];
    #[rustfmt::skip]
    let all: [(&'static str, [&'static str; 2], Category, Build); 4] = [
        ("compose.triage_unowned_to_channel", TRIAGE, Composition, triage),
        ("compose.triage_unowned_to_channel_after_fault", TRIAGE, Recovery, triage_after_fault),
        ("compose.mirror_labelled_to_tracker", MIRROR, Composition, mirror),
        ("compose.mirror_labelled_to_tracker_after_fault", MIRROR, Recovery, mirror_after_fault),
    ];
    all.into_iter()
        .map(|(id, servers, category, build)| {
            AnyTemplate::new(id, servers.to_vec(), category, Difficulty::Hard, build)
        })
        .collect()
}

/// Qualified tool names, separated by white space.
fn tools(names: &str) -> Vec<String> {
    names.split_whitespace().map(String::from).collect()
}

fn tracker(a: mcpbench_server_tracker::Atom) -> Pred<Atom> {
    Pred::Atom(Atom::tracker(a))
}

/// `project` holds exactly `count` issues, or exactly `count` with `title` when given.
fn issue_count(project: &str, title: Option<&str>, count: usize) -> Pred<Atom> {
    tracker(mcpbench_server_tracker::Atom::IssueCount {
        project: project.into(),
        count: count as u32,
        title: title.map(String::from),
    })
}

fn slack(a: mcpbench_server_slack::Atom) -> Pred<Atom> {
    Pred::Atom(Atom::slack(a))
}

/// In a recovery task, one call of one of the two write tools in `writes` (`(qualified tool,
/// what a failed call leaves undone)`), from its 2nd to its `n`-th, fails once with a
/// transient error; the reference repeats that call right after it.
fn transient_fault(
    rng: &mut Rng,
    fault: bool,
    steps: &mut Vec<Step>,
    n: usize,
    writes: [(&str, &str); 2],
) -> Vec<Fault> {
    if !fault {
        return vec![];
    }
    let nth = rng.range(2, n as i64) as u32;
    let (tool, undone) = *rng.pick(&writes);
    let at = (steps.iter().enumerate())
        .filter(|(_, s)| s.as_call().is_some_and(|c| c.tool == tool))
        .nth(nth as usize - 1)
        .map(|(i, _)| i)
        .expect("the reference makes that call");
    steps.insert(at + 1, steps[at].clone());
    use ErrorKind::{RateLimited, Timeout, Unavailable};
    let error = *rng.pick(&[RateLimited, Unavailable, Timeout]);
    let message = match error {
        RateLimited => format!(
            "rate limit exceeded (429): too many requests in a short time; nothing was {undone}, retry in a few seconds"
        ),
        Unavailable => {
            format!("service temporarily unavailable (503); nothing was {undone}, please try again")
        }
        _ => format!(
            "the request timed out after 30 seconds and was rolled back; nothing was {undone}, it is safe to retry"
        ),
    };
    let tool = tool.to_string();
    vec![Fault {
        tool,
        on_call: nth,
        times: 1,
        error,
        message,
        landed: false,
    }]
}

/// The issue number after the highest of `key` in `issues`.
fn next_number(issues: &[Issue], key: &str) -> u32 {
    issues
        .iter()
        .filter_map(|i| i.id.strip_prefix(&format!("{key}-"))?.parse::<u32>().ok())
        .max()
        .map_or(1, |n| n + 1)
}

fn new_issue(id: String, title: &str, status: Status, who: Option<&str>, labels: &[&str]) -> Issue {
    let mut labels: Vec<String> = labels.iter().map(|l| l.to_string()).collect();
    labels.sort();
    labels.dedup();
    Issue {
        id,
        title: title.into(),
        description: String::new(),
        status,
        priority: 0,
        assignee: who.map(String::from),
        labels,
        estimate: None,
        parent: None,
        comments: vec![],
    }
}
