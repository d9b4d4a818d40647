//! Worlds built once per initial state, shared by every run of it.
//!
//! A worker opens a run's world when the run starts, and its analysis builds the same world
//! three more times (the replay, the initial state the claims are judged against, the
//! reference's replay for the task's shape): four builds of one seed per run, about 1.1 ms each
//! for the dev set. Building is deterministic (the same seed gives the same state), so the
//! first build of a seed is kept, and later worlds share its servers, each copying a server only
//! when it first calls it (`slot.rs`). `cargo bench -p mcpbench-tasks --bench worlds` prints
//! what each costs.
//!
//! The key is the seed itself (its JSON) and the servers, so two tasks share an entry only when
//! their worlds are identical. The least recently used entry goes when [`CAPACITY`] is
//! reached; the runs that share its servers keep them until they end (a run of that seed
//! meanwhile builds it again, so for a while both count, postgres's towards its engine's
//! shared memory limit). Entries live in this process only; a private task's world is held here
//! as it is in its runs' own memory while they run. Only runs and their analyses come here
//! (`TaskRun`); checking a task builds its world without keeping it.

use crate::{InitialState, World, WorldError};
use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, MutexGuard};

/// Worlds kept: the tasks of a set in use (the dev set has 200) and room to spare. A dev-set
/// world holds about 0.5 MiB, so a full cache holds about 130 MiB, a fixed cost beside the
/// memory of the runs in flight. A postgres world is an in-memory SQLite database, which
/// counts towards that engine's shared heap limit (256 MiB); about a third of the dev set's
/// worlds have one.
pub const CAPACITY: usize = 256;

type Key = (Vec<String>, String);

struct Entry {
    // Every server of it kept (`Slot::Kept`): a run's world shares them until it calls one.
    world: World,
    used: u64,
}

#[derive(Default)]
struct Cache {
    entries: HashMap<Key, Entry>,
    clock: u64,
}

static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(Mutex::default);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl World {
    /// The named servers in the state `initial` gives them: the world built from the same seed
    /// before (each server copied when the run first calls it), or a new one, kept for next
    /// time.
    pub fn new(initial: &InitialState, servers: &[String]) -> Result<World, WorldError> {
        let seed = serde_json::to_string(initial).expect("a seed serializes");
        let key = (servers.to_vec(), seed);
        {
            let mut cache = lock(&CACHE);
            cache.clock += 1;
            let now = cache.clock;
            if let Some(e) = cache.entries.get_mut(&key) {
                e.used = now;
                return e.world.copy();
            }
        }
        let world = World::build(initial, servers)?.into_kept(initial);
        let shared = world.copy()?;
        let mut cache = lock(&CACHE);
        if cache.entries.contains_key(&key) {
            // Another run built the same seed meanwhile: its world is kept already.
            return Ok(shared);
        }
        if cache.entries.len() >= CAPACITY
            && let Some(oldest) = cache
                .entries
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(k, _)| k.clone())
        {
            cache.entries.remove(&oldest);
        }
        cache.clock += 1;
        let used = cache.clock;
        cache.entries.insert(key, Entry { world, used });
        Ok(shared)
    }
}

/// Worlds kept now (for tests and benchmarks).
pub fn cached_worlds() -> usize {
    lock(&CACHE).entries.len()
}
