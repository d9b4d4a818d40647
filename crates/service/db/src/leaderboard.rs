//! The leaderboard table, written once per finished submission by
//! [`crate::submissions::finish`] and read here.

use crate::{AgentKind, DbError, Stored};
use mcpbench_scoring::{Conditions, Metrics, ProcessMetrics, Security, Spend};
use sqlx::PgPool;
use std::collections::BTreeMap;
use time::OffsetDateTime;
use uuid::Uuid;

/// The metrics of each group of a breakdown (by server, by category), by its name.
pub type Breakdown = BTreeMap<String, Metrics>;

/// One finished submission's row.
#[derive(Clone, Debug)]
pub struct Entry {
    pub submission_id: Uuid,
    pub set_id: String,
    pub vendor: String,
    pub model: String,
    pub name: String,
    pub is_reference: bool,
    pub tasks: i32,
    pub passed: i32,
    pub success_rate: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    /// The interval with related runs counted as such, when known.
    pub ci_clustered_low: Option<f64>,
    pub ci_clustered_high: Option<f64>,
    pub efficiency: Option<f64>,
    pub hallucinated_tool_rate: Option<f64>,
    pub recovery_rate: Option<f64>,
    /// The metrics of each server's and each category's runs.
    pub by_server: Stored<Breakdown>,
    pub by_category: Stored<Breakdown>,
    /// The overall process metrics (a row from before they existed has their defaults).
    pub process: Stored<ProcessMetrics>,
    /// Cost per task and median run time (likewise).
    pub spend: Stored<Spend>,
    /// The conditions its runs were measured under (`None`: not recorded).
    pub conditions: Option<Stored<Conditions>>,
    /// Its security figures (`None`: its set holds no task under attack).
    pub security: Option<Stored<Security>>,
    pub finished_at: OffsetDateTime,
    /// The anomaly flags on this submission (kinds), shown as badges.
    pub flags: Vec<String>,
    /// What the submission says of its model and agent (`None`: not stated).
    pub organisation: Option<String>,
    pub model_version: Option<String>,
    pub weights: Option<String>,
    pub framework: Option<String>,
    pub scaffold: Option<String>,
    /// Who owns it and whether they published its runs (what decides who sees them).
    pub vendor_id: i64,
    pub published: bool,
    /// A hosted endpoint (it received every goal it ran) or a sandboxed image.
    pub kind: AgentKind,
    /// It named a model, which received what it was sent ([`AgentKind::sees_goals`]).
    pub calls_model: bool,
}

impl Entry {
    /// What the submission says of its model and agent.
    pub fn about(&self) -> crate::submissions::About {
        crate::submissions::About {
            organisation: self.organisation.clone(),
            model_version: self.model_version.clone(),
            weights: self.weights.clone(),
            framework: self.framework.clone(),
            scaffold: self.scaffold.clone(),
        }
    }
}

/// The most rows one set's board holds in memory; older entries beyond it are not ranked.
pub const MAX_ENTRIES: i64 = 2000;

/// Every entry of `set`, best overall first.
pub async fn entries(pool: &PgPool, set: &str) -> Result<Vec<Entry>, DbError> {
    let rows = sqlx::query_as!(
        Entry,
        r#"SELECT l.submission_id, l.set_id, l.vendor, l.model, l.name, l.is_reference, l.tasks,
                l.passed, l.success_rate, l.ci_low, l.ci_high, l.ci_clustered_low,
                l.ci_clustered_high, l.efficiency, l.hallucinated_tool_rate, l.recovery_rate,
                l.by_server AS "by_server: Stored<Breakdown>",
                l.by_category AS "by_category: Stored<Breakdown>",
                l.process AS "process: Stored<ProcessMetrics>", l.spend AS "spend: Stored<Spend>",
                l.conditions AS "conditions: Stored<Conditions>",
                l.security AS "security: Stored<Security>", l.finished_at,
                ARRAY(SELECT DISTINCT f.kind FROM anomaly_flags f
                      WHERE f.submission_id = l.submission_id ORDER BY f.kind) AS "flags!",
                s.organisation, s.model_version, s.weights, s.framework, s.scaffold,
                s.vendor_id, s.published, s.kind AS "kind: AgentKind",
                (s.model_base_url IS NOT NULL) AS "calls_model!"
         FROM leaderboard l JOIN submissions s ON s.id = l.submission_id
         WHERE l.set_id = $1
         ORDER BY l.success_rate DESC, l.ci_low DESC, l.finished_at LIMIT $2"#,
        set,
        MAX_ENTRIES
    )
    .fetch_all(pool)
    .await?;
    Ok(rows)
}
