//! Submissions: creation (with the quota), the owner's view, cancellation, publication, and
//! finishing (scores and the leaderboard row, exactly once).

mod finish;

pub use finish::{Finished, finish, rescore};

use crate::{AgentKind, DbError, SetState, Stored, SubmissionStatus, queue};
use mcpbench_scoring::Scores;
use sqlx::PgPool;
use time::OffsetDateTime;
use uuid::Uuid;

pub struct NewSubmission<'a> {
    pub vendor_id: i64,
    pub set_id: &'a str,
    pub name: &'a str,
    pub model: &'a str,
    pub agent: Agent<'a>,
    pub signing_secret: &'a [u8],
    pub trials: i32,
    pub max_attempts: i32,
    /// Submissions a vendor may make to a private set per calendar month (UTC); `None`
    /// is unlimited. Public sets are never limited.
    pub monthly_quota: Option<i64>,
    /// Submissions a vendor may have queued or running on one set at once, public sets too;
    /// `None` is unlimited.
    pub max_open: Option<i64>,
    /// Runs the set at this level of extra tools (`0`, `5`, ... or `all`; checked by the
    /// caller); such a submission never enters the leaderboard.
    pub distractors: Option<&'a str>,
    /// What the vendor says of its model and agent (checked by the caller).
    pub about: &'a About,
    /// Where to POST when the submission ends (checked against SSRF by the caller).
    pub webhook_url: Option<&'a str>,
}

/// What a submission says of its model and agent; `None`: not stated.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct About {
    pub organisation: Option<String>,
    pub model_version: Option<String>,
    /// `open` or `closed`.
    pub weights: Option<String>,
    pub framework: Option<String>,
    /// `standard` (the harness's standard agent) or `own` (the vendor's scaffold).
    pub scaffold: Option<String>,
}

