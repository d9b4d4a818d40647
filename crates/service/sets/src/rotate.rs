//! Monthly rotation: next month's set from this month's, about a quarter of it fresh.
//!
//! Which tasks leave is drawn from the rotation's secret seed, the exposed ones first (tasks sent
//! to a vendor's own machine, docs/data.md "Exposed tasks"); each leaving task is replaced by
//! a fresh task generated from the same seed (most from the live private families, see
//! `month.rs`), of the same server, category and difficulty when the generator has one (else
//! the nearest), so the set keeps its shape. Fresh tasks carry the new month in their id
//! (`...-202612`), so a task id names one task across all months. Every
//! fresh task passes the validity proof of `mcpbench tasks check` before the draft is stored.

use crate::month::{Draw, FAMILY_STREAM, drew_nothing, fresh_month, opaque_ids};
use crate::{Custody, SetError, create_with, info, open_all};
use mcpbench_db::{PgPool, SetState, sets};
use mcpbench_pack::{generate_public, public_templates};
use mcpbench_sim::Rng;
use mcpbench_tasks::{GoalIndex, MAX_GOAL_SIMILARITY, Source, Task, check_tasks, generate_from};
use std::collections::HashSet;

/// The rotation's result, in set order.
#[derive(Debug)]
pub struct RotationPlan {
    pub tasks: Vec<Task>,
    /// Whether the task at each position was kept from the previous set.
    pub kept: Vec<bool>,
}

/// What a stored rotation did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rotation {
    pub kept: usize,
    pub replaced: usize,
    /// How many of the replaced tasks had been exposed.
    pub exposed_replaced: usize,
}

