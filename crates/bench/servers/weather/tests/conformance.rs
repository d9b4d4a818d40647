use mcpbench_server_weather::Weather;

#[test]
fn weather_conforms() {
    let problems = mcpbench_sim::conformance::check_server::<Weather>(40);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
