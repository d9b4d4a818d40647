//! A month's fresh tasks: most drawn from the deployment's private families (by default three
//! quarters of them, when any family is live), the rest from the public generator, all apart
//! from every goal held in clear or sealed in another month, each proven valid.
//!
//! The two kinds are shuffled together, and every id is the task's server, six hex digits the
//! secret seed derives and the month (`shop-3f9a0c-202611`): an id names neither the family
//! nor the template, and says nothing of which tasks are private families.

use crate::SetError;
use crate::rotate::prove;
use mcpbench_pack::{generate_public, public_templates};
use mcpbench_sim::Rng;
use mcpbench_tasks::{
    GenerateError, MAX_GOAL_SIMILARITY, Source, Task, closest_goal, generate_from,
};
use mcpbench_world::{AnyTemplate, short_name};
use sha2::{Digest, Sha256};
use std::collections::HashSet;

/// The share of a month's fresh tasks drawn from private families when not said.
pub const DEFAULT_PACK_SHARE: f64 = 0.75;

/// The streams of the secret seed the private families and the shuffle take (the generator's
/// slots, the pool and the rotation take others).
pub(crate) const FAMILY_STREAM: u64 = u64::MAX - 2;
const ORDER_STREAM: u64 = u64::MAX - 3;

/// What a month's fresh tasks are drawn from: the live private families, and the share of the
/// tasks they give.
#[derive(Clone, Copy)]
pub struct Draw<'a> {
    pub families: &'a [AnyTemplate],
    pub share: f64,
}

impl Draw<'_> {
    /// The public generator alone.
    pub fn public() -> Draw<'static> {
        Draw {
            families: &[],
            share: 0.0,
        }
    }

    /// How many of `count` fresh tasks come from the families.
    pub fn from_families(&self, count: usize) -> usize {
        if self.families.is_empty() {
            0
        } else {
            ((count as f64 * self.share).round() as usize).min(count)
        }
    }
}

/// Checks a share asked for: 0 to 1, and more than 0 only when a family is live.
pub fn check_share(share: f64, families: usize) -> Result<(), SetError> {
    if !(0.0..=1.0).contains(&share) {
        return Err(SetError::Invalid(format!(
            "the share of tasks drawn from private families is 0 to 1, not {share}"
        )));
    }
    if share > 0.0 && families == 0 {
        return Err(SetError::Invalid(
            "no private family is live: add a pack (`mcpbench admin pack add DIR`) or draw with \
             a share of 0"
                .into(),
        ));
    }
    Ok(())
}

/// The live private families and the share a month draws from them: `share` when asked
/// (checked), else [`DEFAULT_PACK_SHARE`] when a family is live, else none.
pub(crate) async fn families_and_share(
    pool: &mcpbench_db::PgPool,
    keyring: &mcpbench_vault::Keyring,
    share: Option<f64>,
) -> Result<(Vec<AnyTemplate>, f64), SetError> {
    let families = crate::packs::live_families(pool, keyring).await?;
    let share = match share {
        Some(s) => {
            check_share(s, families.len())?;
            s
        }
        None if families.is_empty() => 0.0,
        None => DEFAULT_PACK_SHARE,
    };
    Ok((families, share))
}

/// A public family that failed every draw of a slot: a defect of the build, never of a month
/// (the public pack's tests draw thousands of tasks), said with the family's name.
pub(crate) fn drew_nothing(e: GenerateError) -> SetError {
    SetError::Invalid(format!(
        "the public family {} failed every draw of a slot",
        e.template
    ))
}

/// `count` fresh tasks for the month `set` from `seed`, `draw.from_families(count)` of them from
/// the private families, none of whose goals repeats or comes near (see
/// [`MAX_GOAL_SIMILARITY`]) a goal of `avoid`, each proven valid, with ids that name no family.
pub fn fresh_month(
    seed: u64,
    count: usize,
    set: &str,
    avoid: &[String],
    draw: &Draw,
) -> Result<Vec<Task>, SetError> {
    let private = draw.from_families(count);
    let mut tasks = generate_public(seed, count - private, avoid).map_err(drew_nothing)?;
    if private > 0 {
        let mut apart: Vec<String> = avoid.to_vec();
        apart.extend(tasks.iter().map(|t| t.goal.clone()));
        let family_seed = Rng::new(seed, FAMILY_STREAM).next_u64();
        let drawn = generate_from(
            &Source::new(draw.families, public_templates()),
            family_seed,
            private,
            &apart,
        )
        // Names the family, which is the operator's to read; the error never quotes a task.
        .map_err(|e| {
            SetError::Invalid(format!(
                "the private family {} failed every draw of a slot; `mcpbench tasks check \
                 --pack` on its pack shows why",
                e.template
            ))
        })?;
        tasks.extend(drawn);
    }
    // A month holds no attacked twins yet: a twin repeats its task's goal, and a month's goals
    // are kept unique and apart (the security category is measured on the public sets).
    tasks.retain(|t| t.attack.is_none());
    let goals: Vec<String> = tasks.iter().map(|t| t.goal.clone()).collect();
    let closest = closest_goal(&goals, avoid);
    if closest > MAX_GOAL_SIMILARITY {
        // Names no goal: the message may be shown, and the goals are private.
        return Err(SetError::Invalid(format!(
            "a generated goal comes too near one held in clear, sealed in another month or in \
             the pool (similarity {closest:.2}); generate again"
        )));
    }
    Rng::new(seed, ORDER_STREAM).shuffle(&mut tasks);
    opaque_ids(&mut tasks, seed, set, &HashSet::new());
    prove(&tasks)?;
    Ok(tasks)
}

/// Gives every task of `tasks` an id of its server, six hex digits of SHA-256 over the seed and
/// the task's place, and the month `set` (`shop-3f9a0c-202611`), none in `taken` and no two
/// alike; an attacked task's twin is named by its new id.
pub fn opaque_ids(tasks: &mut [Task], seed: u64, set: &str, taken: &HashSet<String>) {
    let suffix = set.replace('-', "");
    let mut used: HashSet<String> = taken.clone();
    let mut renamed = std::collections::HashMap::new();
    for (place, task) in tasks.iter_mut().enumerate() {
        let prefix = short_name(&task.server).unwrap_or("task");
        let mut salt = 0u64;
        let id = loop {
            let mut h = Sha256::new();
            h.update(b"mcpbench/task-id\0");
            h.update(seed.to_le_bytes());
            h.update((place as u64).to_le_bytes());
            h.update(salt.to_le_bytes());
            let id = format!("{prefix}-{}-{suffix}", &hex::encode(h.finalize())[..6]);
            if !used.contains(&id) {
                break id;
            }
            salt += 1;
        };
        used.insert(id.clone());
        renamed.insert(std::mem::replace(&mut task.id, id.clone()), id);
    }
    for attack in tasks.iter_mut().filter_map(|t| t.attack.as_mut()) {
        if let Some(new) = attack.twin.as_ref().and_then(|t| renamed.get(t)) {
            attack.twin = Some(new.clone());
        }
    }
}