/// The next set from `previous`: `round(n * replace)` tasks replaced, drawn by `seed`, the
/// tasks whose ids are in `exposed` first (all of them when they are no more than the share;
/// else the seed draws which). No fresh task repeats or comes near (see
/// [`MAX_GOAL_SIMILARITY`]) a goal of `avoid`: the goals held in clear when the rotation is
/// made, so a private month never asks what a public set has shown. `draw.from_families` of the
/// replaced tasks (the first leaving positions in the seed's order) come from the private
/// families, the others from the public generator; every fresh task gets an id of the new
/// month that names no family. The plan is a pure function of its arguments: with the
/// revealed `previous`, seed and exposed list, the goals then public and the families drawn
/// from (revealed when the operator retires them), anyone can redo it.
pub fn plan_rotation(
    previous: &[Task],
    seed: u64,
    replace: f64,
    new_set: &str,
    avoid: &[String],
    exposed: &[String],
    draw: &Draw,
) -> Result<RotationPlan, SetError> {
    let n = previous.len();
    if n < 4 {
        return Err(SetError::Invalid(format!(
            "a set of {n} tasks is too small to rotate (4 or more)"
        )));
    }
    if !(0.05..=0.5).contains(&replace) {
        return Err(SetError::Invalid(format!(
            "a rotation replaces 5% to 50% of the tasks, not {:.0}%",
            replace * 100.0
        )));
    }
    let leaving_count = ((n as f64 * replace).round() as usize).clamp(1, n - 1);
    let mut order: Vec<usize> = (0..n).collect();
    Rng::new(seed, u64::MAX).shuffle(&mut order);
    // The exposed tasks first, in the seed's order among themselves; then the rest in it.
    let exposed: HashSet<&str> = exposed.iter().map(String::as_str).collect();
    order.sort_by_key(|&i| !exposed.contains(previous[i].id.as_str()));
    let mut leaving: HashSet<usize> = order[..leaving_count].iter().copied().collect();
    // An attacked task leaves with its twin (it is measured beside it); the fresh tasks that
    // take the places carry no attack, so every pair stays whole.
    let leaving_ids: HashSet<&str> = leaving.iter().map(|&i| previous[i].id.as_str()).collect();
    let followers: Vec<usize> = (0..n)
        .filter(|&i| {
            let twin = previous[i].attack.as_ref().and_then(|a| a.twin.as_deref());
            twin.is_some_and(|t| leaving_ids.contains(t))
        })
        .collect();
    leaving.extend(followers);
    // The first of the leaving positions, in the seed's order, take private families' tasks.
    let private: HashSet<usize> = order[..draw.from_families(leaving_count)]
        .iter()
        .copied()
        .collect();

    // No fresh task repeats a goal of the previous month: not a kept one (the set would hold
    // it twice), nor a leaving one, which the previous month reveals when it retires while
    // this one is still live.
    let previous_goals: HashSet<&str> = previous.iter().map(|t| t.goal.as_str()).collect();
    let public = GoalIndex::new(avoid);
    let apart = |tasks: Vec<Task>| -> Vec<Option<Task>> {
        tasks
            .into_iter()
            .filter(|t| t.attack.is_none() && !public.near(&t.goal, MAX_GOAL_SIMILARITY))
            .map(Some)
            .collect()
    };
    let mut candidates = apart(generate_public(seed, 3 * n, &[]).map_err(drew_nothing)?);
    let mut family_candidates = if private.is_empty() {
        Vec::new()
    } else {
        let family_seed = Rng::new(seed, FAMILY_STREAM).next_u64();
        let drawn = generate_from(
            &Source::new(draw.families, public_templates()),
            family_seed,
            3 * private.len(),
            avoid,
        )
        .map_err(|e| {
            SetError::Invalid(format!(
                "the private family {} failed every draw of a slot; `mcpbench tasks check \
                 --pack` on its pack shows why",
                e.template
            ))
        })?;
        apart(drawn)
    };
    let mut tasks = Vec::with_capacity(n);
    let mut kept = Vec::with_capacity(n);
    for (i, old) in previous.iter().enumerate() {
        if !leaving.contains(&i) {
            tasks.push(old.clone());
            kept.push(true);
            continue;
        }
        // The closest fresh task: same server, category and difficulty; then loosen.
        let fits: [&dyn Fn(&Task) -> bool; 4] = [
            &|t| {
                t.server == old.server
                    && t.category == old.category
                    && t.difficulty == old.difficulty
            },
            &|t| t.server == old.server && t.category == old.category,
            &|t| t.server == old.server,
            &|_| true,
        ];
        let pool = if private.contains(&i) {
            &mut family_candidates
        } else {
            &mut candidates
        };
        let pick = fits.iter().find_map(|fit| {
            pool.iter().position(|c| {
                c.as_ref()
                    .is_some_and(|t| fit(t) && !previous_goals.contains(t.goal.as_str()))
            })
        });
        let Some(at) = pick else {
            return Err(SetError::Invalid(
                "the generator ran out of fresh tasks for this rotation".into(),
            ));
        };
        tasks.push(pool[at].take().expect("a candidate not taken yet"));
        kept.push(false);
    }
    // Fresh tasks get ids of the new month that name no template or family.
    let kept_ids: HashSet<String> = previous.iter().map(|t| t.id.clone()).collect();
    let mut fresh: Vec<Task> = tasks
        .iter()
        .zip(&kept)
        .filter(|(_, k)| !**k)
        .map(|(t, _)| t.clone())
        .collect();
    opaque_ids(&mut fresh, seed, new_set, &kept_ids);
    let mut renamed = fresh.into_iter();
    for (t, k) in tasks.iter_mut().zip(&kept) {
        if !*k {
            *t = renamed.next().expect("one renamed task per fresh one");
        }
    }
    let fresh: Vec<Task> = tasks
        .iter()
        .zip(&kept)
        .filter(|(_, k)| !**k)
        .map(|(t, _)| t.clone())
        .collect();
    prove(&fresh)?;
    Ok(RotationPlan { tasks, kept })
}

/// The positions of the tasks that fail the validity proof of `mcpbench tasks check`.
pub(crate) fn prove_each(tasks: &[Task]) -> Vec<usize> {
    check_tasks(tasks)
        .iter()
        .enumerate()
        .filter(|(_, v)| !v.problems.is_empty())
        .map(|(i, _)| i)
        .collect()
}

/// The validity proof of `mcpbench tasks check`: references pass, doing nothing fails,
/// mutants fail.
pub(crate) fn prove(tasks: &[Task]) -> Result<(), SetError> {
    if let Some(problem) = mcpbench_tasks::twin_problems(tasks).first() {
        // Names the task only by its opaque id, as below.
        let id = problem.split(':').next().unwrap_or_default();
        return Err(SetError::Invalid(format!(
            "fresh task {id:?} is not paired with its twin: the generator is at fault"
        )));
    }
    match check_tasks(tasks)
        .into_iter()
        .find(|v| !v.problems.is_empty())
    {
        // The problems describe the task; they stay out of the error (an admin re-runs
        // `mcpbench tasks check` on the generator's output to read them).
        Some(bad) => Err(SetError::Invalid(format!(
            "fresh task {:?} fails its validity proof ({} problems): the generator is at fault",
            bad.id,
            bad.problems.len()
        ))),
        None => Ok(()),
    }
}

/// A secret seed from the operating system's generator.
pub fn secret_seed() -> u64 {
    let mut seed = [0u8; 8];
    getrandom::fill(&mut seed).expect("the operating system's random generator");
    u64::from_le_bytes(seed)
}