/// What a submission runs.
#[derive(Clone, Copy, Debug)]
pub enum Agent<'a> {
    /// An HTTP service the vendor hosts.
    Endpoint(&'a str),
    /// A container image: `image` is an image id (`sha256:...`) or a digest-pinned reference;
    /// `archive` the uploaded `docker save` archive (key in trace storage, SHA-256 of its bytes).
    /// `model`, when named, is the vendor's model the image calls through the worker's relay.
    Docker {
        image: &'a str,
        archive: Option<(&'a str, &'a str)>,
        model: Option<&'a ModelEndpoint>,
    },
    /// The standard track: our `llm` agent driving the vendor's model.
    Model(&'a ModelEndpoint),
    /// One of our reference agents, run inside the worker: `oracle`, `null`, `random`,
    /// `heuristic` or `script` (see [`crate::baselines`]).
    Baseline(&'a str),
}

/// A model to drive: an OpenAI-compatible chat-completions endpoint and the model's name there.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelEndpoint {
    /// The API's base URL (`/chat/completions` is added).
    pub base_url: String,
    pub model_id: String,
    /// The key, sealed ([`model_key_place`]): the keyring key's id and the sealed bytes.
    pub sealed_key: Option<(String, Vec<u8>)>,
    /// US dollars per million tokens in and out.
    pub prices: Option<[f64; 2]>,
}

/// Where a model key is sealed: bound to its vendor and the base URL it is sent to, so a
/// sealed key copied into another vendor's row, or beside another URL, does not open.
pub fn model_key_place(vendor_id: i64, base_url: &str) -> String {
    format!("model-key/{vendor_id}/{base_url}")
}

/// A submission as its owner sees it (never the signing secret).
#[derive(Clone, Debug)]
pub struct Submission {
    pub id: Uuid,
    pub vendor_id: i64,
    /// The owner's name, as the leaderboard shows it.
    pub vendor: String,
    pub set_id: String,
    pub set_public: bool,
    pub name: String,
    pub model: String,
    pub kind: AgentKind,
    pub endpoint_url: Option<String>,
    pub image: Option<String>,
    pub status: SubmissionStatus,
    pub trials: i32,
    pub tasks_total: i32,
    pub tasks_done: i32,
    pub error: Option<String>,
    /// The scores once completed.
    pub scores: Option<Stored<Scores>>,
    pub published: bool,
    pub created_at: OffsetDateTime,
    pub finished_at: Option<OffsetDateTime>,
    /// The level of extra tools it runs at; `None`: the set as published.
    pub distractors: Option<String>,
    pub organisation: Option<String>,
    pub model_version: Option<String>,
    pub weights: Option<String>,
    pub framework: Option<String>,
    pub scaffold: Option<String>,
    /// The model, on the standard track or called by an image: its base URL and name (its key
    /// is never read back).
    pub model_base_url: Option<String>,
    pub model_id: Option<String>,
    /// Whether a key was given (it is sealed, and stays in the database).
    pub model_key_set: bool,
    pub price_input: Option<f64>,
    pub price_output: Option<f64>,
    /// When its vendor withdrew it from the board; it is never ranked again.
    pub withdrawn_at: Option<OffsetDateTime>,
    /// Where it is POSTed when it ends, and how that went (`crate::webhooks`).
    pub webhook_url: Option<String>,
    pub webhook_attempts: i32,
    pub webhook_delivered_at: Option<OffsetDateTime>,
    pub webhook_error: Option<String>,
}

impl Submission {
    /// Its scores, once completed (and when they read as scores).
    pub fn scores(&self) -> Option<&Scores> {
        self.scores.as_ref().and_then(Stored::get)
    }

    /// What it says of its model and agent.
    pub fn about(&self) -> About {
        About {
            organisation: self.organisation.clone(),
            model_version: self.model_version.clone(),
            weights: self.weights.clone(),
            framework: self.framework.clone(),
            scaffold: self.scaffold.clone(),
        }
    }
}

/// Where and how the worker reaches a submission's agent.
#[derive(Clone, Debug)]
pub struct Target {
    pub set_id: String,
    pub kind: AgentKind,
    pub endpoint_url: Option<String>,
    pub image: Option<String>,
    /// The key of the uploaded archive in trace storage, for images that were uploaded.
    pub image_archive: Option<String>,
    /// Whether the submission's set is public (its tasks are no secret).
    pub set_public: bool,
    pub signing_secret: Vec<u8>,
    pub vendor: String,
    /// The level of extra tools the tasks run at; `None`: as published.
    pub distractors: Option<String>,
    pub vendor_id: i64,
    /// The model (of the standard track, or one an image calls): its base URL and name, its
    /// sealed key, its prices.
    pub model_base_url: Option<String>,
    pub model_id: Option<String>,
    pub model_key_id: Option<String>,
    pub model_key: Option<Vec<u8>>,
    pub price_input: Option<f64>,
    pub price_output: Option<f64>,
    /// Which of our reference agents a baseline is (`oracle`, ...); `None` for the rest.
    pub baseline: Option<String>,
}

/// The one rule of which sets take submissions: an active one. `state` is the set's, `None`
/// when there is no set `id`; the refusal says why.
pub fn takes_submissions(id: &str, state: Option<SetState>) -> Result<(), DbError> {
    match state {
        Some(SetState::Active) => Ok(()),
        Some(state) => Err(DbError::Invalid(format!(
            "set {id:?} is {state} and takes no submissions"
        ))),
        None => Err(DbError::Invalid(format!("there is no set {id:?}"))),
    }
}

/// Creates a submission over every task of its set and queues its jobs, atomically.
pub async fn create(pool: &PgPool, s: &NewSubmission<'_>) -> Result<Uuid, DbError> {
    let baseline = match s.agent {
        Agent::Baseline(name) => Some(name),
        _ => None,
    };
    insert(pool, s, baseline).await
}

/// Creates a baseline of ours under its `name` (a reference agent's, or `llm:<model>` for a
/// model on the standard track), which a set holds at most one live submission of: a second
/// is refused by the index `submissions_one_baseline` ([`crate::baselines::is_duplicate`]).
pub async fn create_baseline(
    pool: &PgPool,
    s: &NewSubmission<'_>,
    name: &str,
) -> Result<Uuid, DbError> {
    insert(pool, s, Some(name)).await
}

async fn insert(
    pool: &PgPool,
    s: &NewSubmission<'_>,
    baseline: Option<&str>,
) -> Result<Uuid, DbError> {
    let mut tx = pool.begin().await?;
    let set = sqlx::query!(
        // FOR SHARE: a set cannot retire (which locks it FOR UPDATE) while a submission to it
        // is being made, and a retirement that won the lock is seen here as `retired`.
        r#"SELECT state AS "state: SetState", public FROM task_sets WHERE id = $1 FOR SHARE"#,
        s.set_id
    )
    .fetch_optional(&mut *tx)
    .await?;
    takes_submissions(s.set_id, set.as_ref().map(|set| set.state))?;
    let Some(set) = set else {
        unreachable!("takes_submissions refuses a set that is not there")
    };
    let quota = s.monthly_quota.filter(|_| !set.public);
    if quota.is_some() || s.max_open.is_some() {
        // Serialises this vendor's concurrent submissions so the counts below stay true.
        sqlx::query!(
            "SELECT id FROM vendors WHERE id = $1 FOR UPDATE",
            s.vendor_id
        )
        .fetch_one(&mut *tx)
        .await?;
    }
    if let Some(max) = s.max_open {
        let open = sqlx::query_scalar!(
            r#"SELECT count(*) AS "n!" FROM submissions
               WHERE vendor_id = $1 AND set_id = $2 AND status IN ('queued', 'running')"#,
            s.vendor_id,
            s.set_id
        )
        .fetch_one(&mut *tx)
        .await?;
        if open >= max {
            return Err(DbError::Quota {
                message: format!(
                    "you have {open} submissions to set {:?} queued or running, the most \
                     allowed at once; submit again when one finishes (or cancel one)",
                    s.set_id
                ),
                // A run takes a minute or more: ask again then.
                retry_after_secs: 60,
            });
        }
    }
    if let Some(quota) = quota {
        // A submission that failed on our side before any of its runs was recorded showed its
        // vendor nothing of the set: it does not use the quota.
        let used = sqlx::query_scalar!(
            r#"SELECT count(*) AS "n!" FROM submissions s
               WHERE s.vendor_id = $1 AND s.set_id = $2
                 AND s.created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
                 AND NOT (s.status = 'failed'
                          AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.submission_id = s.id))"#,
            s.vendor_id,
            s.set_id
        )
        .fetch_one(&mut *tx)
        .await?;
        if used >= quota {
            return Err(DbError::Quota {
                message: format!(
                    "you have made {used} submissions to set {:?} this month, the most allowed; \
                     the quota renews on the first of next month (UTC)",
                    s.set_id
                ),
                retry_after_secs: until_next_month(OffsetDateTime::now_utc()),
            });
        }
    }
    let task_ids: Vec<String> = sqlx::query_scalar!(
        "SELECT task_id FROM set_tasks WHERE set_id = $1 ORDER BY position",
        s.set_id
    )
    .fetch_all(&mut *tx)
    .await?;
    if task_ids.is_empty() {
        return Err(DbError::Invalid(format!("set {:?} has no tasks", s.set_id)));
    }
    let id = Uuid::new_v4();
    let (kind, endpoint_url, image, archive, model) = match s.agent {
        Agent::Endpoint(url) => (AgentKind::Endpoint, Some(url), None, None, None),
        Agent::Docker {
            image,
            archive,
            model,
        } => (AgentKind::Docker, None, Some(image), archive, model),
        Agent::Model(m) => (AgentKind::Model, None, None, None, Some(m)),
        Agent::Baseline(_) => (AgentKind::Baseline, None, None, None, None),
    };
    let key = model.and_then(|m| m.sealed_key.as_ref());
    let prices = model.and_then(|m| m.prices);
    sqlx::query!(
        "INSERT INTO submissions (id, vendor_id, set_id, name, model, kind, endpoint_url, image,
                                  image_archive, image_archive_sha256, signing_secret,
                                  status, tasks_total, trials, distractors, organisation,
                                  model_version, weights, framework, scaffold, model_base_url,
                                  model_id, model_key_id, model_key, price_input, price_output,
                                  webhook_url, baseline)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'queued', $12, $13, $14, $15,
                 $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27)",
        id,
        s.vendor_id,
        s.set_id,
        s.name,
        s.model,
        kind as AgentKind,
        endpoint_url,
        image,
        archive.map(|a| a.0),
        archive.map(|a| a.1),
        s.signing_secret,
        (task_ids.len() as i32) * s.trials,
        s.trials,
        s.distractors,
        s.about.organisation,
        s.about.model_version,
        s.about.weights,
        s.about.framework,
        s.about.scaffold,
        model.map(|m| m.base_url.as_str()),
        model.map(|m| m.model_id.as_str()),
        key.map(|k| k.0.as_str()),
        key.map(|k| k.1.as_slice()),
        prices.map(|p| p[0]),
        prices.map(|p| p[1]),
        s.webhook_url,
        baseline
    )
    .execute(&mut *tx)
    .await?;
    let needs_docker = kind == AgentKind::Docker;
    queue::enqueue(
        &mut tx,
        id,
        &task_ids,
        s.trials,
        s.max_attempts,
        needs_docker,
    )
    .await?;
    tx.commit().await?;
    Ok(id)
}

