//! The calendar against a real PostgreSQL, with a clock the test moves: a first month generated
//! and made live, nothing done twice, the next month rotated from it, a retirement that waits
//! for the month's last submission, one process acting at a time.

mod support;

use mcpbench_config::Schedule;
use mcpbench_db::exclusive::{Work, try_exclusive};
use mcpbench_db::{PgPool, SetState, sets, submissions};
use mcpbench_sets::calendar::{Calendar, Done, Step, Tick, plan_at, tick};
use std::time::Duration;
use support::{custody, fresh};
use time::{Date, Month, OffsetDateTime, PrimitiveDateTime, Time};
use uuid::Uuid;

/// Monthly on the 1st at 06:00 UTC; a first month of 8 tasks.
const CALENDAR: Calendar = Calendar {
    schedule: Schedule { day: 1, hour: 6 },
    tasks: 8,
    replace: 0.25,
};

/// `month` (1-12) of 2026 or 2027, on `day` at `hour`:`minute` UTC.
fn at(year: i32, month: u8, day: u8, hour: u8, minute: u8) -> OffsetDateTime {
    let date = Date::from_calendar_date(year, Month::try_from(month).unwrap(), day).unwrap();
    PrimitiveDateTime::new(date, Time::from_hms(hour, minute, 0).unwrap()).assume_utc()
}

async fn state(pool: &PgPool, id: &str) -> Option<SetState> {
    sets::get(pool, id).await.unwrap().map(|s| s.state)
}

/// The steps a tick tried, and the failure of the last if it failed.
fn ran(tick: Tick) -> (Vec<Step>, Option<String>) {
    match tick {
        Tick::Busy => panic!("the calendar was free"),
        Tick::Ran { done, .. } => {
            let failed = done.last().and_then(|d| d.failed.clone());
            (
                done.into_iter().map(|Done { step, .. }| step).collect(),
                failed,
            )
        }
    }
}

