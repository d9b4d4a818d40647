//! The life of a task set (docs/attestations.md): `draft` -> `active` -> `retired`.
//!
//! - A private draft is stored sealed: each task with its own fresh salt, under the current key
//!   of the keyring, bound to its place (set and position). Nothing of it is in clear in the
//!   database.
//! - Going live commits to it: the salted commitment of each task's canonical JSON, the Merkle
//!   root over them, and a checkpoint signed with the service's key (docs/attestations.md).
//! - Retiring reveals it: every task is opened, checked against the commitment made at go-live,
//!   a bundle is built and verified exactly as `mcpbench verify` would, and only then are the
//!   tasks and salts written in clear and the set opened as `Historical-YYYY-MM`. A task that a
//!   private draft or active set still holds (a rotation kept it) is withheld: it stays sealed
//!   and its bundle entry shows the commitment alone, until the last set holding it retires
//!   (or the draft is deleted) and [`release_withheld`] reveals it everywhere.
//! - A rotation builds next month's draft from a set: about a quarter of the tasks replaced by
//!   fresh ones from a new secret seed (sealed and kept), the rest kept under new salts.
//! - A month may draw some of its tasks from a private pool of task files kept outside the
//!   repository ([`pool_draft`]), each pool task into one month only, sealed like the rest.
//! - Most of a generated month comes from private families (`packs.rs`, `month.rs`): packs the
//!   deployment keeps sealed, so that knowing the public generator buys little there; the ids
//!   of a generated month name no family.
//!
//! The errors name sets, states and counts, never a task's content.

pub mod anomaly;
pub mod calendar;
mod month;
mod packs;
mod pool;
mod public;
mod rotate;
mod settings;

pub use anomaly::analyze;
pub use month::{DEFAULT_PACK_SHARE, Draw, check_share, fresh_month, opaque_ids};
pub use packs::{ADD_DRAWS, add_pack, list_packs, live_families, retire_family};
pub use pool::{
    MAX_POOL_ID, PoolCounts, PoolPlan, Stored, TaskPool, default_from_pool, plan_pool_month,
    pool_draft, sealed_goals,
};
pub use public::PublicSet;
pub use rotate::{
    Rotation, RotationPlan, fresh_tasks, generate_draft, plan_rotation, rotate, secret_seed,
};
pub use settings::keyring_from_args;

use mcpbench_attest::bundle::{self, Entry, tree_root};
use mcpbench_attest::jcs::canonical;
use mcpbench_attest::{Checkpoint, NoteSigner, Salt, commitment, new_salt};
use mcpbench_db::sets::{self, Content, DraftTask, RevealedTask, SetInfo, StoredTask};
use mcpbench_db::{DbError, PgPool, SetState};
use mcpbench_tasks::Task;
use mcpbench_vault::{Keyring, Sealed, VaultError};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The most tasks one set holds.
pub const MAX_TASKS: usize = 5_000;

