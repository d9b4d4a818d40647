use mcpbench_server_filesystem::Filesystem;

#[test]
fn filesystem_conforms() {
    let problems = mcpbench_sim::conformance::check_server::<Filesystem>(40);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
