use mcpbench_server_slack::Slack;

#[test]
fn slack_conforms() {
    let problems = mcpbench_sim::conformance::check_server::<Slack>(40);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
