use mcpbench_server_shop::Shop;

#[test]
fn shop_conforms() {
    let problems = mcpbench_sim::conformance::check_server::<Shop>(40);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
