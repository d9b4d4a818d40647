//! Pages every reader without a session sees alike (a completed submission's page, a
//! comparison, as page and as JSON) are kept, like the leaderboard: a change made behind the
//! API's back does not show to those readers while the page is fresh, a signed-in caller never
//! gets a kept answer, and publishing traces (which changes what the public sees) drops what
//! was kept by its notification (pages are kept an hour here, so nothing else could).

mod support;

use mcpbench_agents::AgentKind;
use std::time::Duration;
use support::{Options, Service};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn public_pages_are_kept_for_readers_without_a_session_until_the_public_view_changes() {
    // Kept far longer than the test takes: only a notification can drop what is kept.
    let svc = Service::start(Options {
        kept_for: Duration::from_secs(3600),
        ..Options::default()
    })
    .await;
    let token = svc.token("acme").await;
    let a = svc
        .submit_and_wait(&token, AgentKind::Oracle, "oracle")
        .await;
    let b = svc.submit_and_wait(&token, AgentKind::Null, "null").await;
    let page = format!("/web/submissions/{a}");
    let compare_page = format!("/web/compare?a={a}&b={b}");
    let compare = format!("/compare?a={a}&b={b}");

    let (status, _, before) = svc.get_text(&page).await;
    assert_eq!(status, 200);
    assert!(before.contains("oracle-agent") && before.contains("once its owner publishes"));
    assert_eq!(svc.get_text(&compare_page).await.0, 200);
    assert_eq!(svc.get(&compare, None).await.1["a"]["name"], "oracle-agent");

    // Behind the API's back (no notification): readers without a session still get the kept
    // pages; the owner, signed in, reads the database.
    sqlx::query("UPDATE submissions SET name = 'renamed-agent' WHERE id = $1::uuid")
        .bind(&a)
        .execute(&svc.pool)
        .await
        .unwrap();
    let (_, _, kept) = svc.get_text(&page).await;
    assert!(kept.contains("oracle-agent") && !kept.contains("renamed-agent"));
    let (_, _, kept) = svc.get_text(&compare_page).await;
    assert!(kept.contains("oracle-agent") && !kept.contains("renamed-agent"));
    assert_eq!(svc.get(&compare, None).await.1["a"]["name"], "oracle-agent");
    let (status, signed_in) = svc.get(&compare, Some(&token)).await;
    assert_eq!(status, 200);
    assert_eq!(signed_in["a"]["name"], "renamed-agent");
    let (status, own) = svc.get(&format!("/submissions/{a}"), Some(&token)).await;
    assert_eq!(status, 200);
    assert_eq!(own["name"], "renamed-agent");

    // Publishing changes what the public sees: the kept pages go, and the runs show.
    svc.publish(&a, &token).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let (_, _, now) = svc.get_text(&page).await;
        if now.contains("renamed-agent") {
            assert!(now.contains("/web/runs/"), "the published runs are listed");
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the kept page never went"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        svc.get(&compare, None).await.1["a"]["name"],
        "renamed-agent"
    );
}
