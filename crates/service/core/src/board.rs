//! The leaderboard of a set as a typed view: its lines ranked by success rate, each with the
//! ranks its interval allows and its tie group, narrowed to one server or category and to the
//! entries that state what a filter asks. The API keeps boards serialized per query and drops
//! them when what the public sees changes; this module only ranks.

use crate::CoreError;
use crate::about::{About, Scaffold, Track, Weights};
use mcpbench_db::leaderboard::{self, Entry};
use mcpbench_db::{AnomalyKind, PgPool, SetState};
use mcpbench_scoring::{
    Conditions, Metrics, ProcessMetrics, RunConditions, Security, Spend, conditions,
};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

/// One ranked line.
#[derive(Debug, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BoardEntry {
    /// 1 for the best; entries with equal success rate and interval share a rank.
    pub rank: usize,
    pub submission_id: Uuid,
    pub vendor: String,
    pub model: String,
    pub name: String,
    /// A reference agent run by us (oracle, null, random, heuristic, script), not a vendor's.
    pub reference: bool,
    /// What the submission says of its model and agent (`null`: not stated).
    pub about: About,
    /// Where the agent ran, and so what could see the tasks.
    pub hosting: Hosting,
    /// `standard`: the vendor's model driven by our own `llm` agent; `open`: the vendor's agent.
    pub track: Track,
    /// Runs attempted (tasks x trials) in this view.
    pub tasks: i64,
    pub passed: i64,
    pub success_rate: f64,
    /// The 95% Wilson interval of the success rate, every run counted as independent.
    pub success_ci95: [f64; 2],
    /// The interval with runs of one template (and trials of one task) counted as related;
    /// absent with fewer than two templates or for entries scored before it existed.
    pub success_ci95_clustered: Option<[f64; 2]>,
    /// The ranks this entry could hold given the intervals (the clustered one, else Wilson's):
    /// from 1 + the entries clearly above it (their lower bound above its upper bound) to
    /// 1 + the entries not clearly below it.
    pub rank_range: [usize; 2],
    /// Entries with the same `tie_group` are statistically tied at the top of their range:
    /// the group is the best rank they could hold.
    pub tie_group: usize,
    /// Tool calls per step budget on passed tasks; lower is better.
    pub efficiency: Option<f64>,
    pub hallucinated_tool_rate: Option<f64>,
    pub recovery_rate: Option<f64>,
    /// Partial credit, call quality, closeness to the references, distractors and failure
    /// groups (docs/metrics.md, section 3); `null` figures for submissions scored before they
    /// existed.
    #[serde(flatten)]
    pub process: ProcessMetrics,
    /// Cost per task (over the `cost_runs` runs whose agent reported one), tokens per task and
    /// the median run time; `null` when unknown, never 0 (docs/metrics.md, "Cost and time").
    #[serde(flatten)]
    pub spend: Spend,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub finished_at: OffsetDateTime,
    /// The kinds of anomaly flag raised on this submission: a reason to look closer, not a
    /// verdict (`task_spike`, which names a task, is never among them).
    pub flags: Vec<AnomalyKind>,
    /// The conditions its runs were measured under; `null` for entries scored before they were
    /// recorded.
    pub conditions: Option<Conditions>,
    /// How its conditions differ from the board's usual ones, one phrase each (empty: measured
    /// as the rest were). An entry is ranked with the others either way; this says how far
    /// the comparison holds.
    pub condition_marks: Vec<String>,
    /// Utility, utility under attack and attack success rate, overall, by kind of attack and
    /// by server (docs/metrics.md, "Agents under attack"): shown beside the rank, never part
    /// of it; `null` when the set holds no task under attack.
    pub security: Option<Security>,
}

/// Where an entry's agent ran, and so what could see the tasks it ran: `sandboxed`, a Docker
/// image run in our sandbox, which saw each task with no way out; `sandboxed-model`, a Docker
/// image run in our sandbox whose one way out was the vendor's model, which could receive
/// every goal it ran; `hosted`, the vendor's own endpoint (or, on the standard track, the
/// vendor's model), which received every goal; `in-service`, a baseline of ours run inside
/// the worker, which nothing outside the service saw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Hosting {
    /// A Docker image run in our sandbox, which saw each task with no way out.
    Sandboxed,
    /// A Docker image run in our sandbox whose one way out was the vendor's model, which could
    /// receive every goal it ran.
    SandboxedModel,
    /// The vendor's own endpoint (or, on the standard track, the vendor's model), which
    /// received every goal.
    Hosted,
    /// One of our reference agents run inside the worker (a baseline): nothing outside the
    /// service saw the tasks.
    InService,
}

