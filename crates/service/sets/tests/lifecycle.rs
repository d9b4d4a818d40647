//! A private set's life against a real PostgreSQL: sealed at rest (a `pg_dump` holds no goal),
//! committed at go-live, revealed at retirement in a bundle both verifiers accept, rotated
//! into next month's draft.

mod support;

use mcpbench_db::sets;
use mcpbench_sets::{Custody, SetError};
use mcpbench_tasks::{Task, load_dir};
use std::process::Command;
use support::{custody, fresh, pg_dump, workspace};

/// Dev tasks with goals no public file holds, so that finding one anywhere is a leak.
/// Records `tasks` of `set` as sent to a hosted endpoint of a vendor; their ids, sorted.
async fn expose(pool: &mcpbench_db::PgPool, set: &str, tasks: &[&str]) -> Vec<String> {
    let (vendor, _) = mcpbench_db::vendors::create(pool, "hosted", false, false)
        .await
        .unwrap();
    let submission = mcpbench_db::submissions::create(
        pool,
        &mcpbench_db::submissions::NewSubmission {
            vendor_id: vendor.id,
            set_id: set,
            name: "n",
            model: "m",
            agent: mcpbench_db::submissions::Agent::Endpoint("https://agent.example/"),
            signing_secret: b"k",
            trials: 1,
            max_attempts: 1,
            monthly_quota: None,
            max_open: None,
            distractors: None,
            about: &Default::default(),
            webhook_url: None,
        },
    )
    .await
    .unwrap();
    for task in tasks {
        mcpbench_db::exposures::record(pool, set, task, submission)
            .await
            .unwrap();
    }
    // Its runs are not the point: cancelled, so the month can retire.
    assert!(
        mcpbench_db::submissions::cancel(pool, submission, vendor.id)
            .await
            .unwrap()
    );
    let mut ids: Vec<String> = tasks.iter().map(|t| t.to_string()).collect();
    ids.sort();
    ids
}