/// Whole seconds from `now` to the first of next month, 00:00 UTC (when monthly quotas renew).
pub fn until_next_month(now: OffsetDateTime) -> u64 {
    let now = now.to_offset(time::UtcOffset::UTC);
    let (year, month) = match now.month() {
        time::Month::December => (now.year() + 1, time::Month::January),
        m => (now.year(), m.next()),
    };
    let renew = time::Date::from_calendar_date(year, month, 1)
        .expect("the first of a month exists")
        .midnight()
        .assume_utc();
    (renew - now).whole_seconds().max(1) as u64
}

/// A submission of `vendor_id`; `None` when there is none or it is another vendor's.
pub async fn get(pool: &PgPool, id: Uuid, vendor_id: i64) -> Result<Option<Submission>, DbError> {
    let row = sqlx::query_as!(
        Submission,
        r#"SELECT s.id, s.vendor_id, v.name AS vendor, s.set_id, t.public AS set_public, s.name,
                  s.model, s.kind AS "kind: AgentKind", s.endpoint_url, s.image, s.status AS "status: SubmissionStatus", s.trials, s.tasks_total,
                  s.tasks_done, s.error, s.scores AS "scores: Stored<Scores>", s.published, s.created_at, s.finished_at,
                  s.distractors, s.organisation, s.model_version, s.weights, s.framework,
                  s.scaffold, s.model_base_url, s.model_id,
                  s.model_key IS NOT NULL AS "model_key_set!", s.price_input, s.price_output,
                  s.withdrawn_at, s.webhook_url, s.webhook_attempts, s.webhook_delivered_at,
                  s.webhook_error
           FROM submissions s JOIN task_sets t ON t.id = s.set_id
           JOIN vendors v ON v.id = s.vendor_id
           WHERE s.id = $1 AND s.vendor_id = $2"#,
        id,
        vendor_id
    )
    .fetch_optional(pool)
    .await?;
    Ok(row)
}