impl Hosting {
    pub fn as_str(self) -> &'static str {
        match self {
            Hosting::Sandboxed => "sandboxed",
            Hosting::SandboxedModel => "sandboxed-model",
            Hosting::Hosted => "hosted",
            Hosting::InService => "in-service",
        }
    }
}

/// What a board counts for, from its set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Standing {
    /// The live private month: its tasks are sealed until it retires. The ranking that counts.
    Official,
    /// A month that was official: its final ranking, its tasks revealed since.
    Retired,
    /// A public set: its tasks and reference solutions are published, so an agent may have
    /// learnt them. Ranked for practice, never as the official board.
    Practice,
    /// A private month not live yet: no one has run on it.
    Upcoming,
}

impl Standing {
    /// The standing of a set in `state`: `public` as the set says, `committed` when it has a
    /// checkpoint (a private month from go-live on; it stays committed, and turns public,
    /// once retired and revealed).
    pub fn of(public: bool, committed: bool, state: SetState) -> Self {
        match state {
            SetState::Retired if committed => Standing::Retired,
            _ if public => Standing::Practice,
            SetState::Active => Standing::Official,
            SetState::Draft => Standing::Upcoming,
            // A private set retired without a commitment: not one of the months.
            SetState::Retired => Standing::Practice,
        }
    }

    /// The standing of `set`.
    pub fn of_set(set: &mcpbench_db::sets::SetInfo) -> Self {
        Self::of(set.public, set.checkpoint.is_some(), set.state)
    }
}

/// The live private month among `sets`: the newest, should two be live while the months turn.
pub fn live_month(sets: &[mcpbench_db::sets::SetInfo]) -> Option<&str> {
    sets.iter()
        .filter(|s| Standing::of_set(s) == Standing::Official)
        .map(|s| s.id.as_str())
        .max()
}

/// The set whose board is the official one: the [`live_month`], or `public` where no month is
/// live (a deployment without private months has only its practice board).
pub async fn official_set(pool: &PgPool, public: &str) -> Result<String, CoreError> {
    let sets = mcpbench_db::sets::list(pool, 1_000).await?;
    Ok(live_month(&sets).unwrap_or(public).to_string())
}

/// The leaderboard of one set, optionally narrowed to one server or one category.
#[derive(Debug, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Board {
    pub set: String,
    /// What the board counts for: `official` (the live private month), `retired`, `practice`
    /// (a public set) or `upcoming`.
    pub standing: Standing,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// The entries shown: those stating these (reference agents are always shown, as
    /// yardsticks), ranked among themselves.
    #[serde(default, skip_serializing_if = "Filter::is_empty")]
    pub filter: Filter,
    /// The conditions most of its entries were measured under (the sandbox: most of those run
    /// in one); `null` when no entry's are known. Entries measured otherwise say how in their
    /// `condition_marks`.
    pub conditions: Option<RunConditions>,
    pub entries: Vec<BoardEntry>,
}

impl Board {
    /// Whether it shows anything a filter chose: an entry beyond the reference agents (which
    /// every filter keeps), or, unfiltered, any entry.
    pub fn worth_keeping(&self) -> bool {
        worth_keeping(&self.filter, self.entries.iter().map(|e| e.reference))
    }
}

/// [`Board::worth_keeping`] on its facts: the filter, and whether each entry is a reference
/// agent (the website's page cache decides by the same rule).
pub fn worth_keeping(filter: &Filter, mut references: impl Iterator<Item = bool>) -> bool {
    if filter.is_empty() {
        references.next().is_some()
    } else {
        references.any(|reference| !reference)
    }
}

/// Which board.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
pub struct Query {
    pub set: String,
    pub server: Option<String>,
    pub category: Option<String>,
    pub filter: Filter,
}

/// Narrows a board to the entries that state these.
#[derive(Clone, Debug, Default, Hash, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Filter {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weights: Option<Weights>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scaffold: Option<Scaffold>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub organisation: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub track: Option<Track>,
}

