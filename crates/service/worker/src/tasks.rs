//! The tasks this worker has read, kept with what the analysis needs of each.
//!
//! A month's submissions run each task of a set fifty times or more. Every run still reads its
//! task from the database (a draft's task can be replaced, a private one is opened with the
//! keyring), but a task whose stored form this worker has seen before is not parsed again:
//! its runs share one copy, and the facts the analysis works out from the task alone (its shape,
//! its check's guards: two passes over its world) are worked out once, on first use.
//!
//! The key is the set, the task's id and the distractor level; the stored form's digest
//! decides whether what is kept is still the task as stored.

use mcpbench_analysis::TaskFacts;
use mcpbench_tasks::{Level, Task, with_distractors};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Tasks kept at most; past it the memory starts over. A set has a few hundred tasks and a
/// worker runs a few sets at once; a kept task weighs about what one run's copy did.
const MAX_KEPT: usize = 1024;

/// A task as its runs use it.
pub(crate) struct Prepared {
    pub task: Arc<Task>,
    facts: OnceLock<Option<TaskFacts>>,
}

impl Prepared {
    /// The task stored as `json`, with `level`'s distractors added.
    pub fn read(json: Value, level: Option<Level>) -> Result<Arc<Self>, Unreadable> {
        let task: Task =
            serde_json::from_value(json).map_err(|_| "the stored task could not be read back")?;
        let task = match level {
            Some(level) => with_distractors(&task, level),
            None => task,
        };
        Ok(Arc::new(Self {
            task: Arc::new(task),
            facts: OnceLock::new(),
        }))
    }

    /// The task's facts, worked out on the first call (CPU-bound: call it where blocking is
    /// fine); `None` when the task's world cannot be built, which its check ruled out.
    pub fn facts(&self) -> Option<&TaskFacts> {
        self.facts
            .get_or_init(|| {
                TaskFacts::of(&self.task)
                    .inspect_err(
                        |e| tracing::warn!(error = %e, "a task's facts could not be found"),
                    )
                    .ok()
            })
            .as_ref()
    }
}

/// The set, the task's id, the distractor level.
type Key = (String, String, Option<Level>);
/// The stored form's digest and the task made from it.
type Kept = ([u8; 32], Arc<Prepared>);

#[derive(Default)]
pub(crate) struct Tasks {
    kept: Mutex<HashMap<Key, Kept>>,
}

/// Why a stored task could not be made ready; the text never quotes the task.
pub(crate) type Unreadable = &'static str;

impl Tasks {
    /// Task `task_id` of `set` as stored (`json`), with `level`'s distractors added.
    pub fn prepare(
        &self,
        set: &str,
        task_id: &str,
        level: Option<Level>,
        json: Value,
    ) -> Result<Arc<Prepared>, Unreadable> {
        let digest = digest(&json);
        let key = (set.to_owned(), task_id.to_owned(), level);
        if let Some((seen, prepared)) = self.kept.lock().expect("never poisoned").get(&key)
            && *seen == digest
        {
            return Ok(prepared.clone());
        }
        let prepared = Prepared::read(json, level)?;
        let mut kept = self.kept.lock().expect("never poisoned");
        if kept.len() >= MAX_KEPT {
            kept.clear();
        }
        kept.insert(key, (digest, prepared.clone()));
        Ok(prepared)
    }
}

/// The SHA-256 of the stored form's JSON text.
fn digest(json: &Value) -> [u8; 32] {
    struct Hashing(Sha256);
    impl std::io::Write for Hashing {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.update(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut hashing = Hashing(Sha256::new());
    serde_json::to_writer(&mut hashing, json).expect("a JSON value always serializes");
    hashing.0.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(goal: &str) -> Value {
        let mut task = serde_json::to_value(
            mcpbench_tasks::load_task(
                concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/../../../tasks/dev/fs-replace-setting-0100.json"
                )
                .as_ref(),
            )
            .unwrap(),
        )
        .unwrap();
        task["goal"] = goal.into();
        task
    }

    #[test]
    fn a_task_stored_the_same_is_read_once_and_a_replaced_one_again() {
        let tasks = Tasks::default();
        let first = tasks.prepare("s", "t", None, stored("Goal one.")).unwrap();
        let again = tasks.prepare("s", "t", None, stored("Goal one.")).unwrap();
        assert!(
            Arc::ptr_eq(&first, &again),
            "the same stored form is read once"
        );
        let replaced = tasks.prepare("s", "t", None, stored("Goal two.")).unwrap();
        assert!(!Arc::ptr_eq(&first, &replaced));
        assert_eq!(replaced.task.goal, "Goal two.");
        let other_set = tasks.prepare("s2", "t", None, stored("Goal two.")).unwrap();
        assert!(!Arc::ptr_eq(&replaced, &other_set), "sets do not share");
        let all = tasks
            .prepare("s", "t", Some(Level::All), stored("Goal two."))
            .unwrap();
        assert!(!Arc::ptr_eq(&replaced, &all), "nor distractor levels");
        assert!(all.task.available_tools.len() > replaced.task.available_tools.len());
        assert!(
            tasks
                .prepare("s", "t", None, serde_json::json!({"id": 1}))
                .is_err(),
            "a damaged row is refused, not served from memory"
        );
    }

    #[test]
    fn the_facts_are_the_task_s() {
        let tasks = Tasks::default();
        let prepared = tasks.prepare("s", "t", None, stored("Goal.")).unwrap();
        let facts = prepared.facts().expect("a checked task's world builds");
        assert_eq!(
            format!("{facts:?}"),
            format!("{:?}", TaskFacts::of(&prepared.task).unwrap())
        );
    }
}
