//! How alike two goals are: the Jaccard similarity of their lower-cased word 3-shingles. Used
//! to measure a set against another (`tasks stats --against`) and to draw a private month
//! apart from the public goals (`generate_from`'s `avoid`).

use std::collections::BTreeSet;

pub(crate) fn shingles(text: &str) -> BTreeSet<String> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    if words.len() < 3 {
        return std::iter::once(words.join(" ")).collect();
    }
    words.windows(3).map(|w| w.join(" ")).collect()
}

/// Jaccard similarity of the word 3-shingles of two texts (1.0 for the same words in order).
pub fn goal_similarity(a: &str, b: &str) -> f64 {
    jaccard(&shingles(a), &shingles(b))
}

pub(crate) fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

/// Goals prepared for comparison: their word 3-shingles, and the goals themselves.
pub struct GoalIndex {
    goals: BTreeSet<String>,
    shingles: Vec<BTreeSet<String>>,
}

impl GoalIndex {
    pub fn new(goals: &[String]) -> Self {
        Self {
            goals: goals.iter().cloned().collect(),
            shingles: goals.iter().map(|g| shingles(g)).collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.goals.is_empty()
    }

    /// Whether `goal` is one of the goals, or more similar than `max` to one.
    pub fn near(&self, goal: &str, max: f64) -> bool {
        if self.goals.contains(goal) {
            return true;
        }
        if self.shingles.is_empty() {
            return false;
        }
        let mine = shingles(goal);
        self.shingles.iter().any(|s| jaccard(&mine, s) > max)
    }
}

/// The highest similarity (word 3-shingles, 1.0 for the same goal) between a goal of `goals`
/// and one of `others`; 0 when either is empty.
pub fn closest_goal(goals: &[String], others: &[String]) -> f64 {
    let theirs: Vec<BTreeSet<String>> = others.iter().map(|g| shingles(g)).collect();
    goals
        .iter()
        .map(|g| {
            let mine = shingles(g);
            theirs.iter().map(|s| jaccard(&mine, s)).fold(0.0, f64::max)
        })
        .fold(0.0, f64::max)
}