#[derive(Debug, thiserror::Error)]
pub enum SetError {
    #[error("there is no set {0:?}")]
    NotFound(String),
    /// The request cannot be carried out as asked; the text says why.
    #[error("{0}")]
    Invalid(String),
    /// The set's state (or a running submission) does not allow it now.
    #[error("{0}")]
    Conflict(String),
    /// Private sets need keys this process was not given.
    #[error("{0}")]
    Unconfigured(&'static str),
    #[error(transparent)]
    Vault(#[from] VaultError),
    #[error(transparent)]
    Db(DbError),
}

impl From<DbError> for SetError {
    fn from(e: DbError) -> Self {
        match e {
            DbError::Conflict(m) | DbError::Invalid(m) => SetError::Conflict(m),
            e => SetError::Db(e),
        }
    }
}

/// The secrets a private set needs: the keyring that seals tasks at rest and the key that signs
/// checkpoints, with the service's name (the checkpoints' origin and the key's name).
pub struct Custody {
    pub keyring: Option<Keyring>,
    pub signer: Option<NoteSigner>,
    pub service: String,
}

impl Custody {
    pub(crate) fn keyring(&self) -> Result<&Keyring, SetError> {
        self.keyring.as_ref().ok_or(SetError::Unconfigured(
            "MCPBENCH_TASK_KEYS is not set: private sets cannot be sealed or opened here",
        ))
    }

    fn signer(&self) -> Result<&NoteSigner, SetError> {
        self.signer.as_ref().ok_or(SetError::Unconfigured(
            "MCPBENCH_SIGNING_KEY is not set: checkpoints cannot be signed here",
        ))
    }

    /// The verifier key published at `/.well-known/mcpbench-checkpoint-key`.
    pub fn verifier_key(&self) -> Option<String> {
        self.signer.as_ref().map(NoteSigner::verifier_key)
    }

    fn origin(&self, set: &str) -> String {
        format!("{}/sets/{set}", self.service)
    }
}

/// What a sealed value holds: the task and its salt.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Secret {
    salt: String,
    task: Value,
}

/// The associated data a sealed task is bound to: its set, place and id, so that a ciphertext
/// moved to another row (or its clear id changed) does not open.
fn place(set: &str, position: i32, task_id: &str) -> String {
    format!("set_tasks/{set}/{position}/{task_id}")
}

fn as_value(task: &Task) -> Value {
    serde_json::to_value(task).expect("tasks serialize")
}

/// A loaded task as a set stores it: the JSON, plus the columns scoring and filters read.
pub fn set_task(task: &Task) -> sets::SetTask {
    sets::SetTask {
        id: task.id.clone(),
        server: task.server.clone(),
        category: task.category.as_str().into(),
        difficulty: task.difficulty.as_str().into(),
        max_steps: task.max_steps as i32,
        task: as_value(task),
        attack: attack_site(task),
    }
}

/// Where `task`'s attack stood, as its set row keeps it in clear.
pub fn attack_site(task: &Task) -> Option<mcpbench_scoring::AttackSite> {
    let attack = task.attack.as_ref()?;
    Some(mcpbench_scoring::AttackSite {
        kind: attack.kind.as_str().into(),
        server: attack.server.clone(),
        twin: attack.twin.clone(),
    })
}

fn draft_task(task: &Task, content: Content, first_set: &str) -> DraftTask {
    let row = set_task(task);
    DraftTask {
        id: row.id,
        server: row.server,
        category: row.category,
        difficulty: row.difficulty,
        max_steps: row.max_steps,
        attack: row.attack,
        content,
        first_set: first_set.into(),
    }
}

fn check_new_set(id: &str, public: bool, tasks: &[Task]) -> Result<(), SetError> {
    if !public && !bundle::is_month(id) {
        return Err(SetError::Invalid(format!(
            "a private set is named by the month it is live, YYYY-MM (not {id:?}); its reveal \
             is tagged Historical-YYYY-MM"
        )));
    }
    if tasks.is_empty() || tasks.len() > MAX_TASKS {
        return Err(SetError::Invalid(format!(
            "a set holds 1 to {MAX_TASKS} tasks, not {}",
            tasks.len()
        )));
    }
    for task in tasks {
        let bytes = canonical(&as_value(task)).map_err(|e| {
            SetError::Invalid(format!("task {:?} has no canonical JSON: {e}", task.id))
        })?;
        // PostgreSQL's JSONB holds no NUL character: such a task could be committed to but
        // never revealed.
        if bytes.windows(6).any(|w| w == b"\\u0000") {
            return Err(SetError::Invalid(format!(
                "task {:?} holds a NUL character, which the reveal cannot store",
                task.id
            )));
        }
    }
    Ok(())
}

/// Creates a draft: in clear if `public`, else sealed, each task with a fresh salt.
pub async fn create(
    pool: &PgPool,
    custody: &Custody,
    id: &str,
    tasks: &[Task],
    public: bool,
) -> Result<(), SetError> {
    create_with(pool, custody, id, tasks, public, None, None).await
}

/// [`create`], for a rotation too: `first_sets` says, per task, the set it first appeared in
/// (else this one), and `rotation` is the set rotated from, the share replaced and the sealed
/// seed.
async fn create_with(
    pool: &PgPool,
    custody: &Custody,
    id: &str,
    tasks: &[Task],
    public: bool,
    first_sets: Option<&[String]>,
    rotation: Option<(&str, f64, &Sealed, &[String])>,
) -> Result<(), SetError> {
    check_new_set(id, public, tasks)?;
    let rows: Vec<DraftTask> = if public {
        tasks
            .iter()
            .map(|t| draft_task(t, Content::Plain(as_value(t)), id))
            .collect()
    } else {
        let keyring = custody.keyring()?;
        tasks
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let secret = Secret {
                    salt: hex::encode(new_salt()),
                    task: as_value(t),
                };
                let plain = serde_json::to_vec(&secret).expect("a secret serializes");
                let sealed = keyring.seal(&place(id, i as i32, &t.id), &plain);
                let first = first_sets.map_or(id, |f| f[i].as_str());
                let content = Content::Sealed {
                    key_id: sealed.key_id,
                    bytes: sealed.bytes,
                };
                draft_task(t, content, first)
            })
            .collect()
    };
    let rotation = rotation.map(|(from, replace, seed, exposed)| sets::RotationRecord {
        from,
        replace,
        key_id: &seed.key_id,
        sealed_seed: &seed.bytes,
        exposed,
    });
    sets::create_draft(pool, id, public, rotation, &rows).await?;
    tracing::info!(set = id, tasks = rows.len(), public, "draft set created");
    Ok(())
}

