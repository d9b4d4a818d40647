//! The conditions a score was measured under (docs/metrics.md, "Run conditions"): what the
//! harness let an agent have on each run. Two scores compare only when they were measured under
//! the same conditions; [`Conditions::differences`] says how two sets of conditions differ, in
//! words a board can show beside an entry.
//!
//! Each run records the harness's side ([`RunConditions`]); a submission's [`Conditions`] are
//! its runs' taken together ([`combine`]), naming any condition that was not the same on all
//! of them: a deployment whose settings changed while the submission ran.

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// What the harness gave one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RunConditions {
    /// The build that ran it: `mcpbench <version>` (and the build's own name when it was given
    /// one), which fixes the gateway, the runner and the scoring.
    pub harness: String,
    /// Seconds the agent had for the task.
    pub time_budget_secs: u64,
    /// The most MCP requests one run may make, whatever its task's step budget (each task's
    /// own `max_steps` is part of the set).
    pub max_requests: u32,
    /// The MCP revisions the gateway offered.
    pub mcp_offered: Vec<String>,
    /// The MCP revisions the agent spoke on this run (empty when it never connected).
    #[serde(default)]
    pub mcp_spoken: Vec<String>,
    /// The sandbox an image ran in; `None` for an agent that was not run in our sandbox.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxLimits>,
}

/// The limits of the pod a Docker image ran in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SandboxLimits {
    pub memory_mib: u64,
    pub cpus: f64,
    /// The OCI runtime (`runsc` for gVisor), or `default`: the engine's own (runc).
    pub runtime: String,
    /// Seconds the container had to listen before its first task.
    pub readiness_secs: u64,
}

/// A submission's runs' conditions together: the first run's, the revisions every run spoke,
/// and the names of the conditions that were not the same on every run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Conditions {
    #[serde(flatten)]
    pub runs: RunConditions,
    /// The conditions that changed between the submission's runs (`harness`,
    /// `time_budget_secs`, ...); empty when every run had the same.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub varied: Vec<String>,
}

/// The runs' conditions together; `None` when no run recorded any (runs from before they were
/// recorded).
pub fn combine<'a>(runs: impl IntoIterator<Item = &'a RunConditions>) -> Option<Conditions> {
    let mut runs = runs.into_iter();
    let first = runs.next()?.clone();
    let mut spoken: BTreeSet<String> = first.mcp_spoken.iter().cloned().collect();
    let mut varied = BTreeSet::new();
    for run in runs {
        spoken.extend(run.mcp_spoken.iter().cloned());
        varied.extend(changed(&first, run));
    }
    Some(Conditions {
        runs: RunConditions {
            mcp_spoken: spoken.into_iter().collect(),
            ..first
        },
        varied: varied.into_iter().map(str::to_string).collect(),
    })
}

/// The names of the conditions a harness sets that differ between `a` and `b` (what the agent
/// spoke is its own choice and not among them).
fn changed(a: &RunConditions, b: &RunConditions) -> Vec<&'static str> {
    let mut out = Vec::new();
    if a.harness != b.harness {
        out.push("harness");
    }
    if a.time_budget_secs != b.time_budget_secs {
        out.push("time_budget_secs");
    }
    if a.max_requests != b.max_requests {
        out.push("max_requests");
    }
    if a.mcp_offered != b.mcp_offered {
        out.push("mcp_offered");
    }
    if a.sandbox != b.sandbox {
        out.push("sandbox");
    }
    out
}

/// The conditions most of `all` were measured under: the harness's settings most share, and
/// the sandbox most of those with one share; `None` when none is known. What the agents spoke
/// is left empty: it is theirs, not a condition.
pub fn usual<'a>(all: impl IntoIterator<Item = &'a Conditions> + Clone) -> Option<RunConditions> {
    let harness = most_shared(all.clone().into_iter().map(|c| RunConditions {
        mcp_spoken: Vec::new(),
        sandbox: None,
        ..c.runs.clone()
    }))?;
    let sandbox = most_shared(all.into_iter().filter_map(|c| c.runs.sandbox.clone()));
    Some(RunConditions { sandbox, ..harness })
}