fn secret_tasks(n: usize) -> Vec<Task> {
    let mut tasks = load_dir(&workspace().join("tasks/dev")).unwrap();
    // A month holds no attacked twins.
    tasks.retain(|t| t.attack.is_none());
    tasks.truncate(n);
    for (i, t) in tasks.iter_mut().enumerate() {
        t.goal = format!("{} (private marker zq{i:04}xv)", t.goal);
    }
    tasks
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_set_is_sealed_committed_revealed_and_verified() {
    let (pool, url) = fresh().await;
    let custody = custody();
    let tasks = secret_tasks(13);
    mcpbench_sets::create(&pool, &custody, "2026-11", &tasks, false)
        .await
        .unwrap();
    let checkpoint = mcpbench_sets::activate(&pool, &custody, "2026-11")
        .await
        .unwrap()
        .expect("a private set is committed");
    assert!(
        checkpoint.starts_with("sets.test/sets/2026-11\n13\n"),
        "{checkpoint}"
    );

    // At rest: no goal, no marker, no initial state in the dump; the rows are there (control).
    let dump = pg_dump(&url);
    assert!(dump.contains(&tasks[0].id), "the dump holds the set's rows");
    assert!(
        !dump.contains("private marker"),
        "a private goal is in clear in the database"
    );
    for t in &tasks {
        assert!(!dump.contains(&t.goal));
        let state = serde_json::to_string(&t.initial_state).unwrap();
        assert!(state.len() < 40 || !dump.contains(&state[..40]));
    }
    // Nothing of it is public, and it cannot be revealed before it retires.
    assert!(
        sets::public_tasks(&pool, "2026-11", sets::TaskFilter::default(), None, 50)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(matches!(
        mcpbench_sets::reveal_bundle(&pool, "2026-11").await,
        Err(SetError::Conflict(_))
    ));
    // The worker opens what it runs.
    let opened =
        mcpbench_sets::task_for_run(&pool, custody.keyring.as_ref(), "2026-11", &tasks[3].id)
            .await
            .unwrap();
    assert_eq!(opened, serde_json::to_value(&tasks[3]).unwrap());
    assert!(matches!(
        mcpbench_sets::task_for_run(&pool, None, "2026-11", &tasks[3].id).await,
        Err(SetError::Unconfigured(_))
    ));

    mcpbench_sets::retire(&pool, &custody, "2026-11")
        .await
        .unwrap();
    let info = sets::get(&pool, "2026-11").await.unwrap().unwrap();
    assert_eq!(
        (info.state.as_str(), info.tag.as_deref(), info.public),
        ("retired", Some("Historical-2026-11"), true)
    );
    // Browsable now, in set order.
    let page = sets::public_tasks(&pool, "2026-11", sets::TaskFilter::default(), None, 50)
        .await
        .unwrap();
    assert_eq!(page.len(), 13);
    assert_eq!(page[0]["goal"], tasks[0].goal.as_str());

    let bundle = mcpbench_sets::reveal_bundle(&pool, "2026-11")
        .await
        .unwrap();
    let key = custody.verifier_key().unwrap();
    let v = mcpbench_attest::verify(&bundle, Some(&checkpoint), Some(&key)).unwrap();
    assert_eq!((v.tasks, v.tag.as_str()), (13, "Historical-2026-11"));

    // The independent verifier agrees, through its command line.
    let dir = tempfile::tempdir().unwrap();
    let (b, c, k) = (
        dir.path().join("b.json"),
        dir.path().join("cp"),
        dir.path().join("key"),
    );
    std::fs::write(&b, &bundle).unwrap();
    std::fs::write(&c, &checkpoint).unwrap();
    std::fs::write(&k, &key).unwrap();
    let out = Command::new("python3")
        .arg(workspace().join("examples/verify/mcpbench_verify.py"))
        .arg(&b)
        .arg("--checkpoint")
        .arg(&c)
        .arg("--key")
        .arg(&k)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("ok: set 2026-11"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lifecycle_refuses_what_its_states_do_not_allow() {
    let (pool, _) = fresh().await;
    let custody = custody();
    let tasks = secret_tasks(4);
    let err = mcpbench_sets::create(&pool, &custody, "november", &tasks, false).await;
    assert!(matches!(err, Err(SetError::Invalid(m)) if m.contains("YYYY-MM")));
    let err = mcpbench_sets::create(&pool, &custody, "2026-10", &[], false).await;
    assert!(matches!(err, Err(SetError::Invalid(m)) if m.contains("1 to")));
    let keyless = Custody {
        keyring: None,
        signer: None,
        service: "x".into(),
    };
    let err = mcpbench_sets::create(&pool, &keyless, "2026-10", &tasks, false).await;
    assert!(matches!(err, Err(SetError::Unconfigured(m)) if m.contains("MCPBENCH_TASK_KEYS")));

    mcpbench_sets::create(&pool, &custody, "2026-10", &tasks, false)
        .await
        .unwrap();
    let again = mcpbench_sets::create(&pool, &custody, "2026-10", &tasks, false).await;
    assert!(matches!(again, Err(SetError::Conflict(m)) if m.contains("exists")));
    let early = mcpbench_sets::retire(&pool, &custody, "2026-10").await;
    assert!(matches!(early, Err(SetError::Conflict(m)) if m.contains("only an active set")));
    assert!(matches!(
        mcpbench_sets::activate(&pool, &keyless, "2026-10").await,
        Err(SetError::Unconfigured(_))
    ));
    mcpbench_sets::activate(&pool, &custody, "2026-10")
        .await
        .unwrap();
    let twice = mcpbench_sets::activate(&pool, &custody, "2026-10").await;
    assert!(matches!(twice, Err(SetError::Conflict(m)) if m.contains("only a draft")));
    assert!(matches!(
        mcpbench_sets::delete(&pool, &custody, "2026-10").await,
        Err(SetError::Conflict(_))
    ));
    assert!(matches!(
        mcpbench_sets::delete(&pool, &custody, "2027-01").await,
        Err(SetError::NotFound(_))
    ));
    // A sealed row altered in the database does not open, and the reveal is refused whole.
    sqlx::query("UPDATE set_tasks SET sealed = set_byte(sealed, 20, get_byte(sealed, 20) # 1) WHERE set_id = '2026-10' AND position = 2")
        .execute(&pool)
        .await
        .unwrap();
    assert!(matches!(
        mcpbench_sets::retire(&pool, &custody, "2026-10").await,
        Err(SetError::Vault(_))
    ));
    assert_eq!(
        sets::get(&pool, "2026-10").await.unwrap().unwrap().state,
        mcpbench_db::SetState::Active
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotation_is_recorded_and_anyone_can_redo_it_once_both_months_are_revealed() {
    let (pool, url) = fresh().await;
    let custody = custody();
    let tasks = secret_tasks(24);
    mcpbench_sets::create(&pool, &custody, "2026-11", &tasks, false)
        .await
        .unwrap();
    mcpbench_sets::activate(&pool, &custody, "2026-11")
        .await
        .unwrap();
    // A hosted endpoint was sent two of the month's tasks: the rotation replaces them first.
    let exposed = expose(&pool, "2026-11", &[&tasks[2].id, &tasks[17].id]).await;
    let r = mcpbench_sets::rotate(&pool, &custody, "2026-11", "2026-12", 0.25, None)
        .await
        .unwrap();
    assert_eq!((r.kept, r.replaced), (18, 6));
    let held: Vec<String> = sets::sealed_tasks(&pool, "2026-12")
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.task_id)
        .collect();
    for id in &exposed {
        assert!(!held.contains(id), "exposed task {id} was kept");
    }
    // Kept tasks carry the month they first appeared in; fresh ones their own.
    let shapes = mcpbench_db::anomalies::shapes(&pool, "2026-12")
        .await
        .unwrap();
    assert_eq!(shapes.iter().filter(|s| s.kept).count(), 18);
    // While the new month is private its seed is sealed: not in the dump, not in its view.
    let info = sets::get(&pool, "2026-12").await.unwrap().unwrap();
    assert_eq!(
        (info.rotated_from.as_deref(), info.rotation_replace),
        (Some("2026-11"), Some(0.25))
    );
    assert!(info.rotation_seed_revealed.is_none());
    assert!(
        info.rotation_exposed_revealed.is_none(),
        "shown once it retires"
    );
    assert!(!pg_dump(&url).contains("private marker"));

    mcpbench_sets::activate(&pool, &custody, "2026-12")
        .await
        .unwrap();
    mcpbench_sets::retire(&pool, &custody, "2026-11")
        .await
        .unwrap();
    mcpbench_sets::retire(&pool, &custody, "2026-12")
        .await
        .unwrap();
    let info = sets::get(&pool, "2026-12").await.unwrap().unwrap();
    let seed = u64::from_le_bytes(info.rotation_seed_revealed.unwrap().try_into().unwrap());
    let exposed_revealed = info
        .rotation_exposed_revealed
        .expect("revealed with the seed");
    assert_eq!(exposed_revealed, exposed);

    // From the two reveals alone: the previous month's tasks and the seed give this month.
    let revealed = |set: &'static str| {
        let pool = pool.clone();
        async move {
            sets::public_tasks(&pool, set, sets::TaskFilter::default(), None, 100)
                .await
                .unwrap()
                .into_iter()
                .map(|v| serde_json::from_value::<Task>(v).unwrap())
                .collect::<Vec<Task>>()
        }
    };
    let (before, after) = (revealed("2026-11").await, revealed("2026-12").await);
    // No set was public when the rotation was made, so it had no public goals to avoid.
    let redone = mcpbench_sets::plan_rotation(
        &before,
        seed,
        0.25,
        "2026-12",
        &[],
        &exposed_revealed,
        &mcpbench_sets::Draw::public(),
    )
    .unwrap();
    assert_eq!(
        redone.tasks, after,
        "the rotation is redone exactly from what was revealed"
    );
    assert_eq!(redone.kept.iter().filter(|k| **k).count(), 18);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kept_task_stays_withheld_until_no_live_set_holds_it_and_no_rotation_outruns_a_retirement()
 {
    let (pool, _) = fresh().await;
    let custody = custody();
    let tasks = secret_tasks(8);
    mcpbench_sets::create(&pool, &custody, "2026-11", &tasks, false)
        .await
        .unwrap();
    let checkpoint = mcpbench_sets::activate(&pool, &custody, "2026-11")
        .await
        .unwrap()
        .unwrap();
    let key = custody.verifier_key().unwrap();
    let r = mcpbench_sets::rotate(&pool, &custody, "2026-11", "2026-12", 0.25, None)
        .await
        .unwrap();
    assert_eq!(r.kept, 6);

    // Retired while December is still a draft: a draft holds the kept tasks too.
    mcpbench_sets::retire(&pool, &custody, "2026-11")
        .await
        .unwrap();
    let info = sets::get(&pool, "2026-11").await.unwrap().unwrap();
    assert_eq!((info.state.as_str(), info.sealed), ("retired", 6));
    let bundle = mcpbench_sets::reveal_bundle(&pool, "2026-11")
        .await
        .unwrap();
    let v = mcpbench_attest::verify(&bundle, Some(&checkpoint), Some(&key)).unwrap();
    assert_eq!((v.tasks, v.withheld.len()), (8, 6));
    let text = String::from_utf8(bundle).unwrap();
    let in_json = |goal: &str| {
        let quoted = serde_json::to_string(goal).unwrap();
        text.contains(&quoted[1..quoted.len() - 1])
    };
    let in_bundle = tasks.iter().filter(|t| in_json(&t.goal)).count();
    assert_eq!(in_bundle, 2, "only the two tasks that left are in clear");
    let public = sets::public_tasks(&pool, "2026-11", sets::TaskFilter::default(), None, 100)
        .await
        .unwrap();
    assert_eq!(public.len(), 2);

    // A rotation from the retired month is refused, even one that read it while it was live
    // and stores its draft only now (the database checks the source under its lock).
    assert!(matches!(
        mcpbench_sets::rotate(&pool, &custody, "2026-11", "2027-01", 0.25, None).await,
        Err(SetError::Conflict(_))
    ));
    let late = sets::create_draft(
        &pool,
        "2027-01",
        false,
        Some(sets::RotationRecord {
            from: "2026-11",
            replace: 0.25,
            key_id: "k1",
            sealed_seed: &[0u8; 40],
            exposed: &[],
        }),
        &[],
    )
    .await;
    assert!(
        matches!(&late, Err(mcpbench_db::DbError::Conflict(m)) if m.contains("no longer active")),
        "{late:?}"
    );

    // The draft is dropped: nothing holds the kept tasks now, and they are revealed.
    mcpbench_sets::delete(&pool, &custody, "2026-12")
        .await
        .unwrap();
    let info = sets::get(&pool, "2026-11").await.unwrap().unwrap();
    assert_eq!(info.sealed, 0);
    let bundle = mcpbench_sets::reveal_bundle(&pool, "2026-11")
        .await
        .unwrap();
    let v = mcpbench_attest::verify(&bundle, Some(&checkpoint), Some(&key)).unwrap();
    assert_eq!((v.tasks, v.withheld.len()), (8, 0));
    let text = String::from_utf8(bundle).unwrap();
    assert!(tasks.iter().all(|t| {
        let quoted = serde_json::to_string(&t.goal).unwrap();
        text.contains(&quoted[1..quoted.len() - 1])
    }));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fresh_month_repeats_no_goal_anyone_may_have_read() {
    let (pool, _) = fresh().await;
    let public = load_dir(&workspace().join("tasks/dev")).unwrap();
    let rows: Vec<_> = public.iter().map(mcpbench_sets::set_task).collect();
    sets::put_public_set(&pool, "dev", &rows).await.unwrap();
    let mut goals = sets::clear_goals(&pool).await.unwrap();
    goals.sort();
    let mut want: Vec<String> = public.iter().map(|t| t.goal.clone()).collect();
    want.sort();
    want.dedup();
    assert_eq!(goals, want, "every goal held in clear, once");

    let month = mcpbench_sets::fresh_tasks(77, 200, "2027-01", &goals).unwrap();
    assert_eq!(month.len(), 200);
    assert!(
        month.iter().all(|t| !goals.contains(&t.goal)),
        "no public goal is repeated"
    );
    let mine: Vec<String> = month.iter().map(|t| t.goal.clone()).collect();
    assert!(mcpbench_tasks::closest_goal(&mine, &goals) <= mcpbench_tasks::MAX_GOAL_SIMILARITY);
}
