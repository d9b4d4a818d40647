//! The queue and the key store against a real PostgreSQL (a throwaway cluster for this test
//! binary, a fresh database per test).

mod common;

use common::{fresh, submit, submit_trials};
use mcpbench_db::queue::{self, Beat, Completion, RunRecord};
use mcpbench_db::{submissions, vendors};
use std::collections::HashSet;
use std::time::Duration;

fn record(passed: bool) -> RunRecord {
    RunRecord {
        passed,
        reason: if passed {
            mcpbench_db::RunReason::Passed
        } else {
            mcpbench_db::RunReason::PredicateFalse
        },
        detail: None,
        counts: mcpbench_scoring::RunCounts {
            tool_calls: 2,
            ..Default::default()
        },
        duration_ms: 5,
        trace_key: None,
        analysis: None,
        usage: None,
        usage_measured: false,
        conditions: None,
        attack_met: None,
    }
}

const LEASE: Duration = Duration::from_secs(30);

#[tokio::test]
async fn every_job_is_claimed_once_and_recorded_once() {
    let (pool, vendor) = fresh(20).await;
    let sub = submit(&pool, vendor, 3).await;
    assert_eq!(
        submissions::progress(&pool, sub).await.unwrap(),
        (mcpbench_db::SubmissionStatus::Queued, 0, 20)
    );
    // Four workers drain the queue concurrently.
    let mut handles = Vec::new();
    for w in 0..4 {
        let pool = pool.clone();
        handles.push(tokio::spawn(async move {
            let mut mine = Vec::new();
            while let Some(c) = queue::claim(&pool, &format!("w{w}"), LEASE).await.unwrap() {
                assert!(matches!(
                    queue::complete(&pool, &c, &record(true)).await.unwrap(),
                    Completion::Recorded { .. }
                ));
                mine.push(c.task_id);
            }
            mine
        }));
    }
    let mut seen = HashSet::new();
    for h in handles {
        for t in h.await.unwrap() {
            assert!(seen.insert(t.clone()), "{t} was claimed twice");
        }
    }
    assert_eq!(seen.len(), 20);
    assert_eq!(
        submissions::progress(&pool, sub).await.unwrap(),
        (mcpbench_db::SubmissionStatus::Running, 20, 20)
    );
    assert_eq!(queue::depth(&pool).await.unwrap(), (0, 0));
}

/// Submissions that run at once do not all run the same tasks at the same moment: each
/// queues its tasks in an order of its own (its trials of one task together), not the set's.
#[tokio::test]
async fn each_submission_runs_the_set_in_its_own_order_trials_together() {
    let (pool, vendor) = fresh(40).await;
    let set: Vec<String> = (0..40).map(|i| format!("t-{i:03}")).collect();
    let mut orders = Vec::new();
    for _ in 0..2 {
        let id = submit_trials(&pool, vendor, 2, 3).await;
        let mut claimed = Vec::new();
        while let Some(c) = queue::claim(&pool, "w", LEASE).await.unwrap() {
            assert_eq!(
                c.submission_id, id,
                "one submission's jobs after the other's"
            );
            claimed.push((c.task_id, c.trial));
        }
        assert_eq!(claimed.len(), 80);
        let tasks: Vec<String> = claimed
            .chunks(2)
            .map(|pair| {
                assert_eq!(
                    (&pair[0].0, pair[0].1, pair[1].1),
                    (&pair[1].0, 0, 1),
                    "{pair:?}"
                );
                pair[0].0.clone()
            })
            .collect();
        assert_eq!(
            tasks,
            queue::queue_order(id, &set),
            "the order is the submission's"
        );
        let mut sorted = tasks.clone();
        sorted.sort();
        assert_eq!(sorted, set, "every task once");
        assert_ne!(tasks, set, "not the set's order");
        orders.push(tasks);
    }
    assert_ne!(orders[0], orders[1], "each submission its own order");
}

