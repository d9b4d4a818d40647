//! Task sets and their tasks. Only public sets (the dev set, revealed historical sets) are
//! ever listed with their tasks. A private set's tasks are stored only sealed (the caller seals
//! and opens them, `mcpbench-vault`; this module never sees a key) until the set retires and
//! its tasks and salts are written in clear.

mod reads;

pub use reads::{TaskFilter, clear_goals, get, list, public_task, public_tasks, task_ids};

use crate::{DbError, SetState};
use mcpbench_scoring::AttackSite;
use sqlx::PgPool;
use sqlx::types::Json;
use time::OffsetDateTime;

/// A task as stored, with the metadata scoring needs copied out of its JSON.
#[derive(Clone, Debug)]
pub struct SetTask {
    pub id: String,
    pub server: String,
    pub category: String,
    pub difficulty: String,
    pub max_steps: i32,
    pub task: serde_json::Value,
    /// Where the task's attack stood, for a task under attack.
    pub attack: Option<AttackSite>,
}

/// A set's public description.
#[derive(Clone, Debug, PartialEq)]
pub struct SetInfo {
    pub id: String,
    pub state: SetState,
    pub public: bool,
    pub tasks: i64,
    pub created_at: OffsetDateTime,
    pub activated_at: Option<OffsetDateTime>,
    pub retired_at: Option<OffsetDateTime>,
    /// The signed checkpoint, from go-live on (committed sets only).
    pub checkpoint: Option<String>,
    /// The verifier key of the key that signed the checkpoint.
    pub signing_key: Option<String>,
    pub tag: Option<String>,
    pub rotated_from: Option<String>,
    /// The share of tasks the rotation replaced.
    pub rotation_replace: Option<f64>,
    /// The rotation's seed, once the set retired (8 bytes, little-endian).
    pub rotation_seed_revealed: Option<Vec<u8>>,
    /// The source's tasks that were exposed when the rotation was made (it replaced them
    /// first), once the set retired.
    pub rotation_exposed_revealed: Option<Vec<String>>,
    /// Tasks stored sealed: every task of a live private set; of a retired one, those withheld
    /// while a live set still holds them.
    pub sealed: i64,
}

/// A rotation, as a new draft records it: the set it came from, the share replaced, and its
/// seed sealed (key id, bytes).
#[derive(Clone, Copy, Debug)]
pub struct RotationRecord<'a> {
    pub from: &'a str,
    pub replace: f64,
    pub key_id: &'a str,
    pub sealed_seed: &'a [u8],
    /// The source's exposed tasks the plan was given (it replaces them first).
    pub exposed: &'a [String],
}

/// How a task of a new set is stored.
#[derive(Clone, Debug)]
pub enum Content {
    /// A public set's task, in clear.
    Plain(serde_json::Value),
    /// A private task with its salt, sealed under the key `key_id`.
    Sealed { key_id: String, bytes: Vec<u8> },
}

/// A task of a new (draft) set.
#[derive(Clone, Debug)]
pub struct DraftTask {
    pub id: String,
    pub server: String,
    pub category: String,
    pub difficulty: String,
    pub max_steps: i32,
    /// Where the task's attack stood, for a task under attack.
    pub attack: Option<AttackSite>,
    pub content: Content,
    /// The set it first appeared in (this one, unless a rotation kept it).
    pub first_set: String,
}

/// A sealed task as stored, in set order.
#[derive(Clone, Debug)]
pub struct SealedTask {
    pub task_id: String,
    pub position: i32,
    pub key_id: String,
    pub sealed: Vec<u8>,
    pub first_set: String,
}

/// A revealed task, for the bundle.
#[derive(Clone, Debug)]
pub struct RevealedTask {
    pub salt: Vec<u8>,
    pub task: serde_json::Value,
}

/// A task as the worker finds it.
#[derive(Clone, Debug)]
pub enum StoredTask {
    Plain(serde_json::Value),
    Sealed {
        position: i32,
        key_id: String,
        sealed: Vec<u8>,
    },
}