/// A submission of a vendor of its own to `set`, queued.
async fn queued(pool: &PgPool, set: &str) -> (Uuid, i64) {
    let (vendor, _) = mcpbench_db::vendors::create(pool, "late", false, false)
        .await
        .unwrap();
    let id = mcpbench_testkit::seed::Submit {
        set,
        ..mcpbench_testkit::seed::Submit::new(vendor.id, "https://agent.example/")
    }
    .create(pool)
    .await;
    (id, vendor.id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_calendar_turns_the_months_in_order_once_each_and_waits_for_the_last_submission() {
    let (pool, _) = fresh().await;
    let custody = custody();
    mcpbench_testkit::seed::put_dev_set(&pool, &mcpbench_testkit::seed::dev_tasks(3)).await;

    // Before the first hour nothing is due but October, which does not exist yet: the clock
    // decides which month, not the day the deployment started.
    let early = plan_at(&pool, &CALENDAR, at(2026, 11, 1, 5, 59))
        .await
        .unwrap();
    assert_eq!(early.month, "2026-10");

    // The first month: nothing live to rotate from, so it is generated, then made live.
    let first = at(2026, 11, 1, 6, 0);
    let (steps, failed) = ran(tick(&pool, &custody, &CALENDAR, first).await.unwrap());
    assert_eq!(failed, None);
    assert_eq!(
        steps,
        [
            Step::Draft {
                month: "2026-11".into(),
                from: None
            },
            Step::Activate {
                month: "2026-11".into()
            }
        ]
    );
    let november = sets::get(&pool, "2026-11").await.unwrap().unwrap();
    assert_eq!((november.state, november.tasks), (SetState::Active, 8));
    assert!(november.checkpoint.is_some() && !november.public);
    // The public dev set is never the calendar's.
    assert_eq!(state(&pool, "dev").await, Some(SetState::Active));

    // Ticking again, that hour or later in the month, does nothing.
    for now in [first, at(2026, 11, 20, 0, 0), at(2026, 12, 1, 5, 59)] {
        let (steps, _) = ran(tick(&pool, &custody, &CALENDAR, now).await.unwrap());
        assert_eq!(steps, [], "at {now}");
    }

    // December is due while a submission to November is still queued: December is rotated
    // from November and goes live, November's retirement fails and waits.
    let (late, vendor) = queued(&pool, "2026-11").await;
    let december = at(2026, 12, 1, 6, 0);
    let plan = plan_at(&pool, &CALENDAR, december).await.unwrap();
    let said: Vec<String> = plan.steps.iter().map(Step::to_string).collect();
    assert_eq!(
        said,
        [
            "draft 2026-12 by rotating 2026-11",
            "activate 2026-12",
            "retire and reveal 2026-11"
        ]
    );
    let (steps, failed) = ran(tick(&pool, &custody, &CALENDAR, december).await.unwrap());
    assert_eq!(steps, plan.steps);
    let failed = failed.expect("the retirement waits for the queued submission");
    assert!(failed.contains("still queued or running"), "{failed}");
    assert_eq!(state(&pool, "2026-12").await, Some(SetState::Active));
    assert_eq!(state(&pool, "2026-11").await, Some(SetState::Active));
    let rotated = sets::get(&pool, "2026-12").await.unwrap().unwrap();
    assert_eq!(rotated.rotated_from.as_deref(), Some("2026-11"));
    assert_eq!(rotated.tasks, 8);

    // Tried again at every tick; once the submission ends, November retires and is revealed.
    let (steps, failed) = ran(tick(&pool, &custody, &CALENDAR, december).await.unwrap());
    assert_eq!(steps.len(), 1);
    assert!(failed.is_some());
    assert!(submissions::cancel(&pool, late, vendor).await.unwrap());
    let (steps, failed) = ran(tick(&pool, &custody, &CALENDAR, at(2026, 12, 1, 6, 1))
        .await
        .unwrap());
    assert_eq!(
        (steps, failed),
        (
            vec![Step::Retire {
                month: "2026-11".into()
            }],
            None
        )
    );
    let revealed = sets::get(&pool, "2026-11").await.unwrap().unwrap();
    assert_eq!(revealed.state, SetState::Retired);
    assert_eq!(revealed.tag.as_deref(), Some("Historical-2026-11"));
    // The tasks December kept stay withheld; the ones it replaced are revealed.
    assert!(
        revealed.sealed > 0 && revealed.sealed < 8,
        "{}",
        revealed.sealed
    );

    // Done: nothing is due until January's hour.
    let (steps, _) = ran(tick(&pool, &custody, &CALENDAR, at(2026, 12, 31, 23, 0))
        .await
        .unwrap());
    assert_eq!(steps, []);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_process_turns_the_months_at_a_time_and_a_dead_one_frees_the_calendar() {
    let (pool, _) = fresh().await;
    let custody = custody();
    let now = at(2027, 1, 1, 6, 0);

    // Another replica holds the calendar: this one does nothing, and the month waits.
    let held = try_exclusive(&pool, Work::Calendar).await.unwrap().unwrap();
    assert!(
        try_exclusive(&pool, Work::Calendar)
            .await
            .unwrap()
            .is_none()
    );
    let busy = tick(&pool, &custody, &CALENDAR, now).await.unwrap();
    assert!(matches!(busy, Tick::Busy), "{busy:?}");
    assert_eq!(state(&pool, "2027-01").await, None);
    held.release().await.unwrap();
    let (steps, failed) = ran(tick(&pool, &custody, &CALENDAR, now).await.unwrap());
    assert_eq!((steps.len(), failed), (2, None));
    assert_eq!(state(&pool, "2027-01").await, Some(SetState::Active));

    // Two replicas ticking at once: the month is made once, and whichever ran second (or
    // found the lock taken) did nothing.
    let next = at(2027, 2, 1, 6, 0);
    let (a, b) = tokio::join!(
        tick(&pool, &custody, &CALENDAR, next),
        tick(&pool, &custody, &CALENDAR, next)
    );
    let drafted = [a.unwrap(), b.unwrap()]
        .into_iter()
        .filter_map(|t| match t {
            Tick::Ran { done, .. } => Some(done),
            Tick::Busy => None,
        })
        .flatten()
        .filter(|d| matches!(d.step, Step::Draft { .. }) && d.failed.is_none())
        .count();
    assert_eq!(drafted, 1);
    assert_eq!(state(&pool, "2027-02").await, Some(SetState::Active));
    assert_eq!(state(&pool, "2027-01").await, Some(SetState::Retired));

    // A process that dies holding the lock (its guard dropped, never released) frees it: its
    // session ends with it.
    let dead = try_exclusive(&pool, Work::Calendar).await.unwrap().unwrap();
    drop(dead);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        match try_exclusive(&pool, Work::Calendar).await.unwrap() {
            Some(lock) => {
                lock.release().await.unwrap();
                break;
            }
            None => {
                assert!(
                    tokio::time::Instant::now() < deadline,
                    "the lock outlived its session"
                );
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}
