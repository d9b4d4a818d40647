//! A shop at a real scale: the catalogue and order history a generated task gives it, walked
//! page by page.

use mcpbench_server_shop::{Background, OrderStatus, Seed, Shop, sample_seed};
use mcpbench_sim::{Rng, Server, Simulated};
use serde_json::{Value, json};
use std::collections::BTreeSet;

fn seed(products: u32, orders: u32) -> Seed {
    Seed {
        background: Some(Background {
            seed: 5,
            products,
            orders,
        }),
        ..sample_seed(&mut Rng::new(9, 0))
    }
}

fn call(s: &mut Shop, tool: &str, args: Value) -> Value {
    Server::call(s, tool, &args).expect("the call succeeds")
}

#[test]
fn the_history_sits_beside_the_seeds_own_records_and_leaves_them_as_they_are() {
    let own = sample_seed(&mut Rng::new(9, 0));
    let mut s = Shop::from_seed(&seed(200, 150)).unwrap();
    let products = call(&mut s, "list_products", json!({ "limit": 100 }));
    assert_eq!(products["total"], own.products.len() + 200);
    for p in &own.products {
        let got = call(&mut s, "get_product", json!({ "productId": p.id }));
        assert_eq!(got["sku"], p.sku.as_str());
    }
    // Some of the history's newest orders are still paid and waiting, as the seed's are, so
    // an open order does not give a task's away.
    let paid = call(
        &mut s,
        "list_orders",
        json!({ "status": "paid", "limit": 100 }),
    );
    let own_paid = own
        .orders
        .iter()
        .filter(|o| o.status == OrderStatus::Paid)
        .count();
    assert!(
        paid["total"].as_u64().unwrap() as usize > own_paid + 2,
        "{paid}"
    );
    // Walk all orders with the cursor: each once, the seed's among them.
    let mut seen = Vec::new();
    let mut after = Value::Null;
    loop {
        let mut args = json!({ "limit": 40 });
        if let Some(c) = after.as_str() {
            args["after"] = json!(c);
        }
        let page = call(&mut s, "list_orders", args);
        for o in page["orders"].as_array().unwrap() {
            seen.push(o["id"].as_u64().unwrap());
        }
        if page["pageInfo"]["hasNextPage"] != true {
            break;
        }
        after = page["pageInfo"]["endCursor"].clone();
    }
    assert_eq!(seen.len(), own.orders.len() + 150);
    assert_eq!(seen.iter().collect::<BTreeSet<_>>().len(), seen.len());
    for o in &own.orders {
        assert!(seen.contains(&o.id), "#{}", o.id);
    }
    assert_eq!(
        Simulated::snapshot(&Shop::from_seed(&seed(200, 150)).unwrap()),
        Simulated::snapshot(&s)
    );
}

#[test]
fn the_largest_history_fits_and_a_larger_one_is_refused() {
    let full = Shop::from_seed(&seed(500, 500)).unwrap();
    assert_eq!(
        Simulated::snapshot(&full)["products"]
            .as_array()
            .unwrap()
            .len(),
        500 + 8
    );
    let err = Shop::from_seed(&seed(501, 10)).unwrap_err();
    assert!(err.to_string().contains("500"), "{err}");
}
