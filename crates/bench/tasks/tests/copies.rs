//! A run's world shares the servers of the world its seed built before (`mcpbench_world`'s
//! cache) and copies each on its first call there: for every task of the dev set, such a world
//! starts in the same state as a world built afresh, gives the same answers to the task's
//! reference calls and ends in the same state, what a run does to it never reaches the kept
//! world, and it copies exactly the servers the run calls.

use mcpbench_tasks::load_dir;
use mcpbench_world::World;
use serde_json::Value;
use std::path::Path;

#[test]
fn a_copied_world_behaves_as_one_built_afresh_and_runs_never_share_state() {
    let dev = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tasks/dev");
    let tasks = load_dir(&dev).expect("the dev set loads");
    let mut changed = 0;
    for task in &tasks {
        let servers = task.offered_servers();
        let mut built = World::build(&task.initial_state, &servers).unwrap();
        let initial = built.snapshot();
        // The first `new` builds and keeps; the second shares what was kept.
        World::new(&task.initial_state, &servers).unwrap();
        let mut copied = World::new(&task.initial_state, &servers).unwrap();
        assert_eq!(copied.snapshot(), initial, "{}: the initial state", task.id);
        for call in task.shortest_reference().iter().filter_map(|s| s.as_call()) {
            let a: Result<Value, String> = built
                .call(&call.tool, &call.arguments)
                .map_err(|e| e.to_string());
            let b = copied
                .call(&call.tool, &call.arguments)
                .map_err(|e| e.to_string());
            assert_eq!(a, b, "{}: the answer to {}", task.id, call.tool);
        }
        let end = built.snapshot();
        assert_eq!(copied.snapshot(), end, "{}: the final state", task.id);
        changed += usize::from(end != initial);
        let next = World::new(&task.initial_state, &servers).unwrap();
        assert_eq!(
            next.snapshot(),
            initial,
            "{}: the next run starts from the seed, not from the last run's end",
            task.id
        );
    }
    assert!(
        changed * 2 > tasks.len(),
        "most reference solutions change the world ({changed} of {})",
        tasks.len()
    );
}

#[test]
fn a_run_copies_only_the_servers_it_calls() {
    let dev = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tasks/dev");
    let tasks = load_dir(&dev).expect("the dev set loads");
    let (mut offered, mut copied) = (0, 0);
    for task in &tasks {
        let servers = task.offered_servers();
        let mut world = World::new(&task.initial_state, &servers).unwrap();
        assert!(
            world.copied_servers().is_empty(),
            "{}: a new world shares every server",
            task.id
        );
        let mut called: Vec<&str> = Vec::new();
        for call in task.shortest_reference().iter().filter_map(|s| s.as_call()) {
            let _ = world.call(&call.tool, &call.arguments);
            called.push(call.tool.split_once('.').unwrap().0);
        }
        let mut own = world.copied_servers();
        own.sort_unstable();
        called.sort_unstable();
        called.dedup();
        assert_eq!(own, called, "{}: the servers copied", task.id);
        offered += servers.len();
        copied += own.len();
    }
    assert!(
        copied * 3 < offered * 2,
        "the dev set's runs leave many offered servers uncalled ({copied} of {offered} copied)"
    );
}
