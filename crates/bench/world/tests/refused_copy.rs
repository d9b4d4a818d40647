//! A run's first call to postgres copies the state its seed built; the memory every postgres
//! engine of the process shares can refuse that copy. The call then answers an error that is
//! ours, not the agent's, and the world remembers which server refused, so the run is never
//! scored. Its own test binary: it fills the process's engine memory on purpose.

use mcpbench_world::{InitialState, World};
use serde_json::json;

#[test]
fn a_refused_copy_answers_unavailable_and_spoils_the_run_until_memory_frees() {
    let servers = ["postgres".to_string()];
    let initial = InitialState::default();
    // The run's world shares the seed's state (kept in the world cache) until its first call.
    let mut run = World::new(&initial, &servers).expect("the default seed loads");
    assert_eq!(run.copied_servers(), Vec::<&str>::new());

    // Other runs' engines take the memory every engine shares, until one is refused.
    let mut hoard = Vec::new();
    while let Ok(world) = World::build(&initial, &servers) {
        hoard.push(world);
        assert!(
            hoard.len() < 10_000,
            "the engines' shared memory never ran out"
        );
    }

    let refused = run
        .call("postgres.list_tables", &json!({}))
        .expect_err("no memory left for this run's copy");
    assert_eq!(refused.kind.as_str(), "unavailable");
    assert!(
        refused.message.contains("our side"),
        "the agent is told the fault is ours: {}",
        refused.message
    );
    assert_eq!(run.refused_copy(), Some("postgres"));
    assert_eq!(run.copied_servers(), Vec::<&str>::new(), "still shared");

    // With memory back, the next call copies and answers; the run stays spoiled.
    hoard.clear();
    let tables = run
        .call("postgres.list_tables", &json!({}))
        .expect("the copy succeeds once memory is free");
    assert!(tables["tables"].is_array(), "{tables}");
    assert_eq!(run.copied_servers(), vec!["postgres"]);
    assert_eq!(run.refused_copy(), Some("postgres"));

    // A world that never met a refusal says so.
    let clean = World::new(&initial, &servers).unwrap();
    assert_eq!(clean.refused_copy(), None);
}
