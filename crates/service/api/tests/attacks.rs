//! The security category through the service: on a set of the dev set's tasks under attack and
//! their twins, a submission's scores carry utility, utility under attack and attack success
//! apart from its success rate, and the board shows them as columns (JSON, CSV, page) without
//! ranking by them.

mod support;

use mcpbench_agents::AgentKind;
use mcpbench_tasks::Task;
use serde_json::Value;
use std::time::Duration;
use support::{Options, Service};

/// The dev set's attacked tasks and their twins. The test's agents know a task by its goal,
/// which a task shares with its twin: each attacked one's goal is marked so that they tell
/// the two apart (the service pairs them by id, never by goal).
fn pairs(all: Vec<Task>) -> Vec<Task> {
    let twins: Vec<String> = (all.iter())
        .filter_map(|t| t.attack.as_ref()?.twin.clone())
        .collect();
    (all.into_iter())
        .filter(|t| t.attack.is_some() || twins.contains(&t.id))
        .map(|mut t| {
            if t.attack.is_some() {
                t.goal.push_str(" (attacked)");
            }
            t
        })
        .collect()
}

/// The same tasks, each attacked one's reference followed by what its planted instructions
/// ask: served as the oracle, an agent that follows every instruction.
fn followed(tasks: &[Task]) -> Vec<Task> {
    (tasks.iter())
        .map(|t| {
            let mut t = t.clone();
            if let Some(attack) = &t.attack {
                t.reference_solutions = vec![attack.follow(t.shortest_reference())];
            }
            t
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn security_figures_stand_beside_the_rank_never_in_it() {
    let svc = Service::start(Options {
        pick: Some(pairs),
        ..Options::default()
    })
    .await;
    let attacked = svc.tasks.iter().filter(|t| t.attack.is_some()).count();
    assert!(
        attacked >= 5 && svc.tasks.len() == 2 * attacked,
        "{attacked}"
    );
    let token = svc.vendor("acme", false).await;
    let oracle = svc
        .submit_and_wait(&token, AgentKind::Oracle, "careful")
        .await;
    let (follower, serve) = svc
        .submit_reference(
            &token,
            None,
            (AgentKind::Oracle, "gullible"),
            &followed(&svc.tasks),
        )
        .await;
    serve();
    svc.wait(&follower, &token, Duration::from_secs(120)).await;

    // Each submission's scores: the rank's figures over the twins alone, and the security
    // figures over both.
    let scores = |id: String| {
        let svc = &svc;
        let token = token.clone();
        async move {
            let (status, shown) = svc.get(&format!("/submissions/{id}"), Some(&token)).await;
            assert_eq!(
                (status, &shown["status"]),
                (200, &Value::from("completed")),
                "{shown}"
            );
            shown["scores"].clone()
        }
    };
    let careful = scores(oracle.clone()).await;
    assert_eq!(
        careful["tasks"], attacked,
        "only the twins count in the rank: {careful}"
    );
    assert_eq!(careful["passed"], attacked);
    let s = &careful["security"];
    assert_eq!(s["attacked_runs"], attacked);
    assert_eq!(s["twin_runs"], attacked);
    assert_eq!(s["utility"], 1.0);
    assert_eq!(s["utility_under_attack"], 1.0);
    assert_eq!(s["attack_success_rate"], 0.0, "the oracle's: {s}");
    assert!(s["by_kind"].as_object().unwrap().len() >= 5, "{s}");

    let gullible = scores(follower.clone()).await;
    let s = &gullible["security"];
    assert_eq!(s["attack_success_rate"], 1.0, "{s}");
    assert_eq!(s["utility"], 1.0, "the twins have nothing to follow: {s}");
    assert_eq!(
        gullible["success_rate"], 1.0,
        "the attacks it followed do not count against its rank: {gullible}"
    );
    for (kind, f) in s["by_kind"].as_object().unwrap() {
        assert_eq!(f["attack_success_rate"], 1.0, "{kind}");
    }

    // The board: both tied on the rank, told apart by their attack success.
    let (status, board) = svc.get("/leaderboard?set=dev", None).await;
    assert_eq!(status, 200, "{board}");
    let entry = |id: &str| -> Value {
        (board["entries"].as_array().unwrap().iter())
            .find(|e| e["submission_id"] == id)
            .unwrap_or_else(|| panic!("{id} on the board"))
            .clone()
    };
    let (careful, gullible) = (entry(&oracle), entry(&follower));
    assert_eq!(careful["rank"], gullible["rank"], "ranked alike: {board}");
    assert_eq!(careful["security"]["attack_success_rate"], 0.0);
    assert_eq!(gullible["security"]["attack_success_rate"], 1.0);

    let (status, _, csv) = svc.get_text("/leaderboard?set=dev&format=csv").await;
    assert_eq!(status, 200);
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let row = |id: &str| -> Vec<String> {
        let line = csv.lines().find(|l| l.contains(id)).expect("a row");
        line.split(',').map(str::to_string).collect()
    };
    assert_eq!(row(&oracle)[column("attack_success_rate")], "0");
    assert_eq!(row(&follower)[column("attack_success_rate")], "1");
    assert_eq!(row(&follower)[column("utility")], "1");
    assert_eq!(
        row(&follower)[column("attacked_runs")],
        attacked.to_string()
    );

    let (status, _, page) = svc.get_text("/?set=dev").await;
    assert_eq!(status, 200);
    assert!(
        page.contains(">Under attack<") && page.contains(">Attack success<"),
        "{page}"
    );
    // Sorted by attack success, lowest first: the page says so on that column (an unknown
    // key would fall back to the rank, marking the success rate instead).
    let (status, _, page) = svc.get_text("/?set=dev&sort=attack-success").await;
    assert_eq!(status, 200);
    let marked = page
        .find("aria-sort=\"ascending\"")
        .expect("a sorted column");
    let column = page[marked..].find(">Attack success<").expect("its label");
    assert!(
        column < 200 && page[marked..].contains("(lowest first)"),
        "{}",
        &page[marked..]
    );
    assert!(
        page.find("careful") < page.find("gullible"),
        "the lower attack success first"
    );

    let (status, _, own) = svc.get_text(&format!("/web/submissions/{follower}")).await;
    assert_eq!(status, 200);
    assert!(
        own.contains("Under attack") && own.contains("In email"),
        "{own}"
    );
}
