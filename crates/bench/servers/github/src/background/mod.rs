//! An account's history beside the task's own: the task's repositories hold a long record of
//! issues and merged pull requests filed by people of their own, and the user has further
//! repositories no task is about. Written in the seed as a seed and two counts and expanded
//! when the account is built, so that reading everything is not free and listings page as
//! GitHub's do.
//!
//! Numbers: GitHub numbers issues and pull requests in one sequence per repository, and the
//! templates name the task's own numbers, which start a few dozen in; the history takes the
//! free numbers from 1 up, below the task's and then after them, so the task's records are
//! neither the repository's oldest nor its newest. What a run creates comes after all of them:
//! a template that names the number of something its run creates draws a background of its
//! own, so it knows that number when it writes its reference.
//! The history changes no branch or commit of the task's repositories (a template may name
//! the sha a branch points at); its pull requests are merged, their branches deleted.

mod pools;

use crate::git;
use crate::seed::{CommitSeed, RepoSeed, State};
use crate::state::{Comment, Github, Issue, MergeMethod, Merged, Pull, Repo, build_repo, issue};
use mcpbench_sim::Rng;
use mcpbench_sim::background::person;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The most background issues and pull requests a seed may ask for.
pub const MAX_ISSUES: u32 = 1_000;
/// The most background repositories a seed may ask for.
pub const MAX_REPOS: u32 = 40;

/// `initial_state.github.background`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Background {
    /// The stream the history is drawn from.
    pub seed: u32,
    /// How many issues and pull requests (about one in five a merged pull request), at most
    /// 1,000, spread over the seed's repositories on the numbers their own leave free.
    #[schemars(range(max = 1000))]
    pub issues: u32,
    /// How many repositories of the user's own besides the seed's, each with a README and a
    /// few commits, at most 40.
    #[schemars(range(max = 40))]
    pub repos: u32,
}

impl Background {
    /// A history of 100 to 220 issues and pull requests and 3 to 8 repositories of the user's.
    pub fn draw(rng: &mut Rng) -> Self {
        Background {
            seed: rng.below(1 << 32) as u32,
            issues: rng.range(100, 220) as u32,
            repos: rng.range(3, 8) as u32,
        }
    }

    /// Refuses a background larger than an account may hold.
    pub(crate) fn check(&self) -> Result<(), String> {
        if self.issues > MAX_ISSUES {
            return Err(format!(
                "a background of {} issues is more than the {MAX_ISSUES} an account's history may hold",
                self.issues
            ));
        }
        if self.repos > MAX_REPOS {
            return Err(format!(
                "a background of {} repositories is more than the {MAX_REPOS} an account's history may hold",
                self.repos
            ));
        }
        Ok(())
    }
}

const METHODS: &[MergeMethod] = &[MergeMethod::Merge, MergeMethod::Squash, MergeMethod::Rebase];

/// Adds the history of `background` to an account built from its seed: first the user's own
/// repositories, then the issues and pull requests, spread over the seed's repositories (over
/// the user's own when the seed has none).
pub(crate) fn expand(background: &Background, gh: &mut Github) -> Result<(), String> {
    background.check()?;
    let mut rng = Rng::new(u64::from(background.seed), 0x6769_7468);
    let targets: Vec<String> = gh.repos.keys().cloned().collect();
    let own = own_repos(&mut rng, gh, background.repos as usize)?;
    let targets = if targets.is_empty() { own } else { targets };
    if targets.is_empty() {
        return Ok(());
    }
    let people: Vec<String> = (0..8)
        .map(|_| {
            let (first, last) = person(&mut rng);
            format!("{first}-{last}").to_lowercase()
        })
        .collect();
    let mut next: BTreeMap<String, u64> = targets.iter().map(|t| (t.clone(), 1)).collect();
    for n in 0..background.issues as usize {
        let full = &targets[n % targets.len()];
        let repo = gh.repos.get_mut(full).expect("a target repository");
        // The lowest number not yet taken: below the task's own, then after them.
        let mut number = next[full];
        while repo.issues.contains_key(&number) {
            number += 1;
        }
        next.insert(full.clone(), number + 1);
        let record = if rng.chance(1, 5) {
            pull_request(&mut rng, repo, number, &people)
        } else {
            plain_issue(&mut rng, number, &people)
        };
        let mut record = with_comments(&mut rng, record, &people);
        for c in &mut record.comments {
            c.id = repo.tick();
        }
        record.updated = repo.tick();
        repo.issues.insert(number, record);
    }
    Ok(())
}

