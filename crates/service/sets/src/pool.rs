//! A month drawn partly from a private pool: task files kept outside the repository, so that
//! some families are never public until a month holding them is revealed.
//!
//! `admin set create 2026-11 --generate N --pool DIR [--from-pool K]` takes K tasks (a quarter
//! of N by default, at least 1) from DIR and generates the other N - K from the same secret
//! seed. Every pool task must load and pass the validity proof of `mcpbench tasks check`, or
//! nothing is created. A pool task is drawn once: one whose id a set of the store already holds
//! (with a month's suffix `-YYYYMM` or without) is not drawn again. The rule goes by id, not by
//! goal, because ids are in clear for every set, sealed or not, so the check opens nothing
//! (drafts, live months and withheld tasks count, with no key needed); a task keeps its id when
//! its text is corrected, so a fixed typo does not make it new; and a task id already names one
//! task across months everywhere else (`task_held_live`, rotation). Pool ids are best names of
//! their own (`pool-...`): an id the generator also makes counts as held once a month holds
//! it. A pool task whose goal repeats or comes near a goal held in clear is skipped, as
//! generated goals are. The draw among the rest is made with the secret seed, so the month is
//! fixed by the seed.
//!
//! Errors and log lines name files, sets and counts, never a pool task's content.

use crate::month::{Draw, fresh_month};
use crate::rotate::{prove_each, secret_seed};
use crate::{Custody, MAX_TASKS, SetError, create_with, open_all};
use mcpbench_db::{PgPool, sets};
use mcpbench_sim::Rng;
use mcpbench_tasks::{MAX_GOAL_SIMILARITY, Task, closest_goal, load_dir};
use mcpbench_vault::Keyring;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The longest id a pool task may have: the month's suffix (`-202611`) takes it to 80, the
/// most a task id may have.
pub const MAX_POOL_ID: usize = 73;

/// The stream of the secret seed the pool draw takes (the generator's slots and the rotation
/// take others).
const POOL_STREAM: u64 = u64::MAX - 1;

/// The task files of a pool, each loaded and proven valid, in file-name order.
pub struct TaskPool {
    dir: PathBuf,
    tasks: Vec<Task>,
}

impl TaskPool {
    /// Reads `dir`: every `*.json` but `manifest.json` must load and pass its validity proof,
    /// and no two may hold the same goal. Errors name the files, never what they hold (the
    /// problems found quote the tasks: `mcpbench tasks check DIR` shows them).
    pub fn read(dir: &Path) -> Result<Self, SetError> {
        if !dir.is_dir() {
            return Err(SetError::Invalid(format!(
                "the pool {} is not a directory",
                dir.display()
            )));
        }
        let tasks = load_dir(dir).map_err(|errors| {
            let mut files: Vec<String> = errors
                .iter()
                .map(|e| e.file.display().to_string())
                .collect();
            files.dedup();
            invalid_files(dir, &files, "do not load")
        })?;
        if tasks.is_empty() {
            return Err(SetError::Invalid(format!(
                "the pool {} holds no task files",
                dir.display()
            )));
        }
        let file = |t: &Task| dir.join(format!("{}.json", t.id)).display().to_string();
        if let Some(long) = tasks.iter().find(|t| t.id.len() > MAX_POOL_ID) {
            return Err(SetError::Invalid(format!(
                "pool task {}: its id has more than {MAX_POOL_ID} characters, which the \
                 month's suffix would take past the 80 a task id may have",
                file(long)
            )));
        }
        let mut goals: HashMap<&str, &Task> = HashMap::new();
        for t in &tasks {
            if let Some(first) = goals.insert(&t.goal, t) {
                return Err(SetError::Invalid(format!(
                    "pool tasks {} and {} hold the same goal",
                    file(first),
                    file(t)
                )));
            }
        }
        let failing: Vec<String> = prove_each(&tasks)
            .iter()
            .map(|&i| file(&tasks[i]))
            .collect();
        if !failing.is_empty() {
            return Err(invalid_files(dir, &failing, "fail their validity proof"));
        }
        Ok(Self {
            dir: dir.to_path_buf(),
            tasks,
        })
    }

    pub fn tasks(&self) -> &[Task] {
        &self.tasks
    }
}

/// "the pool's task files that do not load (3): a.json, b.json, c.json; ...".
fn invalid_files(dir: &Path, files: &[String], what: &str) -> SetError {
    let shown: Vec<&str> = files.iter().take(10).map(String::as_str).collect();
    let more = files.len() - shown.len();
    SetError::Invalid(format!(
        "the pool's task files that {what} ({}): {}{}; nothing was created (`mcpbench tasks \
         check {}` shows why; it is left out here because it may quote the tasks)",
        files.len(),
        shown.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        },
        dir.display()
    ))
}