/// Stores a public set as active with its tasks in clear: the dev set. Private sets go
/// through [`create_draft`], sealed.
///
/// A set id names one list of tasks for good: once a submission was made on the set, storing
/// the same tasks again does nothing and storing other tasks is refused (they need a new id),
/// so every result stays with the tasks it was run on. Before that, the tasks are replaced.
pub async fn put_public_set(pool: &PgPool, id: &str, tasks: &[SetTask]) -> Result<(), DbError> {
    let mut tx = pool.begin().await?;
    let existing = sqlx::query_scalar!("SELECT public FROM task_sets WHERE id = $1 FOR UPDATE", id)
        .fetch_optional(&mut *tx)
        .await?;
    if existing == Some(false) {
        return Err(DbError::Conflict(format!("set {id:?} is private")));
    }
    let used = sqlx::query_scalar!(
        r#"SELECT EXISTS (SELECT 1 FROM submissions WHERE set_id = $1) AS "used!""#,
        id
    )
    .fetch_one(&mut *tx)
    .await?;
    if used {
        let stored = sqlx::query!(
            "SELECT task_id, task FROM set_tasks WHERE set_id = $1 ORDER BY position",
            id
        )
        .fetch_all(&mut *tx)
        .await?;
        let same = stored.len() == tasks.len()
            && stored
                .iter()
                .zip(tasks)
                .all(|(row, t)| row.task_id == t.id && row.task.as_ref() == Some(&t.task));
        return if same {
            Ok(())
        } else {
            Err(DbError::Conflict(format!(
                "set {id:?} has results and holds other tasks; publish these tasks under a new set id"
            )))
        };
    }
    sqlx::query!(
        "INSERT INTO task_sets (id, state, public, activated_at) VALUES ($1, 'active', TRUE, now())
         ON CONFLICT (id) DO NOTHING",
        id
    )
    .execute(&mut *tx)
    .await?;
    sqlx::query!("DELETE FROM set_tasks WHERE set_id = $1", id)
        .execute(&mut *tx)
        .await?;
    for (position, t) in tasks.iter().enumerate() {
        sqlx::query!(
            "INSERT INTO set_tasks (set_id, task_id, position, task, server, category, difficulty,
                                    max_steps, first_set, attack)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $1, $9)",
            id,
            t.id,
            position as i32,
            t.task,
            t.server,
            t.category,
            t.difficulty,
            t.max_steps,
            t.attack.as_ref().map(Json) as Option<Json<&AttackSite>>
        )
        .execute(&mut *tx)
        .await?;
    }
    crate::public_changed(&mut *tx).await?;
    tx.commit().await?;
    Ok(())
}

/// Creates a draft set with its tasks.
pub async fn create_draft(
    pool: &PgPool,
    id: &str,
    public: bool,
    rotation: Option<RotationRecord<'_>>,
    tasks: &[DraftTask],
) -> Result<(), DbError> {
    let mut tx = pool.begin().await?;
    if let Some(r) = rotation {
        // The source stays active until this draft is stored: a retirement of it waits (it
        // locks the row for update) and then sees the draft's tasks as held, or this finds it
        // retired and stops, so a kept task is never revealed while the draft holds it.
        let state = sqlx::query_scalar!(
            r#"SELECT state AS "state: SetState" FROM task_sets WHERE id = $1 FOR SHARE"#,
            r.from
        )
        .fetch_optional(&mut *tx)
        .await?;
        if state != Some(SetState::Active) {
            return Err(DbError::Conflict(format!(
                "set {:?} is no longer active; rotation starts from the active month",
                r.from
            )));
        }
    }
    let inserted = sqlx::query!(
        "INSERT INTO task_sets (id, state, public, rotated_from, rotation_replace,
                                rotation_key_id, rotation_seed, rotation_exposed)
         VALUES ($1, 'draft', $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING",
        id,
        public,
        rotation.map(|r| r.from),
        rotation.map(|r| r.replace),
        rotation.map(|r| r.key_id),
        rotation.map(|r| r.sealed_seed),
        rotation.map(|r| r.exposed) as Option<&[String]>
    )
    .execute(&mut *tx)
    .await?;
    if inserted.rows_affected() == 0 {
        return Err(DbError::Conflict(format!("a set {id:?} exists already")));
    }
    for (position, t) in tasks.iter().enumerate() {
        let (task, key_id, sealed) = match &t.content {
            Content::Plain(v) => (Some(v), None, None),
            Content::Sealed { key_id, bytes } => (None, Some(key_id), Some(bytes)),
        };
        sqlx::query!(
            "INSERT INTO set_tasks (set_id, task_id, position, task, key_id, sealed, server,
                                    category, difficulty, max_steps, first_set, attack)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            id,
            t.id,
            position as i32,
            task,
            key_id,
            sealed,
            t.server,
            t.category,
            t.difficulty,
            t.max_steps,
            t.first_set,
            t.attack.as_ref().map(Json) as Option<Json<&AttackSite>>
        )
        .execute(&mut *tx)
        .await
        .map_err(|e| match e {
            sqlx::Error::Database(d) if d.is_unique_violation() => {
                DbError::Conflict(format!("the task id {:?} appears twice", t.id))
            }
            e => e.into(),
        })?;
    }
    tx.commit().await?;
    Ok(())
}