impl Filter {
    pub fn is_empty(&self) -> bool {
        *self == Filter::default()
    }

    fn keeps(&self, e: &BoardEntry) -> bool {
        let a = &e.about;
        e.reference
            || (self.weights.is_none_or(|w| a.weights == Some(w))
                && self.scaffold.is_none_or(|s| a.scaffold == Some(s))
                && self
                    .organisation
                    .as_ref()
                    .is_none_or(|o| a.organisation.as_ref() == Some(o))
                && self.track.is_none_or(|t| e.track == t))
    }
}

/// The board `q` asks for, ranked from the aggregate table; not found for a set that does not
/// exist (an empty board would say it has no entries yet).
pub async fn ranked(pool: &PgPool, q: &Query) -> Result<Board, CoreError> {
    let Some(set) = mcpbench_db::sets::get(pool, &q.set).await? else {
        return Err(CoreError::NotFound(format!("there is no set {:?}", q.set)));
    };
    let entries = leaderboard::entries(pool, &q.set).await?;
    Ok(rank(q, Standing::of_set(&set), entries))
}

/// The figures of one line: a whole submission's, or one group of its breakdown.
struct Figures {
    tasks: i64,
    passed: i64,
    rate: f64,
    ci: [f64; 2],
    clustered: Option<[f64; 2]>,
    efficiency: Option<f64>,
    hallucinated: Option<f64>,
    recovery: Option<f64>,
    process: ProcessMetrics,
    spend: Spend,
}

impl Figures {
    /// A group of a breakdown (one server's runs, one category's).
    fn of_group(m: &Metrics) -> Self {
        Self {
            tasks: i64::try_from(m.tasks).unwrap_or(i64::MAX),
            passed: i64::try_from(m.passed).unwrap_or(i64::MAX),
            rate: m.success_rate.unwrap_or(0.0),
            ci: m.success_ci95.unwrap_or([0.0, 0.0]),
            clustered: m.success_ci95_clustered,
            efficiency: m.efficiency,
            hallucinated: m.hallucinated_tool_rate,
            recovery: m.recovery_rate,
            process: m.process.clone(),
            spend: m.spend.clone(),
        }
    }

    /// The whole submission, from its row's columns.
    fn overall(entry: &Entry) -> Self {
        Self {
            tasks: i64::from(entry.tasks),
            passed: i64::from(entry.passed),
            rate: entry.success_rate,
            ci: [entry.ci_low, entry.ci_high],
            clustered: entry
                .ci_clustered_low
                .zip(entry.ci_clustered_high)
                .map(|(l, h)| [l, h]),
            efficiency: entry.efficiency,
            hallucinated: entry.hallucinated_tool_rate,
            recovery: entry.recovery_rate,
            process: entry.process.get().cloned().unwrap_or_default(),
            spend: entry.spend.get().cloned().unwrap_or_default(),
        }
    }
}

/// The line of `entry` on the board `q` asks for; `None` when its breakdown has no such group.
fn group(entry: &Entry, q: &Query) -> Option<BoardEntry> {
    let f = match (&q.server, &q.category) {
        (Some(server), _) => Figures::of_group(entry.by_server.get()?.get(server)?),
        (None, Some(category)) => Figures::of_group(entry.by_category.get()?.get(category)?),
        (None, None) => Figures::overall(entry),
    };
    Some(BoardEntry {
        rank: 0,
        submission_id: entry.submission_id,
        vendor: entry.vendor.clone(),
        model: entry.model.clone(),
        name: entry.name.clone(),
        reference: entry.is_reference,
        about: About::stored(&entry.about()),
        hosting: match (entry.kind, entry.calls_model) {
            (mcpbench_db::AgentKind::Docker, false) => Hosting::Sandboxed,
            (mcpbench_db::AgentKind::Docker, true) => Hosting::SandboxedModel,
            (mcpbench_db::AgentKind::Endpoint | mcpbench_db::AgentKind::Model, _) => {
                Hosting::Hosted
            }
            (mcpbench_db::AgentKind::Baseline, _) => Hosting::InService,
        },
        track: Track::of(entry.kind),
        tasks: f.tasks,
        passed: f.passed,
        success_rate: f.rate,
        success_ci95: f.ci,
        success_ci95_clustered: f.clustered,
        rank_range: [0, 0],
        tie_group: 0,
        efficiency: f.efficiency,
        hallucinated_tool_rate: f.hallucinated,
        recovery_rate: f.recovery,
        process: f.process,
        spend: f.spend,
        finished_at: entry.finished_at,
        // The table's CHECK lists the kinds: none is passed over.
        flags: (entry.flags.iter())
            .filter_map(|f| AnomalyKind::parse(f))
            .collect(),
        conditions: entry.conditions.as_ref().and_then(|c| c.get().cloned()),
        condition_marks: Vec::new(),
        security: entry.security.as_ref().and_then(|s| s.get().cloned()),
    })
}

