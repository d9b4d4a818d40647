use mcpbench_server_email::Email;

#[test]
fn email_conforms() {
    let problems = mcpbench_sim::conformance::check_server::<Email>(40);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
