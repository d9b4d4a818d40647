//! One server of a run's world, copied when the run first calls it.
//!
//! A task offers more servers than a run calls (distractors, and the servers only some paths
//! through the task need), and copying a server's state is most of what opening a run costs,
//! in time and in memory. So a new world shares each server's kept state (the one its seed
//! built, never changed) and a run copies a server only on its first call there. Reading a
//! server the run never called (a predicate, a snapshot) reads the kept state: it is the same.

use mcpbench_sim::{SeedError, Simulated};
use std::sync::{Arc, Mutex, MutexGuard};

/// A server's state as its seed built it, shared by every run of that seed until each copies it.
pub(crate) struct Kept<T: Simulated> {
    // Behind a lock: copying or reading a postgres server uses its connection, which is one
    // thread's at a time.
    state: Mutex<T>,
    // To build the state afresh when a copy is refused (postgres's engine has a memory limit).
    seed: T::Seed,
}

pub(crate) enum Slot<T: Simulated> {
    /// The run's own state: it has called this server.
    Own(T),
    /// Not called yet: the state kept for the seed.
    Kept(Arc<Kept<T>>),
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<T: Simulated> Slot<T> {
    /// A state that every later copy of the world shares until it calls the server.
    pub(crate) fn keep(state: T, seed: T::Seed) -> Self {
        Slot::Kept(Arc::new(Kept {
            state: Mutex::new(state),
            seed,
        }))
    }

    /// Another world's slot for the same server: shares what is kept, copies what is owned.
    pub(crate) fn copy(&self) -> Result<Self, SeedError> {
        match self {
            Slot::Own(state) => state.copy().map(Slot::Own),
            Slot::Kept(kept) => Ok(Slot::Kept(kept.clone())),
        }
    }

    /// The run's own state, copied from the kept one on first use (or built afresh from the
    /// seed when the copy is refused).
    pub(crate) fn own(&mut self) -> Result<&mut T, SeedError> {
        if let Slot::Kept(kept) = self {
            let copied = lock(&kept.state).copy();
            *self = Slot::Own(copied.or_else(|_| T::from_seed(&kept.seed))?);
        }
        match self {
            Slot::Own(state) => Ok(state),
            Slot::Kept(_) => unreachable!("the state was made the run's own above"),
        }
    }

    /// Reads the state, whichever it is.
    pub(crate) fn read<R>(&self, f: impl FnOnce(&T) -> R) -> R {
        match self {
            Slot::Own(state) => f(state),
            Slot::Kept(kept) => f(&lock(&kept.state)),
        }
    }

    pub(crate) fn is_own(&self) -> bool {
        matches!(self, Slot::Own(_))
    }
}