impl Conditions {
    /// How these conditions differ from `usual` (a board's), one phrase each, empty when they
    /// do not: `time budget 60 s (usual: 120 s)`. A sandbox is compared only when both have
    /// one; conditions that varied between this submission's runs are named too.
    pub fn differences(&self, usual: &RunConditions) -> Vec<String> {
        let mine = &self.runs;
        let mut out = Vec::new();
        if mine.harness != usual.harness {
            out.push(format!(
                "harness {} (usual: {})",
                mine.harness, usual.harness
            ));
        }
        if mine.time_budget_secs != usual.time_budget_secs {
            out.push(format!(
                "time budget {} s (usual: {} s)",
                mine.time_budget_secs, usual.time_budget_secs
            ));
        }
        if mine.max_requests != usual.max_requests {
            out.push(format!(
                "at most {} requests a run (usual: {})",
                mine.max_requests, usual.max_requests
            ));
        }
        if mine.mcp_offered != usual.mcp_offered {
            out.push(format!(
                "MCP {} offered (usual: {})",
                mine.mcp_offered.join(", "),
                usual.mcp_offered.join(", ")
            ));
        }
        if let (Some(a), Some(b)) = (&mine.sandbox, &usual.sandbox)
            && a != b
        {
            out.push(format!(
                "sandbox {} (usual: {})",
                a.describe(),
                b.describe()
            ));
        }
        if !self.varied.is_empty() {
            out.push(format!(
                "conditions changed between its runs: {}",
                (self.varied.iter())
                    .map(|name| in_words(name))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        out
    }
}

/// A condition's name (as `varied` keeps it) as a reader of the board says it.
fn in_words(name: &str) -> &str {
    match name {
        "harness" => "the harness",
        "time_budget_secs" => "the time budget",
        "max_requests" => "the request cap",
        "mcp_offered" => "the MCP revisions offered",
        "sandbox" => "the sandbox",
        other => other,
    }
}

impl SandboxLimits {
    /// `512 MiB, 1 CPU, runsc`.
    pub fn describe(&self) -> String {
        format!(
            "{} MiB, {} CPU, {}",
            self.memory_mib, self.cpus, self.runtime
        )
    }
}

/// The value most of `items` share (the first of those seen most, on a tie); `None` when empty.
pub fn most_shared<T: PartialEq + Clone>(items: impl IntoIterator<Item = T>) -> Option<T> {
    let mut counts: Vec<(T, usize)> = Vec::new();
    for item in items {
        match counts.iter_mut().find(|(seen, _)| *seen == item) {
            Some((_, n)) => *n += 1,
            None => counts.push((item, 1)),
        }
    }
    let best = counts.iter().map(|(_, n)| *n).max()?;
    counts.into_iter().find(|(_, n)| *n == best).map(|(t, _)| t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(budget: u64, spoken: &[&str]) -> RunConditions {
        RunConditions {
            harness: "mcpbench 0.1.0".into(),
            time_budget_secs: budget,
            max_requests: 2000,
            mcp_offered: vec!["2025-11-25".into(), "2026-07-28".into()],
            mcp_spoken: spoken.iter().map(|s| s.to_string()).collect(),
            sandbox: None,
        }
    }

    #[test]
    fn runs_under_one_setting_combine_without_a_mark() {
        let runs = [run(120, &["2025-11-25"]), run(120, &["2026-07-28"])];
        let c = combine(&runs).unwrap();
        assert!(c.varied.is_empty());
        // What the agent spoke is gathered over the runs, and is no difference.
        assert_eq!(c.runs.mcp_spoken, ["2025-11-25", "2026-07-28"]);
        assert!(c.differences(&run(120, &[])).is_empty());
        assert_eq!(combine(&[]), None);
    }

    #[test]
    fn a_setting_changed_mid_submission_is_named() {
        let runs = [run(120, &[]), run(60, &[]), run(120, &[])];
        let c = combine(&runs).unwrap();
        assert_eq!(c.varied, ["time_budget_secs"]);
        let marks = c.differences(&run(120, &[]));
        assert_eq!(
            marks,
            ["conditions changed between its runs: the time budget"]
        );
    }

    #[test]
    fn each_difference_says_what_it_was_and_what_is_usual() {
        let usual = run(120, &[]);
        let mut other = run(60, &[]);
        other.harness = "mcpbench 0.2.0".into();
        other.mcp_offered.pop();
        let c = combine([&other]).unwrap();
        assert_eq!(
            c.differences(&usual),
            [
                "harness mcpbench 0.2.0 (usual: mcpbench 0.1.0)",
                "time budget 60 s (usual: 120 s)",
                "MCP 2025-11-25 offered (usual: 2025-11-25, 2026-07-28)",
            ]
        );
        // Sandboxes compare only between images.
        let sandboxed = |memory_mib| SandboxLimits {
            memory_mib,
            cpus: 1.0,
            runtime: "default".into(),
            readiness_secs: 30,
        };
        let mut image = run(120, &[]);
        image.sandbox = Some(sandboxed(256));
        let c = combine([&image]).unwrap();
        assert!(c.differences(&usual).is_empty());
        let mut usual_image = usual.clone();
        usual_image.sandbox = Some(sandboxed(512));
        assert_eq!(
            c.differences(&usual_image),
            ["sandbox 256 MiB, 1 CPU, default (usual: 512 MiB, 1 CPU, default)"]
        );
    }

    #[test]
    fn the_usual_conditions_are_those_most_entries_share() {
        let image = |budget| {
            let mut r = run(budget, &["2025-11-25"]);
            r.sandbox = Some(SandboxLimits {
                memory_mib: 512,
                cpus: 1.0,
                runtime: "default".into(),
                readiness_secs: 30,
            });
            combine([&r]).unwrap()
        };
        let hosted = |budget| combine([&run(budget, &["2026-07-28"])]).unwrap();
        let board = [hosted(120), image(120), hosted(60)];
        let usual = usual(&board).unwrap();
        assert_eq!(usual.time_budget_secs, 120);
        assert!(usual.mcp_spoken.is_empty());
        assert_eq!(usual.sandbox.unwrap().memory_mib, 512);
        assert_eq!(super::usual(&[]), None);
    }

    #[test]
    fn the_most_shared_value_wins_and_the_first_breaks_a_tie() {
        assert_eq!(most_shared([1, 2, 2, 3]), Some(2));
        assert_eq!(most_shared([3, 1, 1, 3]), Some(3));
        assert_eq!(most_shared(Vec::<u8>::new()), None);
    }
}