#[tokio::test]
async fn a_worker_that_lost_its_lease_cannot_write() {
    let (pool, vendor) = fresh(1).await;
    submit(&pool, vendor, 3).await;
    let first = queue::claim(&pool, "slow", Duration::ZERO)
        .await
        .unwrap()
        .unwrap();
    tokio::time::sleep(Duration::from_millis(20)).await;
    let reaped = queue::reap(&pool).await.unwrap();
    assert_eq!((reaped.requeued, reaped.failed), (1, 0));
    assert_eq!(
        queue::heartbeat(&pool, &first, LEASE).await.unwrap(),
        Beat::Lost
    );
    let second = queue::claim(&pool, "fast", LEASE).await.unwrap().unwrap();
    assert_eq!(second.job_id, first.job_id);
    assert!(second.epoch > first.epoch, "a claim bumps the epoch");
    assert_eq!(second.attempt, 2);
    assert_eq!(
        queue::complete(&pool, &first, &record(false))
            .await
            .unwrap(),
        Completion::Stale
    );
    assert_eq!(
        queue::complete(&pool, &second, &record(true))
            .await
            .unwrap(),
        Completion::Recorded { finished: true }
    );
    assert_eq!(
        queue::complete(&pool, &second, &record(true))
            .await
            .unwrap(),
        Completion::Stale,
        "only once"
    );
    let runs: i64 = sqlx::query_scalar("SELECT count(*) FROM runs")
        .fetch_one(&pool)
        .await
        .unwrap();
    let passed: bool = sqlx::query_scalar("SELECT passed FROM runs")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(
        (runs, passed),
        (1, true),
        "the late worker's result never landed"
    );
}

#[tokio::test]
async fn harness_failures_retry_then_give_up_with_a_reason() {
    let (pool, vendor) = fresh(1).await;
    let sub = submit(&pool, vendor, 2).await;
    let c = queue::claim(&pool, "w", LEASE).await.unwrap().unwrap();
    assert!(
        !queue::fail(&pool, &c, "gateway could not bind")
            .await
            .unwrap(),
        "one try left"
    );
    let c = queue::claim(&pool, "w", LEASE).await.unwrap().unwrap();
    assert_eq!(c.attempt, 2);
    assert!(
        queue::fail(&pool, &c, "gateway could not bind")
            .await
            .unwrap(),
        "nothing left to run"
    );
    assert!(queue::claim(&pool, "w", LEASE).await.unwrap().is_none());
    let (state, error): (String, String) = sqlx::query_as("SELECT state, last_error FROM jobs")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(
        (state.as_str(), error.as_str()),
        ("failed", "gateway could not bind")
    );
    assert_eq!(submissions::progress(&pool, sub).await.unwrap().1, 0);
}

#[tokio::test]
async fn leases_run_out_for_good_after_the_last_attempt() {
    let (pool, vendor) = fresh(1).await;
    submit(&pool, vendor, 1).await;
    queue::claim(&pool, "dies", Duration::ZERO)
        .await
        .unwrap()
        .unwrap();
    tokio::time::sleep(Duration::from_millis(20)).await;
    let reaped = queue::reap(&pool).await.unwrap();
    assert_eq!((reaped.requeued, reaped.failed), (0, 1));
    assert!(queue::claim(&pool, "w", LEASE).await.unwrap().is_none());
}

#[tokio::test]
async fn cancelling_stops_queued_jobs_and_tells_running_ones() {
    let (pool, vendor) = fresh(3).await;
    let sub = submit(&pool, vendor, 3).await;
    let running = queue::claim(&pool, "w", LEASE).await.unwrap().unwrap();
    // A second job whose worker died: its lease is already over.
    let stale = queue::claim(&pool, "w2", Duration::ZERO)
        .await
        .unwrap()
        .unwrap();
    assert!(
        !submissions::cancel(&pool, sub, vendor + 1).await.unwrap(),
        "only the owner cancels"
    );
    assert!(submissions::cancel(&pool, sub, vendor).await.unwrap());
    assert_eq!(
        queue::heartbeat(&pool, &running, LEASE).await.unwrap(),
        Beat::Cancelled
    );
    assert!(
        queue::claim(&pool, "w", LEASE).await.unwrap().is_none(),
        "nothing of a cancelled submission runs"
    );
    queue::release(&pool, &running).await.unwrap();
    assert!(queue::claim(&pool, "w", LEASE).await.unwrap().is_none());
    // The reaper does not bring a cancelled submission's job back either.
    assert_ne!(stale.job_id, running.job_id);
    let reaped = queue::reap(&pool).await.unwrap();
    assert_eq!((reaped.requeued, reaped.failed), (0, 0));
    assert!(queue::claim(&pool, "w", LEASE).await.unwrap().is_none());
    assert_eq!(queue::depth(&pool).await.unwrap(), (0, 0));
}

