//! Months drawn partly from a private pool of task files, against a real PostgreSQL: the pool
//! tasks are sealed like generated ones, each goes into one month only, an exhausted or broken
//! pool is refused with nothing created, and no error or log line holds a pool task's goal.

mod support;

use mcpbench_db::{PgPool, sets};
use mcpbench_sets::{Draw, PoolCounts, SetError, Stored, TaskPool, plan_pool_month, pool_draft};
use mcpbench_tasks::{Task, load_dir};
use std::collections::HashSet;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use support::{custody, fresh, opened, pg_dump, workspace};

/// Every log line of this test binary.
static LOGS: Mutex<Vec<u8>> = Mutex::new(Vec::new());

struct Capture;

impl Write for Capture {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        LOGS.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn capture_logs() {
    let _ = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(|| Capture)
        .try_init();
}

fn logs() -> String {
    String::from_utf8_lossy(&LOGS.lock().unwrap()).into_owned()
}

/// The dev set's tasks, the attacked twins aside (a month holds none).
fn dev() -> Vec<Task> {
    let mut tasks = load_dir(&workspace().join("tasks/dev")).unwrap();
    tasks.retain(|t| t.attack.is_none());
    tasks
}

/// A marker made of letters only (a digit could become the answer a no-skill strategy gives).
fn marker(i: usize) -> String {
    let letters: String = [i / 26 % 26, i % 26]
        .iter()
        .map(|&d| char::from(b'a' + d as u8))
        .collect();
    format!("private marker zq{letters}xv")
}

/// The pool: dev tasks from `from` on, with ids and goals of their own, so that finding one of
/// these goals anywhere is a leak.
fn pool_tasks(from: usize, n: usize) -> Vec<Task> {
    dev()
        .into_iter()
        .skip(from)
        .take(n)
        .enumerate()
        .map(|(i, mut t)| {
            t.id = format!("pool-{}", t.id);
            t.goal = format!("{} ({})", t.goal, marker(from + i));
            t
        })
        .collect()
}

fn write(dir: &Path, tasks: &[Task]) {
    for t in tasks {
        let text = serde_json::to_string_pretty(t).unwrap();
        std::fs::write(dir.join(format!("{}.json", t.id)), text).unwrap();
    }
}

/// The first 40 dev tasks, published: the goals held in clear.
async fn publish_dev(pool: &PgPool) -> Vec<Task> {
    let public: Vec<Task> = dev().into_iter().take(40).collect();
    let rows: Vec<_> = public.iter().map(mcpbench_sets::set_task).collect();
    sets::put_public_set(pool, "dev", &rows).await.unwrap();
    public
}

fn assert_no_goal(text: &str, goals: &[String]) {
    assert!(
        !text.contains("private marker"),
        "a pool goal leaked: {text}"
    );
    for g in goals {
        assert!(!text.contains(g.as_str()), "a pool goal leaked: {text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_month_draws_sealed_pool_tasks_the_next_month_others_and_an_exhausted_pool_is_refused() {
    capture_logs();
    let (pool, url) = fresh().await;
    let custody = &custody();
    let public = publish_dev(&pool).await;
    let dir = tempfile::tempdir().unwrap();
    let mut secret = pool_tasks(100, 8);
    // A ninth pool task repeats a goal anyone may have read: it is never drawn.
    let mut near = public[3].clone();
    near.id = "pool-known-goal".into();
    write(dir.path(), &secret);
    write(dir.path(), std::slice::from_ref(&near));
    secret.sort_by(|a, b| a.id.cmp(&b.id));
    let goals: Vec<String> = secret.iter().map(|t| t.goal.clone()).collect();
    let pool_goal = |t: &Task| goals.contains(&t.goal);

    let plan = pool_draft(&pool, custody, "2026-11", 6, dir.path(), Some(3))
        .await
        .unwrap();
    assert_eq!((plan.generated, plan.drawn), (3, 3));
    assert_eq!(
        plan.counts,
        PoolCounts {
            tasks: 9,
            held: 0,
            near_clear: 1,
            clash: 0,
            usable: 8
        }
    );
    // Sealed like the rest: every row, nothing of it public, no goal in the database.
    let info = sets::get(&pool, "2026-11").await.unwrap().unwrap();
    assert_eq!((info.tasks, info.sealed, info.public), (6, 6, false));
    let november = opened(&pool, custody, "2026-11").await;
    let drawn: Vec<&Task> = november.iter().filter(|t| pool_goal(t)).collect();
    assert_eq!(drawn.len(), 3, "K pool tasks, by goal");
    for t in &drawn {
        let source = secret.iter().find(|s| s.goal == t.goal).unwrap();
        assert_eq!(t.id, format!("{}-202611", source.id), "the month's suffix");
        let mut unsuffixed = (*t).clone();
        unsuffixed.id = source.id.clone();
        assert_eq!(&unsuffixed, source, "drawn as the file holds it");
    }
    assert!(november.iter().all(|t| t.goal != near.goal));
    assert!(november.iter().all(|t| t.id.ends_with("-202611")));
    mcpbench_sets::activate(&pool, custody, "2026-11")
        .await
        .unwrap();
    let filter = sets::TaskFilter::default;
    assert!(
        sets::public_tasks(&pool, "2026-11", filter(), None, 50)
            .await
            .unwrap()
            .is_empty()
    );
    for t in &drawn {
        assert!(
            sets::public_task(&pool, "2026-11", &t.id)
                .await
                .unwrap()
                .is_none()
        );
    }
    let dump = pg_dump(&url);
    assert!(dump.contains(&drawn[0].id), "the dump holds the set's rows");
    assert_no_goal(&dump, &goals);

    // The next month draws other pool tasks: November holds those, live.
    let plan = pool_draft(&pool, custody, "2026-12", 5, dir.path(), Some(3))
        .await
        .unwrap();
    assert_eq!((plan.counts.held, plan.counts.usable), (3, 5));
    let december = opened(&pool, custody, "2026-12").await;
    let again: Vec<&Task> = december.iter().filter(|t| pool_goal(t)).collect();
    assert_eq!(again.len(), 3);
    assert!(
        again.iter().all(|t| drawn.iter().all(|d| d.goal != t.goal)),
        "a pool task goes into one month only"
    );

    // Two are left: a month asking three is refused, says why in counts, and creates nothing.
    let err = pool_draft(&pool, custody, "2027-01", 6, dir.path(), Some(3))
        .await
        .unwrap_err();
    let SetError::Invalid(message) = &err else {
        panic!("{err:?}")
    };
    for part in [
        "2 usable tasks",
        "asks 3",
        "of its 9 tasks",
        "6 already held by a set",
        "1 near a goal held in clear",
        "nothing was created",
    ] {
        assert!(message.contains(part), "{part:?} in {message}");
    }
    assert_no_goal(message, &goals);
    assert!(sets::get(&pool, "2027-01").await.unwrap().is_none());
    assert_eq!(sets::list(&pool, 10).await.unwrap().len(), 3);

    let logs = logs();
    assert!(
        logs.contains("draft set drawn partly from a private pool"),
        "the logs are captured: {logs}"
    );
    assert_no_goal(&logs, &goals);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pool_that_is_missing_empty_broken_or_invalid_is_refused_by_file_and_nothing_is_created()
{
    capture_logs();
    let (pool, _) = fresh().await;
    let custody = &custody();
    let root = tempfile::tempdir().unwrap();
    let refused = |dir: &Path, wants: &[&str]| {
        let (pool, dir) = (pool.clone(), dir.to_path_buf());
        let wants: Vec<String> = wants.iter().map(|w| w.to_string()).collect();
        async move {
            let err = pool_draft(&pool, custody, "2026-11", 4, &dir, None)
                .await
                .unwrap_err();
            let message = err.to_string();
            assert!(matches!(err, SetError::Invalid(_)), "{err:?}");
            for want in &wants {
                assert!(message.contains(want.as_str()), "{want:?} in {message}");
            }
            assert_no_goal(&message, &[]);
            assert!(sets::list(&pool, 10).await.unwrap().is_empty());
        }
    };
    refused(&root.path().join("nowhere"), &["is not a directory"]).await;
    let empty = root.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    refused(&empty, &["holds no task files"]).await;

    let good = pool_tasks(120, 3);
    let make = |name: &str, extra: &[(&str, String)]| {
        let dir = root.path().join(name);
        std::fs::create_dir(&dir).unwrap();
        write(&dir, &good);
        for (file, text) in extra {
            std::fs::write(dir.join(file), text).unwrap();
        }
        dir
    };
    // Not JSON; a field of the wrong type (serde would quote the value); a file named for
    // another id.
    let mut wrong_type = serde_json::to_value(&pool_tasks(123, 1)[0]).unwrap();
    wrong_type["max_steps"] = format!("{} steps", marker(0)).into();
    let mut misnamed = pool_tasks(124, 1).remove(0);
    misnamed.id = "pool-misnamed".into();
    let broken = make(
        "broken",
        &[
            ("pool-not-json.json", format!("{{\"goal\": \"{}", marker(1))),
            ("pool-wrong-type.json", wrong_type.to_string()),
            (
                "pool-other-name.json",
                serde_json::to_string(&misnamed).unwrap(),
            ),
        ],
    );
    refused(
        &broken,
        &[
            "do not load (3)",
            "pool-not-json.json",
            "pool-wrong-type.json",
            "pool-other-name.json",
            "mcpbench tasks check",
        ],
    )
    .await;

    // Loads, but fails its validity proof (the goal mentions MCP).
    let mut invalid = pool_tasks(125, 1).remove(0);
    invalid.goal = format!("{} through MCP", invalid.goal);
    let dir = make("invalid", &[]);
    write(&dir, std::slice::from_ref(&invalid));
    refused(
        &dir,
        &[
            "fail their validity proof (1)",
            &format!("{}.json", invalid.id),
        ],
    )
    .await;

    // Two files with one goal.
    let mut twin = good[0].clone();
    twin.id = "pool-twin".into();
    let dir = make("twins", &[]);
    write(&dir, std::slice::from_ref(&twin));
    refused(&dir, &["hold the same goal", "pool-twin.json"]).await;

    // An id the month's suffix would take past 80 characters.
    let mut long = pool_tasks(126, 1).remove(0);
    long.id = format!("pool-{}", "x".repeat(69));
    let dir = make("long", &[]);
    write(&dir, std::slice::from_ref(&long));
    refused(&dir, &["more than 73 characters"]).await;

    // K out of its bounds is refused before the pool is read.
    for k in [0, 5] {
        let err = pool_draft(&pool, custody, "2026-11", 4, &empty, Some(k))
            .await
            .unwrap_err();
        assert!(err.to_string().contains("draws 1 to 4"), "{err}");
    }
    let goals: Vec<String> = good.iter().map(|t| t.goal.clone()).collect();
    assert_no_goal(&logs(), &goals);
}

#[test]
fn the_draw_is_fixed_by_the_seed_and_keeps_apart_from_held_ids_and_generated_ones() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &pool_tasks(130, 8));
    let pool = TaskPool::read(dir.path()).unwrap();
    let ids: Vec<String> = pool.tasks().iter().map(|t| t.id.clone()).collect();
    // One pool task went into an earlier month (its id there carries the month), another is
    // held by a set under its own id.
    let stored = Stored {
        task_ids: vec![format!("{}-202610", ids[0]), ids[1].clone()],
        clear_goals: vec![],
        sealed_goals: vec![],
    };
    let draw = |seed: u64| {
        let plan = plan_pool_month(seed, "2026-11", 5, 3, &pool, &stored, &Draw::public()).unwrap();
        assert_eq!(plan.counts.held, 2);
        assert_eq!(plan.tasks.len(), 5);
        plan.tasks
    };
    let from_pool = |tasks: &[Task]| -> HashSet<String> {
        tasks
            .iter()
            .filter(|t| t.id.starts_with("pool-"))
            .map(|t| t.id.clone())
            .collect()
    };
    let a = draw(1);
    assert_eq!(a, draw(1), "the same seed, the same month");
    let picked = from_pool(&a);
    assert_eq!(picked.len(), 3);
    assert!(!picked.contains(&format!("{}-202611", ids[0])));
    assert!(!picked.contains(&format!("{}-202611", ids[1])));
    let seeds_differ = (2..10).any(|s| from_pool(&draw(s)) != picked);
    assert!(seeds_differ, "the draw follows the seed");

    // A pool task whose id is a generated task's of the same month is left out.
    let generated = a.iter().find(|t| !t.id.starts_with("pool-")).unwrap();
    let base = generated.id.strip_suffix("-202611").unwrap();
    let clashing = dir.path().join(format!("{}.json", ids[7]));
    let mut renamed: Task = serde_json::from_slice(&std::fs::read(&clashing).unwrap()).unwrap();
    std::fs::remove_file(&clashing).unwrap();
    renamed.id = base.to_string();
    write(dir.path(), &[renamed]);
    let pool = TaskPool::read(dir.path()).unwrap();
    let plan = plan_pool_month(1, "2026-11", 5, 3, &pool, &stored, &Draw::public()).unwrap();
    assert_eq!((plan.counts.clash, plan.counts.usable), (1, 5));
    let ids: HashSet<&str> = plan.tasks.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids.len(), 5, "ids stay unique");
    assert_eq!(mcpbench_sets::default_from_pool(200), 50);
    assert_eq!(mcpbench_sets::default_from_pool(3), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_month_keeps_apart_from_the_goals_sealed_in_other_months() {
    let (pool, _) = fresh().await;
    let custody = &custody();
    let keyring = custody.keyring.as_ref().expect("a keyring");
    let public = publish_dev(&pool).await;
    mcpbench_sets::generate_draft(&pool, custody, "2026-11", 12, None)
        .await
        .unwrap();
    let mut sealed: Vec<String> = opened(&pool, custody, "2026-11")
        .await
        .into_iter()
        .map(|t| t.goal)
        .collect();
    sealed.sort_unstable();
    // Opened in memory only: the goals are found although the store holds them sealed.
    let stored = Stored::read(&pool, keyring).await.unwrap();
    assert_eq!(stored.sealed_goals, sealed);
    let avoid = stored.goals();
    for goal in sealed.iter().chain(public.iter().map(|t| &t.goal)) {
        assert!(
            avoid.contains(goal),
            "a goal the next month must avoid is missing"
        );
    }
    mcpbench_sets::generate_draft(&pool, custody, "2026-12", 12, None)
        .await
        .unwrap();
    let next = opened(&pool, custody, "2026-12").await;
    assert!(next.iter().all(|t| !sealed.contains(&t.goal)));
}