/// A set's sealed tasks in set order (empty for a public or revealed set).
pub async fn sealed_tasks(pool: &PgPool, id: &str) -> Result<Vec<SealedTask>, DbError> {
    let rows = sqlx::query_as!(
        SealedTask,
        r#"SELECT task_id, position, key_id AS "key_id!", sealed AS "sealed!", first_set
           FROM set_tasks WHERE set_id = $1 AND sealed IS NOT NULL ORDER BY position"#,
        id
    )
    .fetch_all(pool)
    .await?;
    Ok(rows)
}

/// Draft -> active. A committed set stores its checkpoint (the signed note, and the verifier
/// key that opens it) and each task's commitment (`commitments` in set order), in one
/// transaction.
pub async fn activate(
    pool: &PgPool,
    id: &str,
    checkpoint: Option<(&str, &str)>,
    commitments: &[[u8; 32]],
) -> Result<(), DbError> {
    let mut tx = pool.begin().await?;
    let (note, key) = checkpoint.unzip();
    // Each commitment must still be of the row it was computed from: a draft's sealed rows
    // never change (there is no update of them), and the state check below makes the first
    // of two concurrent activations the only one.
    let moved = sqlx::query!(
        "UPDATE task_sets SET state = 'active', activated_at = now(), checkpoint = $2,
                signing_key = $3
         WHERE id = $1 AND state = 'draft'",
        id,
        note,
        key
    )
    .execute(&mut *tx)
    .await?;
    if moved.rows_affected() == 0 {
        return Err(state_conflict(&mut tx, id, "activated", "a draft").await);
    }
    for (position, c) in commitments.iter().enumerate() {
        sqlx::query!(
            "UPDATE set_tasks SET commitment = $3 WHERE set_id = $1 AND position = $2",
            id,
            position as i32,
            c.as_slice()
        )
        .execute(&mut *tx)
        .await?;
    }
    crate::public_changed(&mut *tx).await?;
    tx.commit().await?;
    Ok(())
}

/// The error for a transition the set's state does not allow.
async fn state_conflict(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    id: &str,
    verb: &str,
    needs: &str,
) -> DbError {
    match sqlx::query_scalar!("SELECT state FROM task_sets WHERE id = $1", id)
        .fetch_optional(&mut **tx)
        .await
    {
        Ok(Some(state)) => {
            DbError::Conflict(format!("set {id:?} is {state}; only {needs} can be {verb}"))
        }
        Ok(None) => DbError::NotFound,
        Err(e) => e.into(),
    }
}

/// How many submissions to a set are queued or running.
pub async fn unfinished_submissions(pool: &PgPool, id: &str) -> Result<i64, DbError> {
    let n = sqlx::query_scalar!(
        r#"SELECT count(*) AS "n!" FROM submissions
           WHERE set_id = $1 AND status IN ('queued', 'running')"#,
        id
    )
    .fetch_one(pool)
    .await?;
    Ok(n)
}

