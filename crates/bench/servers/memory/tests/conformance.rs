use mcpbench_server_memory::Memory;

#[test]
fn memory_conforms() {
    let problems = mcpbench_sim::conformance::check_server::<Memory>(40);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