/// The user's own repositories, each a README and a few commits; returns their full names.
fn own_repos(rng: &mut Rng, gh: &mut Github, count: usize) -> Result<Vec<String>, String> {
    let user = gh.user.clone();
    let mut names: Vec<(String, &str)> = pools::REPOS
        .iter()
        .map(|(n, d)| (n.to_string(), *d))
        .chain(pools::REPOS.iter().map(|(n, d)| (format!("{n}-2"), *d)))
        .filter(|(n, _)| !gh.repos.contains_key(&format!("{user}/{n}")))
        .collect();
    rng.shuffle(&mut names);
    let mut made = Vec::new();
    for (name, description) in names.into_iter().take(count) {
        let readme = format!("# {name}\n\n{description}.\n");
        let mut seed = RepoSeed::new(&user, &name, &[("README.md", &readme)]);
        seed.description = description.into();
        seed.private = rng.chance(1, 3);
        let mut notes = String::from("# Notes\n");
        for _ in 0..rng.range(1, 4) {
            notes.push_str(&format!("\n- {}", rng.pick(pools::NOTES)));
            let message = *rng.pick(pools::COMMITS);
            let mut c = CommitSeed::new("main", message, &[("NOTES.md", &format!("{notes}\n"))]);
            c.author = Some(user.clone());
            seed.commits.push(c);
        }
        let repo: Repo = build_repo(&seed)?;
        made.push(repo.full_name());
        gh.repos.insert(repo.full_name(), repo);
    }
    Ok(made)
}

fn labels(rng: &mut Rng) -> Vec<String> {
    let n = rng.below(3) as usize;
    rng.sample(pools::LABELS, n)
        .into_iter()
        .map(String::from)
        .collect()
}

/// An issue: two in three closed, as in a repository with some years behind it.
fn plain_issue(rng: &mut Rng, number: u64, people: &[String]) -> Issue {
    let title = format!(
        "{}{}",
        rng.pick(pools::ISSUE_TITLES),
        rng.pick(pools::AGAIN)
    );
    let (state, reason) = match rng.below(6) {
        0..3 => (State::Closed, Some("completed".to_string())),
        3 => (State::Closed, Some("not_planned".to_string())),
        _ => (State::Open, None),
    };
    let body = *rng.pick(pools::ISSUE_BODIES);
    issue(
        number,
        &title,
        body,
        state,
        reason,
        &labels(rng),
        &[],
        rng.pick(people).clone(),
        vec![],
        None,
    )
}

/// A merged pull request into the default branch whose head branch was deleted after the
/// merge, as GitHub offers to; the merge commit is not on the branch (the task's history
/// stays as its seed wrote it), so it answers as merged without changing any branch.
fn pull_request(rng: &mut Rng, repo: &Repo, number: u64, people: &[String]) -> Issue {
    let (slug, title) = *rng.pick(pools::PULLS);
    let head = format!("{}/{slug}", rng.pick(pools::BRANCH_PREFIXES));
    let base = repo.default_branch.clone();
    let by = rng.pick(people).clone();
    let tip = repo.branches[&base].clone();
    let tree = repo.tree(&tip);
    let paths: Vec<&String> = tree.keys().collect();
    let k = rng.range(1, 2).min(paths.len() as i64) as usize;
    let files = rng
        .sample(&paths, k)
        .into_iter()
        .map(|p| (p.clone(), "modified".to_string()))
        .collect();
    let message = format!("Merge pull request #{number} from {}/{head}", repo.owner);
    let merged = Merged {
        method: *rng.pick(METHODS),
        sha: git::commit_sha(std::slice::from_ref(&tip), &message, &by, tree),
        by,
        files,
    };
    let pull = Pull {
        head,
        base,
        draft: false,
        maintainer_can_modify: true,
        merged: Some(merged),
    };
    issue(
        number,
        title,
        "",
        State::Closed,
        None,
        &labels(rng),
        &[],
        rng.pick(people).clone(),
        vec![],
        Some(pull),
    )
}

/// Up to two comments by the background's people, on one record in three.
fn with_comments(rng: &mut Rng, mut record: Issue, people: &[String]) -> Issue {
    if rng.chance(1, 3) {
        for _ in 0..rng.range(1, 2) {
            record.comments.push(Comment {
                id: 0,
                user: rng.pick(people).clone(),
                body: rng.pick(pools::REMARKS).to_string(),
            });
        }
    }
    record
}

#[cfg(test)]
mod tests {
    use super::pools;
    use crate::fixtures::{LABELS, ORGS, PEOPLE, REPOS, TOPICS};

    #[test]
    fn no_background_repository_is_found_by_a_templates_repository_name() {
        for (name, description) in pools::REPOS {
            let hay = format!("{name} {description}").to_lowercase();
            for word in REPOS.iter().map(|(n, _)| *n).chain(ORGS.iter().copied()) {
                assert!(!hay.contains(word), "{name} holds {word}");
            }
        }
    }

    #[test]
    fn background_titles_and_labels_are_no_templates() {
        for title in pools::ISSUE_TITLES
            .iter()
            .chain(pools::PULLS.iter().map(|(_, t)| t))
        {
            assert!(!TOPICS.iter().any(|(t, _)| t == title), "{title}");
        }
        for label in pools::LABELS {
            assert!(!LABELS.contains(label) && *label != "bug", "{label}");
        }
        for login in PEOPLE {
            assert!(!pools::REPOS.iter().any(|(n, _)| n.contains(login)));
        }
    }
}