/// What the store holds that a draw keeps apart from.
pub struct Stored {
    /// The id of every task of every set (sealed ones too).
    pub task_ids: Vec<String>,
    /// Every goal held in clear ([`sets::clear_goals`]).
    pub clear_goals: Vec<String>,
    /// Every goal still sealed in a private set ([`sealed_goals`]): no two months ask the same.
    pub sealed_goals: Vec<String>,
}

impl Stored {
    pub async fn read(pool: &PgPool, keyring: &Keyring) -> Result<Self, SetError> {
        Ok(Self {
            task_ids: sets::task_ids(pool).await?,
            clear_goals: sets::clear_goals(pool).await?,
            sealed_goals: sealed_goals(pool, keyring).await?,
        })
    }

    /// The goals a generated month keeps apart from: those in clear and those sealed.
    pub fn goals(&self) -> Vec<String> {
        let mut all: Vec<String> = self
            .clear_goals
            .iter()
            .chain(&self.sealed_goals)
            .cloned()
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    }
}

/// The goal of every task sealed in a private set, opened with `keyring`. Only in memory, to
/// draw a new month apart from them; a kept task counts once.
pub async fn sealed_goals(pool: &PgPool, keyring: &Keyring) -> Result<Vec<String>, SetError> {
    let mut goals = Vec::new();
    for set in sets::list(pool, i64::MAX).await? {
        if set.sealed == 0 {
            continue;
        }
        for (_, task, _) in open_all(pool, keyring, &set.id).await? {
            if let Some(goal) = task.get("goal").and_then(serde_json::Value::as_str) {
                goals.push(goal.to_string());
            }
        }
    }
    goals.sort_unstable();
    goals.dedup();
    Ok(goals)
}

/// The id a stored task had in its pool: without the month's suffix `-YYYYMM`.
fn unsuffixed(id: &str) -> &str {
    match id.rsplit_once('-') {
        Some((base, month)) if month.len() == 6 && month.bytes().all(|b| b.is_ascii_digit()) => {
            base
        }
        _ => id,
    }
}

/// What a draw found in the pool, in counts (a pool task is counted under the first reason
/// that applies, in this order).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolCounts {
    pub tasks: usize,
    /// A set of the store already holds its id: it went into a month before.
    pub held: usize,
    /// Its goal repeats or comes near a goal held in clear.
    pub near_clear: usize,
    /// Its id, with the month's suffix, is a generated task's of the same month.
    pub clash: usize,
    pub usable: usize,
}

impl PoolCounts {
    fn too_few(&self, dir: &Path, wanted: usize) -> SetError {
        SetError::Invalid(format!(
            "the pool {} has {} usable tasks and the month asks {wanted} (of its {} tasks: {} \
             already held by a set, {} near a goal held in clear, {} with the id of a generated \
             task of the month); nothing was created: add task files to the pool or draw fewer \
             from it",
            dir.display(),
            self.usable,
            self.tasks,
            self.held,
            self.near_clear,
            self.clash
        ))
    }
}

/// A month planned with a pool: its tasks (the generated ones, then the drawn ones), and what
/// the draw found.
#[derive(Debug)]
pub struct PoolPlan {
    pub tasks: Vec<Task>,
    pub generated: usize,
    pub drawn: usize,
    pub counts: PoolCounts,
}

/// How many of a month's `count` tasks come from the pool when not said: a quarter, at least 1.
pub fn default_from_pool(count: usize) -> usize {
    (count / 4).max(1)
}

fn check_from_pool(count: usize, from_pool: usize) -> Result<(), SetError> {
    if from_pool == 0 || from_pool > count {
        return Err(SetError::Invalid(format!(
            "a month of {count} tasks draws 1 to {count} of them from its pool, not {from_pool}"
        )));
    }
    Ok(())
}