/// `count` fresh tasks for set `set` from `seed` from the public generator alone: see
/// [`fresh_month`].
pub fn fresh_tasks(
    seed: u64,
    count: usize,
    set: &str,
    avoid: &[String],
) -> Result<Vec<Task>, SetError> {
    fresh_month(seed, count, set, avoid, &Draw::public())
}

/// Creates a private draft of `count` tasks generated from a new secret seed, `share` of them
/// (by default [`crate::month::DEFAULT_PACK_SHARE`] when a private family is live, else none) drawn from the
/// live private families, apart from every goal in clear and every goal sealed in another
/// private set. The seed is not kept: the sealed tasks are the set. How many tasks came from
/// private families.
pub async fn generate_draft(
    pool: &PgPool,
    custody: &Custody,
    id: &str,
    count: usize,
    share: Option<f64>,
) -> Result<usize, SetError> {
    if count == 0 || count > crate::MAX_TASKS {
        return Err(SetError::Invalid(format!(
            "a set holds 1 to {} tasks, not {count}",
            crate::MAX_TASKS
        )));
    }
    let keyring = custody.keyring()?;
    let set = id.to_string();
    let (families, share) = crate::month::families_and_share(pool, keyring, share).await?;
    // Apart from every goal in clear and every goal sealed in another month.
    let avoid = crate::Stored::read(pool, keyring).await?.goals();
    let (tasks, private) = tokio::task::spawn_blocking(move || {
        let draw = Draw {
            families: &families,
            share,
        };
        let tasks = fresh_month(secret_seed(), count, &set, &avoid, &draw)?;
        Ok::<_, SetError>((tasks, draw.from_families(count)))
    })
    .await
    .expect("task generation does not panic")?;
    create_with(pool, custody, id, &tasks, false, None, None).await?;
    Ok(private)
}

/// The associated data a set's sealed rotation seed is bound to.
pub(crate) fn seed_place(set: &str) -> String {
    format!("task_sets/{set}/rotation_seed")
}

/// Rotates the active private set `from` into a new draft `to`, replacing `replace` of it.
/// The seed is kept sealed with the draft and revealed when `to` retires: with the revealed
/// `from` and the goals public at the time, anyone can redo [`plan_rotation`] and get `to`
/// exactly.
pub async fn rotate(
    pool: &PgPool,
    custody: &Custody,
    from: &str,
    to: &str,
    replace: f64,
    share: Option<f64>,
) -> Result<Rotation, SetError> {
    let source = info(pool, from).await?;
    if source.public || source.state != SetState::Active {
        return Err(SetError::Conflict(format!(
            "set {from:?} is not a live private set; rotation starts from the active month"
        )));
    }
    let keyring = custody.keyring()?;
    let opened = open_all(pool, keyring, from).await?;
    let previous: Vec<Task> = opened
        .iter()
        .map(|(_, task, _)| serde_json::from_value(task.clone()))
        .collect::<Result<_, _>>()
        .map_err(|_| SetError::Invalid(format!("a task of set {from:?} no longer loads")))?;
    let public = sets::clear_goals(pool).await?;
    let exposed = mcpbench_db::exposures::exposed_ids(pool, from).await?;
    let seed = secret_seed();
    let next = to.to_string();
    let given = exposed.clone();
    let (families, share) = crate::month::families_and_share(pool, keyring, share).await?;
    let plan = tokio::task::spawn_blocking(move || {
        let draw = Draw {
            families: &families,
            share,
        };
        plan_rotation(&previous, seed, replace, &next, &public, &given, &draw)
    })
    .await
    .expect("a rotation plan does not panic")?;
    let first_sets: Vec<String> = plan
        .kept
        .iter()
        .enumerate()
        .map(|(i, kept)| {
            // A kept task keeps its position's history; positions do not move in a rotation.
            if *kept {
                opened[i].2.clone()
            } else {
                to.to_string()
            }
        })
        .collect();
    let sealed_seed = keyring.seal(&seed_place(to), &seed.to_le_bytes());
    create_with(
        pool,
        custody,
        to,
        &plan.tasks,
        false,
        Some(&first_sets),
        Some((from, replace, &sealed_seed, &exposed)),
    )
    .await?;
    let kept = plan.kept.iter().filter(|k| **k).count();
    let exposed_replaced = opened
        .iter()
        .zip(&plan.kept)
        .filter(|((_, task, _), kept)| {
            !**kept
                && task["id"]
                    .as_str()
                    .is_some_and(|id| exposed.iter().any(|e| e == id))
        })
        .count();
    Ok(Rotation {
        kept,
        replaced: plan.tasks.len() - kept,
        exposed_replaced,
    })
}
