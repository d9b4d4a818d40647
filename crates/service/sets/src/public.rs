//! Public sets: a directory of task files published in clear under the id its manifest names.

use crate::{SetError, set_task};
use mcpbench_db::PgPool;
use mcpbench_db::sets::{self, SetTask};
use mcpbench_tasks::{DEV_SET_V1, Manifest, Task, check_set_id, load_dir};
use std::path::Path;

/// A directory of tasks read for publishing.
pub struct PublicSet {
    /// The id from the manifest; [`DEV_SET_V1`] (`dev`) when there is no manifest or it names
    /// no set.
    pub id: String,
    pub tasks: Vec<Task>,
}

impl PublicSet {
    /// Reads `dir`: every task must load, and there must be one.
    pub fn read(dir: &Path) -> Result<Self, SetError> {
        let id = Manifest::read(dir)
            .map_err(|e| {
                SetError::Invalid(format!("{}: {e}", dir.join("manifest.json").display()))
            })?
            .map_or_else(|| DEV_SET_V1.to_string(), |m| m.set);
        check_set_id(&id).map_err(|e| {
            SetError::Invalid(format!("{}: {e}", dir.join("manifest.json").display()))
        })?;
        let tasks = load_dir(dir).map_err(|errors| {
            let lines: Vec<String> = errors.iter().take(10).map(ToString::to_string).collect();
            SetError::Invalid(format!(
                "the tasks in {} do not load:\n{}",
                dir.display(),
                lines.join("\n")
            ))
        })?;
        if tasks.is_empty() {
            return Err(SetError::Invalid(format!(
                "{} holds no task files",
                dir.display()
            )));
        }
        Ok(Self { id, tasks })
    }

    /// Stores the set, active and in clear, under `id` (its own when `None`). Refused when the
    /// id already holds other tasks with results: those stay with the set they were run on.
    pub async fn publish(&self, pool: &PgPool, id: Option<&str>) -> Result<String, SetError> {
        let id = id.unwrap_or(&self.id);
        let rows: Vec<SetTask> = self.tasks.iter().map(set_task).collect();
        sets::put_public_set(pool, id, &rows).await?;
        Ok(id.to_string())
    }
}
