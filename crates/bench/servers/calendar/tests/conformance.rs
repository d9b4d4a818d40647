use mcpbench_server_calendar::Calendar;

#[test]
fn calendar_conforms() {
    let problems = mcpbench_sim::conformance::check_server::<Calendar>(40);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