async fn info(pool: &PgPool, id: &str) -> Result<SetInfo, SetError> {
    sets::get(pool, id)
        .await?
        .ok_or_else(|| SetError::NotFound(id.into()))
}

/// A private set's tasks, opened, with their salts, in set order.
async fn open_all(
    pool: &PgPool,
    keyring: &Keyring,
    id: &str,
) -> Result<Vec<(Salt, Value, String)>, SetError> {
    let rows = sets::sealed_tasks(pool, id).await?;
    rows.into_iter()
        .map(|row| {
            let sealed = Sealed {
                key_id: row.key_id,
                bytes: row.sealed,
            };
            let secret = open_secret(keyring, id, row.position, &row.task_id, &sealed)?;
            Ok((secret.0, secret.1, row.first_set))
        })
        .collect()
}

fn open_secret(
    keyring: &Keyring,
    set: &str,
    position: i32,
    task_id: &str,
    sealed: &Sealed,
) -> Result<(Salt, Value), SetError> {
    let plain = keyring.open(&place(set, position, task_id), sealed)?;
    let secret: Secret =
        serde_json::from_slice(&plain).map_err(|_| SetError::Vault(VaultError::Corrupt))?;
    if secret.task.get("id").and_then(Value::as_str) != Some(task_id) {
        return Err(SetError::Vault(VaultError::Corrupt));
    }
    let salt = hex::decode(&secret.salt)
        .ok()
        .and_then(|s| Salt::try_from(s).ok())
        .ok_or(SetError::Vault(VaultError::Corrupt))?;
    Ok((salt, secret.task))
}

fn commitments_of(tasks: &[(Salt, Value, String)]) -> Result<Vec<[u8; 32]>, SetError> {
    tasks
        .iter()
        .map(|(salt, task, _)| {
            let bytes = canonical(task)
                .map_err(|e| SetError::Invalid(format!("a task has no canonical JSON: {e}")))?;
            Ok(commitment(salt, &bytes))
        })
        .collect()
}

