use mcpbench_server_postgres::Postgres;

#[test]
fn postgres_conforms() {
    let problems = mcpbench_sim::conformance::check_server::<Postgres>(40);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
