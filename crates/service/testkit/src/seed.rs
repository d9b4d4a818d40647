//! The dev set, a vendor and submissions, put in a test's database.

use mcpbench_db::{PgPool, SubmissionStatus, sets, submissions, vendors};
use mcpbench_tasks::Task;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use uuid::Uuid;

/// The checkout's root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

/// The first `n` tasks of the dev set, in file order, the attacked twins aside (a twin
/// without its task is no pair; a test of the security category picks from [`dev_set`]).
pub fn dev_tasks(n: usize) -> Vec<Task> {
    let mut tasks = dev_set();
    tasks.retain(|t| t.attack.is_none());
    tasks.truncate(n);
    tasks
}

/// Every task of the dev set, the attacked twins included, in file order.
pub fn dev_set() -> Vec<Task> {
    mcpbench_tasks::load_dir(&workspace().join("tasks/dev")).expect("the dev set loads")
}

/// `tasks` as the public set `dev`.
pub async fn put_dev_set(pool: &PgPool, tasks: &[Task]) {
    let set: Vec<sets::SetTask> = tasks.iter().map(mcpbench_sets::set_task).collect();
    sets::put_public_set(pool, "dev", &set)
        .await
        .expect("the dev set is stored");
}

/// A new vendor named `name` (not an admin, not trusted); its id.
pub async fn vendor(pool: &PgPool, name: &str) -> i64 {
    let (vendor, _) = vendors::create(pool, name, false, false)
        .await
        .expect("the vendor is stored");
    vendor.id
}

/// A submission of the agent at `endpoint` over the set `dev`: one trial per task, three
/// attempts a job, unless the fields say otherwise.
pub struct Submit<'a> {
    pub vendor: i64,
    /// The set, `dev` by default.
    pub set: &'a str,
    pub endpoint: &'a str,
    pub name: &'a str,
    pub signing_secret: &'a [u8],
    pub trials: i32,
    pub max_attempts: i32,
}

impl<'a> Submit<'a> {
    pub fn new(vendor: i64, endpoint: &'a str) -> Self {
        Self {
            vendor,
            set: "dev",
            endpoint,
            name: "agent",
            signing_secret: b"k",
            trials: 1,
            max_attempts: 3,
        }
    }

    /// Stores the submission (queueing its jobs); its id.
    pub async fn create(&self, pool: &PgPool) -> Uuid {
        let new = submissions::NewSubmission {
            vendor_id: self.vendor,
            set_id: self.set,
            name: self.name,
            model: self.name,
            agent: submissions::Agent::Endpoint(self.endpoint),
            signing_secret: self.signing_secret,
            trials: self.trials,
            max_attempts: self.max_attempts,
            monthly_quota: None,
            max_open: None,
            distractors: None,
            about: &Default::default(),
            webhook_url: None,
        };
        submissions::create(pool, &new)
            .await
            .expect("the submission is stored")
    }
}

/// Waits up to `limit` for submission `id` to complete; panics if it ends otherwise or the
/// limit passes.
pub async fn completed(pool: &PgPool, id: Uuid, limit: Duration) {
    let deadline = Instant::now() + limit;
    loop {
        let (status, _, _) = submissions::progress(pool, id)
            .await
            .expect("the submission's progress reads");
        if status == SubmissionStatus::Completed {
            return;
        }
        assert!(status.is_open(), "the submission ended {status}");
        assert!(Instant::now() < deadline, "the submission did not complete");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