/// Any submission, whoever owns it: for views that decide themselves what to show (the
/// website shows a finished submission's scores to everyone, the rest only to its owner).
pub async fn find(pool: &PgPool, id: Uuid) -> Result<Option<Submission>, DbError> {
    let row = sqlx::query_as!(
        Submission,
        r#"SELECT s.id, s.vendor_id, v.name AS vendor, s.set_id, t.public AS set_public, s.name,
                  s.model, s.kind AS "kind: AgentKind", s.endpoint_url, s.image, s.status AS "status: SubmissionStatus", s.trials, s.tasks_total,
                  s.tasks_done, s.error, s.scores AS "scores: Stored<Scores>", s.published, s.created_at, s.finished_at,
                  s.distractors, s.organisation, s.model_version, s.weights, s.framework,
                  s.scaffold, s.model_base_url, s.model_id,
                  s.model_key IS NOT NULL AS "model_key_set!", s.price_input, s.price_output,
                  s.withdrawn_at, s.webhook_url, s.webhook_attempts, s.webhook_delivered_at,
                  s.webhook_error
           FROM submissions s JOIN task_sets t ON t.id = s.set_id
           JOIN vendors v ON v.id = s.vendor_id
           WHERE s.id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await?;
    Ok(row)
}

/// A vendor's submissions, newest first, created before `before` when given.
pub async fn list(
    pool: &PgPool,
    vendor_id: i64,
    before: Option<OffsetDateTime>,
    limit: i64,
) -> Result<Vec<Submission>, DbError> {
    let rows = sqlx::query_as!(
        Submission,
        r#"SELECT s.id, s.vendor_id, v.name AS vendor, s.set_id, t.public AS set_public, s.name,
                  s.model, s.kind AS "kind: AgentKind", s.endpoint_url, s.image, s.status AS "status: SubmissionStatus", s.trials, s.tasks_total,
                  s.tasks_done, s.error, s.scores AS "scores: Stored<Scores>", s.published, s.created_at, s.finished_at,
                  s.distractors, s.organisation, s.model_version, s.weights, s.framework,
                  s.scaffold, s.model_base_url, s.model_id,
                  s.model_key IS NOT NULL AS "model_key_set!", s.price_input, s.price_output,
                  s.withdrawn_at, s.webhook_url, s.webhook_attempts, s.webhook_delivered_at,
                  s.webhook_error
           FROM submissions s JOIN task_sets t ON t.id = s.set_id
           JOIN vendors v ON v.id = s.vendor_id
           WHERE s.vendor_id = $1 AND ($2::timestamptz IS NULL OR s.created_at < $2)
           ORDER BY s.created_at DESC LIMIT $3"#,
        vendor_id,
        before,
        limit
    )
    .fetch_all(pool)
    .await?;
    Ok(rows)
}

/// What the worker needs to call a submission's agent.
pub async fn target(pool: &PgPool, id: Uuid) -> Result<Target, DbError> {
    sqlx::query_as!(
        Target,
        r#"SELECT s.set_id, s.kind AS "kind: AgentKind", s.endpoint_url, s.image, s.image_archive,
                t.public AS set_public, s.signing_secret, v.name AS vendor, s.distractors,
                s.vendor_id, s.model_base_url, s.model_id, s.model_key_id, s.model_key,
                s.price_input, s.price_output, s.baseline
         FROM submissions s JOIN vendors v ON v.id = s.vendor_id
         JOIN task_sets t ON t.id = s.set_id WHERE s.id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await?
    .ok_or(DbError::NotFound)
}

/// Cancels a submission of `vendor_id`: queued jobs are dropped, running ones see it at their
/// next heartbeat. False when there is no such submission of that vendor or it has ended.
pub async fn cancel(pool: &PgPool, id: Uuid, vendor_id: i64) -> Result<bool, DbError> {
    let mut tx = pool.begin().await?;
    let done = sqlx::query!(
        "UPDATE submissions SET status = 'cancelled', finished_at = now(), error = 'cancelled by its owner'
         WHERE id = $1 AND vendor_id = $2 AND status IN ('queued', 'running')",
        id,
        vendor_id
    )
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if done != 1 {
        // Not this vendor's, or over already: touch nothing.
        return Ok(false);
    }
    sqlx::query!(
        "UPDATE jobs SET state = 'cancelled' WHERE submission_id = $1 AND state = 'queued'",
        id
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(true)
}

/// Withdraws a completed submission of `vendor_id` from the board: its leaderboard row goes
/// (the API's kept boards are told), the submission stays with when it was withdrawn. False
/// when there is no such completed submission not withdrawn already.
pub async fn withdraw(pool: &PgPool, id: Uuid, vendor_id: i64) -> Result<bool, DbError> {
    let mut tx = pool.begin().await?;
    let done = sqlx::query!(
        "UPDATE submissions SET withdrawn_at = now()
         WHERE id = $1 AND vendor_id = $2 AND status = 'completed' AND withdrawn_at IS NULL",
        id,
        vendor_id
    )
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if done == 0 {
        return Ok(false);
    }
    sqlx::query!("DELETE FROM leaderboard WHERE submission_id = $1", id)
        .execute(&mut *tx)
        .await?;
    crate::public_changed(&mut *tx).await?;
    tx.commit().await?;
    Ok(true)
}

/// Publishes a submission's traces (they open to the public once its set is public or
/// retired). False when there is no such submission of that vendor.
pub async fn publish(pool: &PgPool, id: Uuid, vendor_id: i64) -> Result<bool, DbError> {
    let done = sqlx::query!(
        "UPDATE submissions SET published = TRUE WHERE id = $1 AND vendor_id = $2",
        id,
        vendor_id
    )
    .execute(pool)
    .await?
    .rows_affected();
    if done == 1 {
        crate::public_changed(pool).await?;
    }
    Ok(done == 1)
}

/// Progress of a submission: (status, tasks_done, tasks_total).
pub async fn progress(pool: &PgPool, id: Uuid) -> Result<(SubmissionStatus, i32, i32), DbError> {
    let r = sqlx::query!(
        r#"SELECT status AS "status: SubmissionStatus", tasks_done, tasks_total
           FROM submissions WHERE id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await?
    .ok_or(DbError::NotFound)?;
    Ok((r.status, r.tasks_done, r.tasks_total))
}

/// Live submissions with nothing left to run: normally finished by the worker that completed
/// their last job, listed here for the sweep that catches the rest (two last completions
/// racing each other, a worker killed between completing and finishing).
pub async fn unfinished(pool: &PgPool, limit: i64) -> Result<Vec<Uuid>, DbError> {
    let ids = sqlx::query_scalar!(
        "SELECT s.id FROM submissions s
         WHERE s.status IN ('queued', 'running')
           AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.submission_id = s.id
                           AND j.state IN ('queued', 'running'))
         ORDER BY s.created_at LIMIT $1",
        limit
    )
    .fetch_all(pool)
    .await?;
    Ok(ids)
}

/// The completed submissions of a set, in the order they finished, and whether the set is
/// public (`None` when there is no such set).
pub async fn completed_on(pool: &PgPool, set: &str) -> Result<Option<(bool, Vec<Uuid>)>, DbError> {
    let public = sqlx::query_scalar!("SELECT public FROM task_sets WHERE id = $1", set)
        .fetch_optional(pool)
        .await?;
    let Some(public) = public else {
        return Ok(None);
    };
    let ids = sqlx::query_scalar!(
        "SELECT id FROM submissions WHERE set_id = $1 AND status = 'completed'
         ORDER BY finished_at, id",
        set
    )
    .fetch_all(pool)
    .await?;
    Ok(Some((public, ids)))
}

/// The newest completed submission's scores at each distractor level of one vendor's model on
/// a set, as `(level, scores)` in no particular order: the points of its curve.
pub async fn distractor_levels(
    pool: &PgPool,
    vendor_id: i64,
    set_id: &str,
    model: &str,
) -> Result<Vec<(String, Scores)>, DbError> {
    let rows = sqlx::query!(
        r#"SELECT DISTINCT ON (distractors) distractors AS "level!", scores AS "scores!: Stored<Scores>"
           FROM submissions
           WHERE vendor_id = $1 AND set_id = $2 AND model = $3 AND status = 'completed'
             AND distractors IS NOT NULL AND scores IS NOT NULL
           ORDER BY distractors, finished_at DESC"#,
        vendor_id,
        set_id,
        model
    )
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .filter_map(|r| Some((r.level, r.scores.0?)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_active_set_takes_submissions_and_a_refusal_says_why() {
        assert!(takes_submissions("2026-11", Some(SetState::Active)).is_ok());
        let refusal = |state| match takes_submissions("2026-11", state) {
            Err(DbError::Invalid(why)) => why,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            refusal(Some(SetState::Retired)),
            "set \"2026-11\" is retired and takes no submissions"
        );
        assert_eq!(
            refusal(Some(SetState::Draft)),
            "set \"2026-11\" is draft and takes no submissions"
        );
        assert_eq!(refusal(None), "there is no set \"2026-11\"");
    }
}