/// Takes a draft live. A private set is committed to first: its checkpoint is returned.
pub async fn activate(
    pool: &PgPool,
    custody: &Custody,
    id: &str,
) -> Result<Option<String>, SetError> {
    let set = info(pool, id).await?;
    if set.state != SetState::Draft {
        return Err(SetError::Conflict(format!(
            "set {id:?} is {}; only a draft can be activated",
            set.state
        )));
    }
    if set.public {
        sets::activate(pool, id, None, &[]).await?;
        return Ok(None);
    }
    let signer = custody.signer()?;
    let tasks = open_all(pool, custody.keyring()?, id).await?;
    let commitments = commitments_of(&tasks)?;
    let body = Checkpoint {
        origin: custody.origin(id),
        size: commitments.len() as u64,
        root: tree_root(&commitments),
    }
    .body();
    let note = signer.sign(&body);
    let key = signer.verifier_key();
    sets::activate(pool, id, Some((&note, &key)), &commitments).await?;
    tracing::info!(
        set = id,
        tasks = commitments.len(),
        "set committed and active"
    );
    Ok(Some(note))
}

/// Retires an active set. A committed one is revealed: opened, checked against its
/// commitment, its bundle built and verified, and only then written in clear.
pub async fn retire(pool: &PgPool, custody: &Custody, id: &str) -> Result<(), SetError> {
    let set = info(pool, id).await?;
    if set.state != SetState::Active {
        return Err(SetError::Conflict(format!(
            "set {id:?} is {}; only an active set can be retired",
            set.state
        )));
    }
    // Said early, before every task is opened; checked again under the set's lock when the
    // retirement is written.
    let unfinished = sets::unfinished_submissions(pool, id).await?;
    if unfinished > 0 {
        return Err(SetError::Conflict(format!(
            "{unfinished} submissions to set {id:?} are still queued or running; they finish or \
             are cancelled before it retires"
        )));
    }
    let Some(checkpoint) = set.checkpoint.as_deref() else {
        sets::retire(pool, id, None, &[], None).await?;
        return Ok(());
    };
    let keyring = custody.keyring()?;
    let tasks = open_all(pool, keyring, id).await?;
    let rotation_seed = match sets::rotation_seed(pool, id).await? {
        Some((key_id, bytes)) => {
            let sealed = Sealed { key_id, bytes };
            Some(keyring.open(&rotate::seed_place(id), &sealed)?)
        }
        None => None,
    };
    let stored = sets::commitments(pool, id).await?;
    let computed = commitments_of(&tasks)?;
    if stored.len() != computed.len() || stored.iter().zip(&computed).any(|(s, c)| s != c) {
        return Err(SetError::Conflict(format!(
            "set {id:?} no longer matches its commitment; nothing was revealed"
        )));
    }
    let tag = format!("Historical-{id}");
    let key = set
        .signing_key
        .ok_or_else(|| SetError::Conflict(format!("set {id:?} has no signing key on record")))?;
    let pairs: Vec<(Salt, Value)> = tasks.iter().map(|(s, t, _)| (*s, t.clone())).collect();
    let built = bundle::build(id, &tag, &key, checkpoint, &Entry::all_revealed(&pairs))
        .map_err(|e| SetError::Invalid(e.to_string()))?;
    bundle::verify(&built, Some(checkpoint), Some(&key)).map_err(|e| {
        SetError::Conflict(format!(
            "the reveal of set {id:?} does not verify ({e}); nothing was revealed"
        ))
    })?;
    let revealed: Vec<RevealedTask> = pairs
        .into_iter()
        .map(|(salt, task)| RevealedTask {
            salt: salt.to_vec(),
            task,
        })
        .collect();
    let withheld = sets::retire(pool, id, Some(&tag), &revealed, rotation_seed.as_deref()).await?;
    tracing::info!(set = id, tag, withheld, "set retired and revealed");
    // Tasks earlier months withheld because this one held them may be free now.
    release_withheld(pool, custody).await?;
    // The month is complete: its anomaly analysis is final. A failure here leaves the reveal
    // standing (it is logged; `analyze` can be run again).
    if let Err(e) = anomaly::analyze(pool, id).await {
        tracing::warn!(set = id, error = %e, "anomaly analysis at retirement failed");
    }
    Ok(())
}