/// Active -> retired. A committed set's tasks and salts are written in clear (`revealed` in
/// set order), except those a private draft or active set still holds (they stay sealed until
/// the last set holding them retires, [`release`]); so is its rotation seed when it has one, and
/// it opens under `tag`. Returns how many tasks were withheld.
pub async fn retire(
    pool: &PgPool,
    id: &str,
    tag: Option<&str>,
    revealed: &[RevealedTask],
    rotation_seed: Option<&[u8]>,
) -> Result<usize, DbError> {
    let mut tx = pool.begin().await?;
    // The set's row is locked first: submissions being made to it and rotations from it wait
    // (they read it FOR SHARE), and neither the count below nor the drafts holding its tasks
    // can change before this transaction ends.
    sqlx::query!("SELECT id FROM task_sets WHERE id = $1 FOR UPDATE", id)
        .fetch_optional(&mut *tx)
        .await?;
    let unfinished = sqlx::query_scalar!(
        r#"SELECT count(*) AS "n!" FROM submissions
           WHERE set_id = $1 AND status IN ('queued', 'running')"#,
        id
    )
    .fetch_one(&mut *tx)
    .await?;
    if unfinished > 0 {
        return Err(DbError::Conflict(format!(
            "{unfinished} submissions to set {id:?} are still queued or running; they finish or \
             are cancelled before it retires"
        )));
    }
    let moved = sqlx::query!(
        "UPDATE task_sets SET state = 'retired', retired_at = now(), tag = $2,
                public = public OR $2::text IS NOT NULL,
                rotation_seed_revealed = $3,
                rotation_seed = CASE WHEN $3::bytea IS NULL THEN rotation_seed END,
                rotation_key_id = CASE WHEN $3::bytea IS NULL THEN rotation_key_id END
         WHERE id = $1 AND state = 'active'",
        id,
        tag,
        rotation_seed
    )
    .execute(&mut *tx)
    .await?;
    if moved.rows_affected() == 0 {
        return Err(state_conflict(&mut tx, id, "retired", "an active set").await);
    }
    let mut withheld = 0;
    for (position, t) in revealed.iter().enumerate() {
        let written = sqlx::query!(
            "UPDATE set_tasks SET task = $3, salt = $4, sealed = NULL, key_id = NULL
             WHERE set_id = $1 AND position = $2 AND NOT task_held_live(task_id, set_id)",
            id,
            position as i32,
            t.task,
            t.salt
        )
        .execute(&mut *tx)
        .await?;
        withheld += usize::from(written.rows_affected() == 0);
    }
    crate::public_changed(&mut *tx).await?;
    tx.commit().await?;
    Ok(withheld)
}

/// A task a retired set withholds that no live set holds any more: ready to be revealed.
#[derive(Clone, Debug)]
pub struct Releasable {
    pub set_id: String,
    pub task_id: String,
    pub position: i32,
    pub key_id: String,
    pub sealed: Vec<u8>,
    /// The commitment made at go-live, which the opened task must match.
    pub commitment: Vec<u8>,
}

/// Withheld tasks of retired committed sets that no private draft or active set holds now.
pub async fn releasable(pool: &PgPool) -> Result<Vec<Releasable>, DbError> {
    let rows = sqlx::query_as!(
        Releasable,
        r#"SELECT t.set_id, t.task_id, t.position, t.key_id AS "key_id!", t.sealed AS "sealed!",
                  t.commitment AS "commitment!"
           FROM set_tasks t JOIN task_sets s ON s.id = t.set_id
           WHERE s.state = 'retired' AND s.tag IS NOT NULL AND t.sealed IS NOT NULL
             AND t.commitment IS NOT NULL AND NOT task_held_live(t.task_id, t.set_id)
           ORDER BY t.set_id, t.position"#
    )
    .fetch_all(pool)
    .await?;
    Ok(rows)
}