/// Ranks by success rate, then the interval's lower bound, then the earlier finish.
fn rank(q: &Query, standing: Standing, entries: Vec<Entry>) -> Board {
    let mut lines: Vec<BoardEntry> = entries
        .iter()
        .filter_map(|e| group(e, q))
        .filter(|e| q.filter.keeps(e))
        .collect();
    lines.sort_by(|a, b| {
        b.success_rate
            .total_cmp(&a.success_rate)
            .then(b.success_ci95[0].total_cmp(&a.success_ci95[0]))
            .then(a.finished_at.cmp(&b.finished_at))
    });
    let mut previous: Option<(f64, f64)> = None;
    for i in 0..lines.len() {
        let key = (lines[i].success_rate, lines[i].success_ci95[0]);
        lines[i].rank = match previous {
            Some(p) if p == key => lines[i - 1].rank,
            _ => i + 1,
        };
        previous = Some(key);
    }
    rank_ranges(&mut lines);
    let usual = mark_conditions(&mut lines);
    Board {
        set: q.set.clone(),
        standing,
        server: q.server.clone(),
        category: q.category.clone(),
        filter: q.filter.clone(),
        conditions: usual,
        entries: lines,
    }
}

/// Marks each line measured under other conditions than most of the board's, and gives those
/// usual conditions. Lines without recorded conditions are marked so once any line has them.
fn mark_conditions(lines: &mut [BoardEntry]) -> Option<RunConditions> {
    let usual = conditions::usual(lines.iter().filter_map(|l| l.conditions.as_ref()))?;
    for line in lines.iter_mut() {
        line.condition_marks = match &line.conditions {
            Some(c) => c.differences(&usual),
            None => vec!["conditions not recorded (scored before they were)".into()],
        };
    }
    Some(usual)
}

/// Each entry's rank range and tie group from the intervals (the clustered one when known).
/// Quadratic in the entries, which are at most [`leaderboard::MAX_ENTRIES`].
fn rank_ranges(lines: &mut [BoardEntry]) {
    let bounds: Vec<[f64; 2]> = lines
        .iter()
        .map(|e| e.success_ci95_clustered.unwrap_or(e.success_ci95))
        .collect();
    for (i, line) in lines.iter_mut().enumerate() {
        let [lo, hi] = bounds[i];
        let others = bounds.iter().enumerate().filter(|(j, _)| *j != i);
        let above = others.clone().filter(|(_, b)| b[0] > hi).count();
        let not_below = others.filter(|(_, b)| b[1] > lo).count();
        line.rank_range = [1 + above, 1 + not_below];
        line.tie_group = 1 + above;
    }
}

