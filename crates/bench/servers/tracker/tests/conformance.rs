use mcpbench_server_tracker::Tracker;

#[test]
fn tracker_conforms() {
    let problems = mcpbench_sim::conformance::check_server::<Tracker>(40);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
