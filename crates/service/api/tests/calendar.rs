//! The calendar in the running service (`MCPBENCH_CALENDAR`), on a clock the test moves: the
//! first month generated and made live at its hour, the next one rotated from it a month
//! later, the last month's retirement waiting for a vendor's submission (counted as failed in
//! `/metrics` at each look) and done once the submission is cancelled. The official board
//! follows: a board named by no set is the live month's, `dev` the practice board.

mod support;

use mcpbench_agents::AgentKind;
use mcpbench_api::CalendarRun;
use mcpbench_config::Schedule;
use mcpbench_sets::calendar::Calendar;
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use support::{Options, Service};
use time::{Date, Month, OffsetDateTime, PrimitiveDateTime, Time};

/// The 1st of `month` at 06:00 UTC, the calendar's hour here.
fn first_of(year: i32, month: Month) -> OffsetDateTime {
    let date = Date::from_calendar_date(year, month, 1).unwrap();
    PrimitiveDateTime::new(date, Time::from_hms(6, 0, 0).unwrap()).assume_utc()
}

/// Waits (at most a minute) until `GET /sets/{id}` says `state`; the set as it says it.
async fn until_state(svc: &Service, id: &str, state: &str) -> serde_json::Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let (status, set) = svc.get(&format!("/sets/{id}"), None).await;
        if status == 200 && set["state"] == state {
            return set;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "set {id} never became {state}: {status} {set}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits (at most a minute) until the board named by no set is `set`'s; that board.
async fn until_official(svc: &Service, set: &str) -> serde_json::Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let (status, board) = svc.get("/leaderboard", None).await;
        assert_eq!(status, 200, "{board}");
        if board["set"] == set {
            return board;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the official board never became {set}'s: {board}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// How many of the calendar's `step`s ended `outcome`, as `/metrics` counts them.
async fn counted(svc: &Service, step: &str, outcome: &str) -> u64 {
    let (status, _, text) = svc.get_text("/metrics").await;
    assert_eq!(status, 200);
    let series = format!("mcpbench_calendar_steps_total{{step=\"{step}\",outcome=\"{outcome}\"}} ");
    text.lines()
        .find_map(|l| l.strip_prefix(&series))
        .map_or(0, |n| n.trim().parse().unwrap())
}

/// Waits (at most a minute) until `/metrics` counts `n` or more of `step` ending `outcome`:
/// a step's state is written before the tick that did it counts it.
async fn until_counted(svc: &Service, step: &str, outcome: &str, n: u64) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while counted(svc, step, outcome).await < n {
        assert!(
            tokio::time::Instant::now() < deadline,
            "never {n} {step} {outcome}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_running_service_turns_its_months_at_their_hour_and_waits_for_the_last_submission() {
    let now = Arc::new(Mutex::new(first_of(2026, Month::November)));
    let clock = now.clone();
    let svc = Service::start(Options {
        // No worker: a submission stays queued for as long as the test wants.
        worker: false,
        calendar: Some(CalendarRun {
            calendar: Calendar {
                schedule: Schedule { day: 1, hour: 6 },
                tasks: 6,
                replace: 0.25,
            },
            every: Duration::from_millis(100),
            clock: Arc::new(move || *clock.lock().unwrap()),
        }),
        ..Options::default()
    })
    .await;

    // November's hour: nothing was live, so the month is generated, committed and live.
    let november = until_state(&svc, "2026-11", "active").await;
    assert_eq!(november["tasks"], 6, "{november}");
    assert!(november["checkpoint"].is_string());
    until_counted(&svc, "activate", "done", 1).await;
    assert_eq!(counted(&svc, "draft", "done").await, 1);
    // It is the official board now; the public set is practice.
    let official = until_official(&svc, "2026-11").await;
    assert_eq!(official["standing"], "official", "{official}");
    let (_, practice) = svc.get("/leaderboard?set=dev", None).await;
    assert_eq!(
        (&practice["set"], &practice["standing"]),
        (&json!("dev"), &json!("practice"))
    );

    // A vendor's submission to November, queued.
    let vendor = svc.token("acme").await;
    let (late, _never_served) = svc
        .submit_reference(&vendor, Some("2026-11"), (AgentKind::Null, "m"), &svc.tasks)
        .await;

    // December's hour: December is rotated from November and goes live; November's
    // retirement waits for the submission, failing at each look.
    *now.lock().unwrap() = first_of(2026, Month::December);
    let december = until_state(&svc, "2026-12", "active").await;
    assert_eq!(december["rotated_from"], "2026-11", "{december}");
    until_counted(&svc, "retire", "failed", 2).await;
    until_state(&svc, "2026-11", "active").await;
    assert_eq!(counted(&svc, "draft", "done").await, 2);
    assert_eq!(counted(&svc, "retire", "done").await, 0);

    // Cancelled, the submission no longer holds November: it retires and is revealed.
    let (status, body) = svc
        .post(
            &format!("/submissions/{late}/cancel"),
            Some(&vendor),
            &json!({}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let retired = until_state(&svc, "2026-11", "retired").await;
    assert_eq!(retired["tag"], "Historical-2026-11", "{retired}");
    until_counted(&svc, "retire", "done", 1).await;

    // The official board is December's; November's board is its final ranking.
    let official = until_official(&svc, "2026-12").await;
    assert_eq!(official["standing"], "official");
    let (_, november) = svc.get("/leaderboard?set=2026-11", None).await;
    assert_eq!(november["standing"], "retired", "{november}");
    let (status, _, page) = svc.get_text("/").await;
    assert_eq!(status, 200);
    assert!(page.contains("Leaderboard of 2026-12"), "{page}");
    assert!(
        page.contains(r#"<a href="/" aria-current="page">Official board (2026-12)</a>"#),
        "{page}"
    );
    assert!(page.contains("The official board."), "{page}");
    // A live month's results are sealed: the page does not link to them.
    assert!(!page.contains("the result matrix"), "{page}");
    assert!(page.contains("each task's result opens with the month"));
    let (_, _, practice) = svc.get_text("/?set=dev").await;
    assert!(
        practice.contains(r#"<a href="/?set=dev" aria-current="page">Practice (dev)</a>"#),
        "{practice}"
    );
    assert!(practice.contains("Practice board."));
    assert!(practice.contains("the live month 2026-12"));
    assert!(practice.contains("the result matrix"));

    // Nothing more is due this month however often it looks: each step was done once.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(counted(&svc, "draft", "done").await, 2);
    assert_eq!(counted(&svc, "activate", "done").await, 2);
    assert_eq!(counted(&svc, "retire", "done").await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn without_a_live_month_the_board_is_the_practice_board_and_says_so() {
    let svc = Service::start(Options {
        worker: false,
        ..Options::default()
    })
    .await;
    let (status, board) = svc.get("/leaderboard", None).await;
    assert_eq!(status, 200, "{board}");
    assert_eq!(
        (&board["set"], &board["standing"]),
        (&json!("dev"), &json!("practice"))
    );
    let (status, _, page) = svc.get_text("/").await;
    assert_eq!(status, 200);
    assert!(page.contains("Practice board."), "{page}");
    assert!(
        page.contains("no private month is live on this deployment yet"),
        "{page}"
    );
    // An unknown set is not an empty board.
    assert_eq!(svc.get("/leaderboard?set=2031-01", None).await.0, 404);
}