#[tokio::test]
async fn keys_are_checked_in_full_and_can_be_revoked() {
    let (pool, _) = fresh(1).await;
    let (vendor, key) = vendors::create(&pool, "globex", false, false)
        .await
        .unwrap();
    assert!(key.starts_with("mcpb_"));
    assert_eq!(
        vendors::by_key(&pool, &key).await.unwrap(),
        Some(vendor.clone())
    );
    let mut forged = key.clone();
    forged.pop();
    forged.push(if key.ends_with('0') { '1' } else { '0' });
    assert_eq!(vendors::by_key(&pool, &forged).await.unwrap(), None);
    assert_eq!(vendors::by_key(&pool, "not a key").await.unwrap(), None);
    let stored: Vec<u8> = sqlx::query_scalar("SELECT hash FROM api_keys WHERE vendor_id = $1")
        .bind(vendor.id)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_ne!(stored, key.as_bytes(), "only a hash is stored");
    assert!(matches!(
        vendors::create(&pool, "globex", false, false).await,
        Err(mcpbench_db::DbError::Conflict(_))
    ));
    assert_eq!(vendors::revoke_keys(&pool, "globex").await.unwrap(), 1);
    assert_eq!(vendors::by_key(&pool, &key).await.unwrap(), None);
}

/// The scores of `tasks` runs of which the first `passed` passed.
fn scores(tasks: usize, passed: usize) -> mcpbench_scoring::Scores {
    let outcomes: Vec<_> = (0..tasks)
        .map(|i| mcpbench_scoring::Outcome {
            task_id: format!("t-{i:03}"),
            server: "filesystem".into(),
            category: "single-tool".into(),
            difficulty: "easy".into(),
            max_steps: 4,
            passed: i < passed,
            counts: Default::default(),
            analysis: None,
            duration_ms: None,
            usage: None,
            usage_measured: false,
            attack: None,
        })
        .collect();
    mcpbench_scoring::score(&outcomes)
}

#[tokio::test]
async fn a_submission_finishes_and_ranks_exactly_once() {
    let (pool, vendor) = fresh(3).await;
    let id = submit(&pool, vendor, 3).await;
    // Not while jobs are open.
    assert_eq!(
        submissions::finish(&pool, id, &scores(3, 3)).await.unwrap(),
        submissions::Finished::NotNow
    );
    while let Some(c) = queue::claim(&pool, "w", Duration::from_secs(30))
        .await
        .unwrap()
    {
        queue::complete(&pool, &c, &record(true)).await.unwrap();
    }
    // Eight finishers race; one wins, the others change nothing.
    let racers: Vec<_> = (0..8)
        .map(|_| {
            let pool = pool.clone();
            tokio::spawn(async move { submissions::finish(&pool, id, &scores(3, 3)).await })
        })
        .collect();
    let mut completed = 0;
    for r in racers {
        if r.await.unwrap().unwrap() == submissions::Finished::Completed {
            completed += 1;
        }
    }
    assert_eq!(completed, 1);
    let board = mcpbench_db::leaderboard::entries(&pool, "dev")
        .await
        .unwrap();
    assert_eq!(board.len(), 1);
    assert_eq!((board[0].tasks, board[0].passed), (3, 3));
    assert_eq!(
        board[0].by_server.get(),
        Some(&scores(3, 3).by_server),
        "read back into its type"
    );
    assert!(submissions::unfinished(&pool, 10).await.unwrap().is_empty());
    let finished_at = board[0].finished_at;

    // Scored again: the same row takes the new figures and keeps when it finished.
    assert!(
        submissions::rescore(&pool, id, &scores(3, 1))
            .await
            .unwrap()
    );
    let board = mcpbench_db::leaderboard::entries(&pool, "dev")
        .await
        .unwrap();
    assert_eq!(board.len(), 1);
    assert_eq!((board[0].tasks, board[0].passed), (3, 1));
    assert_eq!(board[0].success_rate, 1.0 / 3.0);
    assert_eq!(board[0].finished_at, finished_at);

    // A row scored before the process figures and the spend existed holds `{}` in their
    // columns (the migrations' default): it reads as unknown figures, not as an error.
    sqlx::query("UPDATE leaderboard SET process = '{}', spend = '{}'")
        .execute(&pool)
        .await
        .unwrap();
    let board = mcpbench_db::leaderboard::entries(&pool, "dev")
        .await
        .unwrap();
    assert_eq!(board[0].process.get(), Some(&Default::default()));
    assert_eq!(board[0].spend.get().unwrap().cost_per_task, None);

    // A damaged document reads as unknown, and the rest of its row and its board still read.
    sqlx::query("UPDATE leaderboard SET by_server = '[1]'")
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query("UPDATE submissions SET scores = '{\"passed\": \"all\"}'")
        .execute(&pool)
        .await
        .unwrap();
    let board = mcpbench_db::leaderboard::entries(&pool, "dev")
        .await
        .unwrap();
    assert_eq!((board[0].by_server.get(), board[0].passed), (None, 1));
    let s = submissions::find(&pool, id).await.unwrap().unwrap();
    assert_eq!(s.scores(), None);
}