/// Writes a withheld task of a retired set in clear, unless a live set holds it again.
/// Returns whether it was written.
pub async fn release(
    pool: &PgPool,
    set: &str,
    position: i32,
    task: &RevealedTask,
) -> Result<bool, DbError> {
    let written = sqlx::query!(
        "UPDATE set_tasks t SET task = $3, salt = $4, sealed = NULL, key_id = NULL
         FROM task_sets s
         WHERE s.id = t.set_id AND t.set_id = $1 AND t.position = $2 AND t.sealed IS NOT NULL
           AND s.state = 'retired' AND s.tag IS NOT NULL
           AND NOT task_held_live(t.task_id, t.set_id)",
        set,
        position,
        task.task,
        task.salt
    )
    .execute(pool)
    .await?;
    if written.rows_affected() == 1 {
        crate::public_changed(pool).await?;
    }
    Ok(written.rows_affected() == 1)
}

/// Deletes a draft (nothing has run on it, nothing was published of it).
pub async fn delete_draft(pool: &PgPool, id: &str) -> Result<(), DbError> {
    let mut tx = pool.begin().await?;
    let gone = sqlx::query!(
        "DELETE FROM task_sets WHERE id = $1 AND state = 'draft'",
        id
    )
    .execute(&mut *tx)
    .await?;
    if gone.rows_affected() == 0 {
        return Err(state_conflict(&mut tx, id, "deleted", "a draft").await);
    }
    tx.commit().await?;
    Ok(())
}

/// The commitments of a committed set in set order (public from go-live).
pub async fn commitments(pool: &PgPool, id: &str) -> Result<Vec<Vec<u8>>, DbError> {
    let rows = sqlx::query_scalar!(
        r#"SELECT commitment AS "c!" FROM set_tasks
           WHERE set_id = $1 AND commitment IS NOT NULL ORDER BY position"#,
        id
    )
    .fetch_all(pool)
    .await?;
    Ok(rows)
}

/// One leaf of a retired committed set, for its bundle: the task and its salt once revealed,
/// else (withheld) its commitment alone.
#[derive(Clone, Debug)]
pub struct BundleRow {
    pub salt: Option<Vec<u8>>,
    pub task: Option<serde_json::Value>,
    pub commitment: Vec<u8>,
}

/// A retired set's leaves in set order, for its bundle.
pub async fn bundle_rows(pool: &PgPool, id: &str) -> Result<Vec<BundleRow>, DbError> {
    let rows = sqlx::query_as!(
        BundleRow,
        r#"SELECT t.salt, t.task, t.commitment AS "commitment!" FROM set_tasks t
           JOIN task_sets s ON s.id = t.set_id
           WHERE t.set_id = $1 AND s.state = 'retired' AND t.commitment IS NOT NULL
           ORDER BY t.position"#,
        id
    )
    .fetch_all(pool)
    .await?;
    Ok(rows)
}

/// The rotation seed of a set made by rotation, sealed, with its key id.
pub async fn rotation_seed(pool: &PgPool, id: &str) -> Result<Option<(String, Vec<u8>)>, DbError> {
    let row = sqlx::query!(
        "SELECT rotation_key_id, rotation_seed FROM task_sets WHERE id = $1",
        id
    )
    .fetch_optional(pool)
    .await?
    .ok_or(DbError::NotFound)?;
    Ok(row.rotation_key_id.zip(row.rotation_seed))
}

/// A task of any set, for the worker that runs it (sealed if the set is private and live).
pub async fn task_for_run(pool: &PgPool, set: &str, task_id: &str) -> Result<StoredTask, DbError> {
    let row = sqlx::query!(
        "SELECT task, position, key_id, sealed FROM set_tasks WHERE set_id = $1 AND task_id = $2",
        set,
        task_id
    )
    .fetch_optional(pool)
    .await?
    .ok_or(DbError::NotFound)?;
    match (row.task, row.key_id, row.sealed) {
        (Some(task), _, _) => Ok(StoredTask::Plain(task)),
        (None, Some(key_id), Some(sealed)) => Ok(StoredTask::Sealed {
            position: row.position,
            key_id,
            sealed,
        }),
        _ => Err(DbError::Invalid(format!(
            "task {task_id:?} of set {set:?} is stored in neither form"
        ))),
    }
}