/// A line of a board, for tests of what draws one: a hosted agent's, with the success rate and
/// intervals given.
#[doc(hidden)]
pub fn line(rate: f64, ci: [f64; 2], clustered: Option<[f64; 2]>) -> BoardEntry {
    BoardEntry {
        rank: 0,
        submission_id: Uuid::nil(),
        vendor: "v".into(),
        model: "m".into(),
        name: "n".into(),
        reference: false,
        about: About::default(),
        hosting: Hosting::Hosted,
        track: Track::Open,
        tasks: 100,
        passed: (rate * 100.0) as i64,
        success_rate: rate,
        success_ci95: ci,
        success_ci95_clustered: clustered,
        rank_range: [0, 0],
        tie_group: 0,
        efficiency: None,
        hallucinated_tool_rate: None,
        recovery_rate: None,
        process: ProcessMetrics::default(),
        spend: Spend::default(),
        finished_at: OffsetDateTime::UNIX_EPOCH,
        flags: Vec::new(),
        conditions: None,
        condition_marks: Vec::new(),
        security: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filtered_board_of_reference_agents_alone_is_not_kept() {
        let reference = BoardEntry {
            reference: true,
            ..line(0.9, [0.8, 1.0], None)
        };
        let board = |filter: Filter, entries: Vec<BoardEntry>| Board {
            set: "dev".into(),
            standing: Standing::Practice,
            server: None,
            category: None,
            filter,
            conditions: None,
            entries,
        };
        let made_up = Filter {
            organisation: Some("Nobody".into()),
            ..Filter::default()
        };
        assert!(!board(made_up.clone(), vec![]).worth_keeping());
        let only_yardsticks = board(made_up.clone(), vec![reference]);
        assert!(!only_yardsticks.worth_keeping());
        let mut chosen = only_yardsticks;
        chosen.entries.push(line(0.5, [0.4, 0.6], None));
        assert!(chosen.worth_keeping());
        assert!(!board(Filter::default(), vec![]).worth_keeping());
        let reference = BoardEntry {
            reference: true,
            ..line(0.9, [0.8, 1.0], None)
        };
        assert!(board(Filter::default(), vec![reference]).worth_keeping());
    }

    #[test]
    fn only_the_live_private_month_is_official() {
        use SetState::*;
        // A private month: upcoming, official while live, retired (and public) once revealed.
        assert_eq!(Standing::of(false, false, Draft), Standing::Upcoming);
        assert_eq!(Standing::of(false, true, Active), Standing::Official);
        assert_eq!(Standing::of(true, true, Retired), Standing::Retired);
        // A public set, in any state.
        for state in [Draft, Active, Retired] {
            assert_eq!(Standing::of(true, false, state), Standing::Practice);
        }
    }

    #[test]
    fn entries_measured_otherwise_than_most_are_marked_with_how() {
        let measured = |budget: u64| {
            conditions::combine([&RunConditions {
                harness: "mcpbench 0.1.0".into(),
                time_budget_secs: budget,
                max_requests: 2000,
                mcp_offered: vec!["2025-11-25".into()],
                mcp_spoken: vec!["2025-11-25".into()],
                sandbox: None,
            }])
        };
        let mut lines: Vec<BoardEntry> = [measured(120), measured(120), measured(60), None]
            .into_iter()
            .map(|conditions| BoardEntry {
                conditions,
                ..line(0.5, [0.4, 0.6], None)
            })
            .collect();
        let usual = mark_conditions(&mut lines).unwrap();
        assert_eq!(usual.time_budget_secs, 120);
        let marks: Vec<&[String]> = lines.iter().map(|l| &l.condition_marks[..]).collect();
        assert!(marks[0].is_empty() && marks[1].is_empty());
        assert_eq!(marks[2], ["time budget 60 s (usual: 120 s)"]);
        assert_eq!(
            marks[3],
            ["conditions not recorded (scored before they were)"]
        );
        // A board where nothing was recorded has no usual conditions and marks nothing.
        let mut old = vec![line(0.5, [0.4, 0.6], None)];
        assert_eq!(mark_conditions(&mut old), None);
        assert!(old[0].condition_marks.is_empty());
    }

    #[test]
    fn rank_ranges_and_ties_follow_the_intervals() {
        let mut lines = vec![
            // Clearly above everything else.
            line(0.9, [0.85, 0.95], None),
            // These two overlap each other, and nothing else.
            line(0.6, [0.55, 0.65], None),
            line(0.58, [0.53, 0.63], None),
            // By Wilson clearly below the two, but its clustered interval reaches them.
            line(0.45, [0.40, 0.50], Some([0.30, 0.56])),
            line(0.1, [0.05, 0.15], None),
        ];
        rank_ranges(&mut lines);
        let got: Vec<([usize; 2], usize)> =
            lines.iter().map(|l| (l.rank_range, l.tie_group)).collect();
        assert_eq!(
            got,
            [
                ([1, 1], 1),
                ([2, 4], 2),
                ([2, 4], 2),
                ([2, 4], 2),
                ([5, 5], 5),
            ]
        );
    }
}