#[tokio::test]
async fn a_submission_with_failed_jobs_fails_with_the_reason_and_never_ranks() {
    let (pool, vendor) = fresh(2).await;
    let id = submit(&pool, vendor, 1).await;
    let first = queue::claim(&pool, "w", Duration::from_secs(30))
        .await
        .unwrap()
        .unwrap();
    queue::complete(&pool, &first, &record(true)).await.unwrap();
    let second = queue::claim(&pool, "w", Duration::from_secs(30))
        .await
        .unwrap()
        .unwrap();
    assert!(
        queue::fail(&pool, &second, "harness error: the gateway broke")
            .await
            .unwrap()
    );
    match submissions::finish(&pool, id, &scores(1, 1)).await.unwrap() {
        submissions::Finished::Failed(reason) => {
            assert!(reason.contains("the gateway broke"), "{reason}")
        }
        other => panic!("expected a failure, got {other:?}"),
    }
    let s = submissions::get(&pool, id, vendor).await.unwrap().unwrap();
    assert_eq!(s.status, mcpbench_db::SubmissionStatus::Failed);
    assert!(s.error.unwrap().contains("the gateway broke"));
    assert!(
        mcpbench_db::leaderboard::entries(&pool, "dev")
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn workers_are_shared_between_vendors_and_no_vendor_runs_past_its_cap() {
    let (pool, flood) = fresh(50).await;
    // The flooding vendor queues 250 jobs first; the other queues 50 after them.
    for _ in 0..5 {
        submit(&pool, flood, 3).await;
    }
    let (other, _) = vendors::create(&pool, "other", false, false).await.unwrap();
    let late = submit(&pool, other.id, 3).await;
    let owner = |c: &queue::Claim| c.submission_id == late;

    // No cap: claims alternate, the vendor with fewer running first; half of the first twenty
    // claims are the late vendor's, not one of them waits behind the flood's 250.
    let mut held = Vec::new();
    for _ in 0..20 {
        held.push(queue::claim(&pool, "w", LEASE).await.unwrap().unwrap());
    }
    assert_eq!(held.iter().filter(|c| owner(c)).count(), 10);
    assert!(
        held.windows(2).all(|w| owner(&w[0]) != owner(&w[1])),
        "claims alternate between the vendors"
    );
    // Within a vendor, oldest first.
    let flood_jobs: Vec<i64> = held
        .iter()
        .filter(|c| !owner(c))
        .map(|c| c.job_id)
        .collect();
    assert!(flood_jobs.windows(2).all(|w| w[0] < w[1]));

    // A cap of 12: each vendor (10 running) gets two more, then nothing; a finished job
    // frees a place for its vendor only.
    let capped = queue::ClaimRules {
        docker: true,
        vendor_max_running: Some(12),
    };
    let mut more = Vec::new();
    while let Some(c) = queue::claim_as(&pool, "w", LEASE, capped).await.unwrap() {
        more.push(owner(&c));
        assert!(more.len() <= 4, "the cap was passed");
    }
    assert_eq!(more.iter().filter(|o| **o).count(), 2, "{more:?}");
    assert_eq!(more.len(), 4, "{more:?}");
    let done = held.iter().find(|c| !owner(c)).unwrap();
    queue::complete(&pool, done, &record(true)).await.unwrap();
    let next = queue::claim_as(&pool, "w", LEASE, capped)
        .await
        .unwrap()
        .unwrap();
    assert!(
        !owner(&next),
        "the freed place is the flooding vendor's own"
    );
    assert!(
        queue::claim_as(&pool, "w", LEASE, capped)
            .await
            .unwrap()
            .is_none()
    );
}

#[tokio::test]
async fn each_database_names_its_own_deployment_and_keeps_the_name() {
    let (a, _) = fresh(1).await;
    let (b, _) = fresh(1).await;
    let name = mcpbench_db::workers::deployment_name(&a).await.unwrap();
    assert!(
        name.starts_with("mcpbench-") && name.len() == "mcpbench-".len() + 12,
        "{name}"
    );
    assert_eq!(
        mcpbench_db::workers::deployment_name(&a).await.unwrap(),
        name
    );
    assert_ne!(
        mcpbench_db::workers::deployment_name(&b).await.unwrap(),
        name
    );
    // The workers it knows are those that reported to it.
    mcpbench_db::workers::seen(&a, "w-1", true).await.unwrap();
    assert_eq!(mcpbench_db::workers::known(&a).await.unwrap(), ["w-1"]);
    assert!(mcpbench_db::workers::known(&b).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_runs_counts_come_back_as_they_were_recorded() {
    let (pool, vendor) = fresh(1).await;
    let sub = submit(&pool, vendor, 3).await;
    let claim = queue::claim(&pool, "w", LEASE).await.unwrap().unwrap();
    let counts = mcpbench_scoring::RunCounts {
        tool_calls: 9,
        hallucinated_calls: 2,
        invalid_calls: 1,
        errors_observed: 4,
        budget_exceeded: true,
    };
    let analysis = mcpbench_scoring::RunAnalysis {
        claims: 3,
        claims_held: 1,
        calls: mcpbench_scoring::CallTally {
            judged: 6,
            named: 4,
            ..Default::default()
        },
        failure: Some(mcpbench_scoring::Failure {
            group: mcpbench_scoring::FailureGroup::Budget,
            evidence: Some("call 7 came after the budget".into()),
        }),
        ..Default::default()
    };
    let over_budget = RunRecord {
        passed: false,
        reason: mcpbench_db::RunReason::BudgetExceeded,
        counts,
        analysis: Some(analysis.clone()),
        ..record(false)
    };
    queue::complete(&pool, &claim, &over_budget).await.unwrap();
    let runs = mcpbench_db::runs::list(&pool, sub, None, 10).await.unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(
        runs[0].counts, counts,
        "every count and the budget flag round-trip"
    );
    let scored = mcpbench_db::runs::for_scoring(&pool, sub).await.unwrap();
    assert_eq!(scored[0].counts, counts);
    assert_eq!(
        scored[0].analysis,
        Some(analysis),
        "the analysis round-trips"
    );
}

#[tokio::test]
async fn a_runs_usage_comes_back_as_reported_and_unknown_stays_unknown() {
    let (pool, vendor) = fresh(3).await;
    let sub = submit(&pool, vendor, 3).await;
    let reported = [
        Some(mcpbench_scoring::Usage {
            input_tokens: Some(1_500),
            output_tokens: Some(250),
            cost_usd: Some(0.0042),
        }),
        Some(mcpbench_scoring::Usage {
            cost_usd: Some(0.0),
            ..Default::default()
        }),
        None,
    ];
    for (i, usage) in reported.iter().enumerate() {
        let claim = queue::claim(&pool, "w", LEASE).await.unwrap().unwrap();
        let run = RunRecord {
            usage: *usage,
            duration_ms: 1000 * (i as i64 + 1),
            ..record(true)
        };
        queue::complete(&pool, &claim, &run).await.unwrap();
    }
    let scored = mcpbench_db::runs::for_scoring(&pool, sub).await.unwrap();
    let mut got: Vec<_> = scored.iter().map(|r| (r.duration_ms, r.usage)).collect();
    // Each run's duration says which report it was given.
    got.sort_by_key(|(ms, _)| *ms);
    assert_eq!(
        got,
        [(1000, reported[0]), (2000, reported[1]), (3000, None)]
    );
    // A negative count cannot be stored, whatever the caller passes.
    let broken = sqlx::query("UPDATE runs SET cost_usd = -1 WHERE submission_id = $1")
        .bind(sub)
        .execute(&pool)
        .await;
    assert!(broken.is_err(), "the CHECK refuses a negative cost");
}

#[test]
fn monthly_quotas_renew_on_the_first_of_next_month_utc() {
    use time::{Date, Month, UtcOffset};
    let t = |y, m, d, h, min, s, offset_h| {
        Date::from_calendar_date(y, m, d)
            .unwrap()
            .with_hms(h, min, s)
            .unwrap()
            .assume_offset(UtcOffset::from_hms(offset_h, 0, 0).unwrap())
    };
    let at = mcpbench_db::submissions::until_next_month;
    assert_eq!(at(t(2026, Month::November, 30, 23, 59, 59, 0)), 1);
    assert_eq!(at(t(2026, Month::December, 31, 0, 0, 0, 0)), 86_400);
    assert_eq!(at(t(2026, Month::February, 1, 0, 0, 0, 0)), 28 * 86_400);
    // Another offset counts from the same instant (23:30 UTC on the 30th).
    assert_eq!(at(t(2026, Month::December, 1, 0, 30, 0, 1)), 1_800);
}
