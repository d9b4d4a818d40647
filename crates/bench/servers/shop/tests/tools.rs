//! Behaviour a user of the shop would notice: inventory rules, refunds, conflicts, schema
//! checks, determinism and predicates.

use mcpbench_server_shop::{Atom, OrderStatus, Seed, Shop, sample_seed};
use mcpbench_sim::{ErrorKind, Rng, Server, Simulated, ToolError};
use serde_json::{Value, json};

fn seed() -> Seed {
    serde_json::from_value(json!({
        "locations": [
            { "id": "berlin", "name": "Berlin warehouse" },
            { "id": "paris", "name": "Paris warehouse", "managed_by": "ShipFast" }
        ],
        "products": [
            { "id": 7001, "sku": "MUG-CER", "title": "Ceramic Mug", "price": 1490, "tags": ["kitchen"], "inventory": { "berlin": 12, "paris": 4 } },
            { "id": 7002, "sku": "LIN-SHIRT", "title": "Linen Shirt", "price": 3990, "status": "archived" }
        ],
        "orders": [
            { "id": 1043, "email": "anna@example.com", "shipping": 490, "discount": 500,
              "lines": [ { "sku": "MUG-CER", "title": "Ceramic Mug", "quantity": 2, "price": 1490 },
                         { "sku": "LIN-SHIRT", "title": "Linen Shirt", "quantity": 1, "price": 3990 } ] },
            { "id": 1044, "email": "luc@example.com", "status": "cancelled",
              "lines": [ { "sku": "MUG-CER", "title": "Ceramic Mug", "quantity": 1, "price": 1490 } ] }
        ],
        "discount_codes": [ { "code": "WELCOME10", "percent_off": 10 } ]
    }))
    .expect("seed parses")
}

fn server() -> Shop {
    Shop::from_seed(&seed()).expect("valid seed")
}

fn kind(r: Result<Value, ToolError>) -> ErrorKind {
    r.expect_err("should fail").kind
}

fn level(s: &Shop, sku: &str, location: &str, quantity: u32) -> bool {
    s.holds(&Atom::InventoryLevel {
        sku: sku.into(),
        location: location.into(),
        quantity,
    })
}

#[test]
fn adjust_is_relative_set_is_absolute_and_stock_never_goes_negative() {
    let mut s = server();
    let out = s
        .call(
            "adjust_inventory",
            &json!({ "sku": "mug-cer", "location": "Berlin", "delta": 5 }),
        )
        .unwrap();
    assert_eq!(out["available"], 17);
    s.call(
        "set_inventory",
        &json!({ "sku": "MUG-CER", "location": "berlin", "quantity": 3 }),
    )
    .unwrap();
    assert!(level(&s, "MUG-CER", "berlin", 3));
    let err = s
        .call(
            "adjust_inventory",
            &json!({ "sku": "MUG-CER", "location": "berlin", "delta": -4 }),
        )
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::FailedPrecondition);
    assert!(err.message.contains("only 3"), "{err}");
    assert_eq!(
        kind(s.call(
            "adjust_inventory",
            &json!({ "sku": "MUG-CER", "location": "berlin", "delta": 0 })
        )),
        ErrorKind::InvalidArguments
    );
    assert_eq!(
        kind(s.call(
            "set_inventory",
            &json!({ "sku": "MUG-CER", "location": "berlin", "quantity": -1 })
        )),
        ErrorKind::InvalidArguments
    );
    assert_eq!(
        kind(s.call(
            "set_inventory",
            &json!({ "sku": "NOPE", "location": "berlin", "quantity": 1 })
        )),
        ErrorKind::NotFound
    );
}

#[test]
fn managed_locations_refuse_stock_changes() {
    let mut s = server();
    let err = s
        .call(
            "adjust_inventory",
            &json!({ "sku": "MUG-CER", "location": "paris", "delta": 1 }),
        )
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::PermissionDenied);
    assert!(err.message.contains("ShipFast"), "{err}");
    assert!(level(&s, "MUG-CER", "paris", 4));
    let locations = s.call("list_locations", &json!({})).unwrap();
    assert_eq!(locations["locations"][1]["inventoryEditable"], false);
}

#[test]
fn order_totals_include_shipping_and_discount() {
    let mut s = server();
    let o = s.call("get_order", &json!({ "orderId": 1043 })).unwrap();
    assert_eq!(o["subtotal"], 2 * 1490 + 3990);
    assert_eq!(o["total"], 2 * 1490 + 3990 + 490 - 500);
    assert_eq!(o["totalFormatted"], "69.60 EUR");
    let listed = s.call("list_orders", &json!({})).unwrap();
    assert_eq!(listed["orders"][0]["id"], 1044, "newest first");
}