/// The month `set` of `count` tasks, `from_pool` of them drawn from `pool` by `seed` and the
/// rest generated from it as `draw` says (apart from every goal held in clear and every goal of
/// the pool); every id carries the month. The same seed, store and families give the same
/// month.
pub fn plan_pool_month(
    seed: u64,
    set: &str,
    count: usize,
    from_pool: usize,
    pool: &TaskPool,
    stored: &Stored,
    draw: &Draw,
) -> Result<PoolPlan, SetError> {
    check_from_pool(count, from_pool)?;
    let held: HashSet<&str> = stored
        .task_ids
        .iter()
        .flat_map(|id| [id.as_str(), unsuffixed(id)])
        .collect();
    let clear: HashSet<&str> = stored.clear_goals.iter().map(String::as_str).collect();
    // One pass tells whether any pool goal comes near a clear one (the usual answer: none).
    let goals: Vec<String> = pool.tasks.iter().map(|t| t.goal.clone()).collect();
    let any_near = closest_goal(&goals, &stored.clear_goals) > MAX_GOAL_SIMILARITY;
    let near = |t: &Task| {
        clear.contains(t.goal.as_str())
            || (any_near
                && closest_goal(std::slice::from_ref(&t.goal), &stored.clear_goals)
                    > MAX_GOAL_SIMILARITY)
    };
    let mut counts = PoolCounts {
        tasks: pool.tasks.len(),
        ..PoolCounts::default()
    };
    let mut candidates = Vec::new();
    for (i, t) in pool.tasks.iter().enumerate() {
        if held.contains(t.id.as_str()) {
            counts.held += 1;
        } else if near(t) {
            counts.near_clear += 1;
        } else {
            candidates.push(i);
        }
    }
    counts.usable = candidates.len();
    if counts.usable < from_pool {
        return Err(counts.too_few(&pool.dir, from_pool));
    }

    let suffix = set.replace('-', "");
    let avoid: Vec<String> = stored.goals().into_iter().chain(goals).collect();
    let mut tasks = fresh_month(seed, count - from_pool, set, &avoid, draw)?;
    let generated: HashSet<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
    candidates.retain(|&i| {
        let clash = generated.contains(format!("{}-{suffix}", pool.tasks[i].id).as_str());
        counts.clash += usize::from(clash);
        !clash
    });
    counts.usable = candidates.len();
    if counts.usable < from_pool {
        return Err(counts.too_few(&pool.dir, from_pool));
    }

    Rng::new(seed, POOL_STREAM).shuffle(&mut candidates);
    let mut drawn = candidates[..from_pool].to_vec();
    drawn.sort_unstable();
    tasks.extend(drawn.iter().map(|&i| {
        let mut t = pool.tasks[i].clone();
        t.id = format!("{}-{suffix}", t.id);
        t
    }));
    Ok(PoolPlan {
        generated: count - from_pool,
        drawn: from_pool,
        tasks,
        counts,
    })
}

/// Creates the private draft `id` of `count` tasks, `from_pool` of them (by default
/// [`default_from_pool`]) drawn from the pool in `dir` and the rest generated, from one new
/// secret seed that is not kept: the sealed tasks are the set. Nothing is created on error.
pub async fn pool_draft(
    pool: &PgPool,
    custody: &Custody,
    id: &str,
    count: usize,
    dir: &Path,
    from_pool: Option<usize>,
) -> Result<PoolPlan, SetError> {
    if count == 0 || count > MAX_TASKS {
        return Err(SetError::Invalid(format!(
            "a set holds 1 to {MAX_TASKS} tasks, not {count}"
        )));
    }
    let from_pool = from_pool.unwrap_or_else(|| default_from_pool(count));
    check_from_pool(count, from_pool)?;
    let keyring = custody.keyring()?;
    if !mcpbench_attest::bundle::is_month(id) {
        return Err(SetError::Invalid(format!(
            "a private set is named by the month it is live, YYYY-MM (not {id:?})"
        )));
    }
    if sets::get(pool, id).await?.is_some() {
        return Err(SetError::Conflict(format!("set {id:?} already exists")));
    }
    let stored = Stored::read(pool, keyring).await?;
    let (families, share) = crate::month::families_and_share(pool, keyring, None).await?;
    let (set, dir) = (id.to_string(), dir.to_path_buf());
    let plan = tokio::task::spawn_blocking(move || {
        let tasks = TaskPool::read(&dir)?;
        let draw = Draw {
            families: &families,
            share,
        };
        plan_pool_month(
            secret_seed(),
            &set,
            count,
            from_pool,
            &tasks,
            &stored,
            &draw,
        )
    })
    .await
    .expect("planning a month does not panic")?;
    create_with(pool, custody, id, &plan.tasks, false, None, None).await?;
    tracing::info!(
        set = id,
        generated = plan.generated,
        from_pool = plan.drawn,
        pool_usable = plan.counts.usable,
        "draft set drawn partly from a private pool"
    );
    Ok(plan)
}
