use mcpbench_server_github::Github;

#[test]
fn github_conforms() {
    let problems = mcpbench_sim::conformance::check_server::<Github>(40);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