#[test]
fn refunds_may_be_partial_and_stop_at_the_total() {
    let mut s = server();
    s.call("refund_order", &json!({ "orderId": 1043, "amount": 1490 }))
        .unwrap();
    assert!(s.holds(&Atom::OrderRefunded {
        order: 1043,
        amount: 1490
    }));
    assert!(s.holds(&Atom::OrderStatus {
        order: 1043,
        status: OrderStatus::Paid
    }));
    assert_eq!(
        kind(s.call(
            "refund_order",
            &json!({ "orderId": 1043, "amount": 999999 })
        )),
        ErrorKind::FailedPrecondition
    );
    let out = s.call("refund_order", &json!({ "orderId": 1043 })).unwrap();
    assert_eq!(out["totalRefunded"], 6960);
    assert!(s.holds(&Atom::OrderStatus {
        order: 1043,
        status: OrderStatus::Refunded
    }));
    assert_eq!(
        kind(s.call("refund_order", &json!({ "orderId": 1043 }))),
        ErrorKind::FailedPrecondition
    );
    assert_eq!(
        kind(s.call("refund_order", &json!({ "orderId": 1044 }))),
        ErrorKind::FailedPrecondition
    );
    assert_eq!(
        kind(s.call("refund_order", &json!({ "orderId": 9 }))),
        ErrorKind::NotFound
    );
    assert_eq!(
        kind(s.call("refund_order", &json!({ "orderId": "1043" }))),
        ErrorKind::InvalidArguments
    );
}

#[test]
fn skus_and_codes_are_unique() {
    let mut s = server();
    let err = s
        .call(
            "create_product",
            &json!({ "title": "Mug", "sku": "mug-cer", "price": 100 }),
        )
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Conflict);
    let out = s
        .call("create_product", &json!({ "title": "Kettle", "sku": "KETTLE", "price": 4990, "tags": ["kitchen", "Kitchen", "gift"], "inventory": [{ "location": "berlin", "quantity": 7 }] }))
        .unwrap();
    assert_eq!(out["id"], 7003);
    assert_eq!(out["tags"], json!(["gift", "kitchen"]));
    assert!(level(&s, "KETTLE", "berlin", 7));
    assert_eq!(
        kind(s.call(
            "create_discount_code",
            &json!({ "code": "welcome10", "percentOff": 5 })
        )),
        ErrorKind::Conflict
    );
    assert_eq!(
        kind(s.call(
            "create_discount_code",
            &json!({ "code": "NEW", "percentOff": 5, "amountOff": 100 })
        )),
        ErrorKind::InvalidArguments
    );
    assert_eq!(
        kind(s.call(
            "create_discount_code",
            &json!({ "code": "has space", "percentOff": 5 })
        )),
        ErrorKind::InvalidArguments
    );
    s.call(
        "create_discount_code",
        &json!({ "code": "summer15", "percentOff": 15, "usageLimit": 100 }),
    )
    .unwrap();
    let want = |p| Atom::DiscountExists {
        code: "SUMMER15".into(),
        percent_off: Some(p),
        amount_off: None,
        usage_limit: Some(100),
    };
    assert!(s.holds(&want(15)));
    assert!(!s.holds(&want(16)));
}

#[test]
fn update_and_archive() {
    let mut s = server();
    assert_eq!(
        kind(s.call("update_product", &json!({ "productId": 7001 }))),
        ErrorKind::InvalidArguments
    );
    assert_eq!(
        kind(s.call(
            "update_product",
            &json!({ "productId": 7001, "price": 12.5 })
        )),
        ErrorKind::InvalidArguments
    );
    s.call(
        "update_product",
        &json!({ "productId": 7001, "price": 1290 }),
    )
    .unwrap();
    assert!(s.holds(&Atom::ProductPrice {
        sku: "MUG-CER".into(),
        price: 1290
    }));
    assert_eq!(
        kind(s.call("archive_product", &json!({ "productId": 7002 }))),
        ErrorKind::FailedPrecondition
    );
    s.call("archive_product", &json!({ "productId": 7001 }))
        .unwrap();
    let active = s
        .call("list_products", &json!({ "status": "active" }))
        .unwrap();
    assert_eq!(active["total"], 0);
    let found = s
        .call("search_products", &json!({ "query": "KITCHEN" }))
        .unwrap();
    assert_eq!(found["products"][0]["sku"], "MUG-CER");
}

#[test]
fn same_calls_give_the_same_bytes() {
    let run = || {
        let mut s = Shop::from_seed(&sample_seed(&mut Rng::new(3, 9))).unwrap();
        let first = s.call("list_products", &json!({ "limit": 1 })).unwrap();
        let id = first["products"][0]["id"].clone();
        let out = s
            .call("update_product", &json!({ "productId": id, "price": 1000 }))
            .unwrap();
        (first, out, Simulated::snapshot(&s))
    };
    assert_eq!(run(), run());
}

#[test]
fn bad_seeds_are_refused() {
    let mut bad = seed();
    bad.products[1].sku = "MUG-CER".into();
    assert!(Shop::from_seed(&bad).is_err());
    let mut bad = seed();
    bad.products[0].inventory.insert("rome".into(), 1);
    assert!(Shop::from_seed(&bad).is_err());
    let mut bad = seed();
    bad.orders[0].status = OrderStatus::Refunded;
    assert!(
        Shop::from_seed(&bad).is_err(),
        "a refunded order needs refunds adding up to its total"
    );
    assert!(serde_json::from_value::<Seed>(json!({ "products": [], "warehouses": [] })).is_err());
}