/// Reveals the tasks retired sets withheld that no live set holds any more (the last set
/// holding them retired, or the draft holding them was deleted): each is opened, checked
/// against its set's commitment, and written in clear. Returns how many were revealed.
pub async fn release_withheld(pool: &PgPool, custody: &Custody) -> Result<usize, SetError> {
    let rows = sets::releasable(pool).await?;
    if rows.is_empty() {
        return Ok(0);
    }
    let keyring = custody.keyring()?;
    let mut released = 0;
    for row in rows {
        let sealed = Sealed {
            key_id: row.key_id,
            bytes: row.sealed,
        };
        let (salt, task) = open_secret(keyring, &row.set_id, row.position, &row.task_id, &sealed)?;
        let bytes = canonical(&task)
            .map_err(|e| SetError::Invalid(format!("a task has no canonical JSON: {e}")))?;
        if commitment(&salt, &bytes).as_slice() != row.commitment.as_slice() {
            return Err(SetError::Conflict(format!(
                "task {} of set {:?} no longer matches its commitment; it stays withheld",
                row.position, row.set_id
            )));
        }
        let task = RevealedTask {
            salt: salt.to_vec(),
            task,
        };
        if sets::release(pool, &row.set_id, row.position, &task).await? {
            released += 1;
        }
    }
    tracing::info!(
        released,
        "withheld tasks revealed: no live set holds them now"
    );
    Ok(released)
}

/// The reveal bundle of a retired committed set: every task no live set holds revealed, the
/// others withheld (their commitment alone).
pub async fn reveal_bundle(pool: &PgPool, id: &str) -> Result<Vec<u8>, SetError> {
    let set = info(pool, id).await?;
    let (Some(checkpoint), Some(key), Some(tag), SetState::Retired) =
        (set.checkpoint, set.signing_key, set.tag, set.state)
    else {
        return Err(SetError::Conflict(format!(
            "set {id:?} has no reveal: only a committed set that retired has one"
        )));
    };
    let corrupt = || SetError::Vault(VaultError::Corrupt);
    let entries: Vec<Entry> = sets::bundle_rows(pool, id)
        .await?
        .into_iter()
        .map(|row| match (row.salt, row.task) {
            (Some(salt), Some(task)) => Ok(Entry::Revealed {
                salt: Salt::try_from(salt).map_err(|_| corrupt())?,
                task,
            }),
            _ => Ok(Entry::Withheld {
                commitment: row.commitment.try_into().map_err(|_| corrupt())?,
            }),
        })
        .collect::<Result<_, SetError>>()?;
    bundle::build(id, &tag, &key, &checkpoint, &entries)
        .map_err(|e| SetError::Invalid(e.to_string()))
}

/// Deletes a draft; tasks retired sets withheld only because it held them are revealed.
pub async fn delete(pool: &PgPool, custody: &Custody, id: &str) -> Result<(), SetError> {
    match sets::delete_draft(pool, id).await {
        Err(DbError::NotFound) => return Err(SetError::NotFound(id.into())),
        r => r?,
    }
    release_withheld(pool, custody).await?;
    Ok(())
}

/// A task for the worker to run: opened with the keyring if its set is private and live.
pub async fn task_for_run(
    pool: &PgPool,
    keyring: Option<&Keyring>,
    set: &str,
    task_id: &str,
) -> Result<Value, SetError> {
    match sets::task_for_run(pool, set, task_id).await {
        Ok(StoredTask::Plain(task)) => Ok(task),
        Ok(StoredTask::Sealed {
            position,
            key_id,
            sealed,
        }) => {
            let keyring = keyring.ok_or(SetError::Unconfigured(
                "MCPBENCH_TASK_KEYS is not set: this worker cannot open private tasks",
            ))?;
            let sealed = Sealed {
                key_id,
                bytes: sealed,
            };
            Ok(open_secret(keyring, set, position, task_id, &sealed)?.1)
        }
        Err(DbError::NotFound) => Err(SetError::NotFound(format!("{set}/{task_id}"))),
        Err(e) => Err(e.into()),
    }
}
