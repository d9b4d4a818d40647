//! The shop's running total ([`SHOP`]): every write moves it by exactly what it stores,
//! escaped text counted as stored, so a shop filled to its bound admits a write that fits to
//! the byte and refuses one a byte larger. Every call goes through `Server::call`, whose debug
//! audit compares the total with a fresh measure after each write.

use mcpbench_server_shop::{DiscountCode, Order, Product, Refund, SHOP, Seed, Shop};
use mcpbench_sim::{ErrorKind, Server, Simulated, Usage, footprint};
use serde_json::json;

/// Product 7001's title is `filler`; order 1043 (6,960 cents, nothing refunded) is paid.
fn seed(filler: &str) -> Seed {
    serde_json::from_value(json!({
        "locations": [
            { "id": "berlin", "name": "Berlin warehouse" },
            { "id": "lyon", "name": "Lyon store" },
            { "id": "paris", "name": "Paris warehouse", "managed_by": "ShipFast" }
        ],
        "products": [
            { "id": 7001, "sku": "MUG-CER", "title": filler, "price": 1490, "tags": ["kitchen"], "inventory": { "berlin": 12, "paris": 4 } },
            { "id": 7002, "sku": "LIN-SHIRT", "title": "Linen Shirt", "price": 3990, "inventory": { "berlin": 5 } }
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

fn orders(s: &Shop) -> Vec<Order> {
    serde_json::from_value(Simulated::snapshot(s)["orders"].clone()).expect("orders")
}

/// What the shop holds, counted here from its snapshot the way the brief states it: each
/// product and order with the id it is stored under (an order's refunds inside it), each code
/// with its name.
fn held(s: &Shop) -> Usage {
    let snap = Simulated::snapshot(s);
    let products: Vec<Product> = serde_json::from_value(snap["products"].clone()).unwrap();
    let codes: Vec<DiscountCode> = serde_json::from_value(snap["discount_codes"].clone()).unwrap();
    let mut total = Usage::default();
    for p in &products {
        total = total + Usage::of(1, &(p.id, p));
    }
    for o in orders(s) {
        total = total
            + Usage {
                records: 1 + o.refunds.len(),
                bytes: footprint(&(o.id, &o)),
            };
    }
    for d in &codes {
        total = total + Usage::of(1, &(&d.code, d));
    }
    total
}

/// A shop holding `room` bytes less than [`SHOP`] allows (product 7001's title fills it).
fn filled(room: usize) -> Shop {
    let one = held(&Shop::from_seed(&seed("x")).expect("valid seed")).bytes;
    let s = Shop::from_seed(&seed(&"x".repeat(1 + SHOP.bytes - room - one))).unwrap();
    assert_eq!(held(&s).bytes, SHOP.bytes - room);
    s
}

/// What a partial refund of 100 cents with `reason` makes order 1043 grow by, as stored.
fn refund_growth(s: &Shop, reason: &str) -> usize {
    let order = orders(s).into_iter().find(|o| o.id == 1043).expect("order");
    let mut after = order.clone();
    after.refunds.push(Refund {
        amount: 100,
        reason: reason.into(),
    });
    footprint(&after) - footprint(&order)
}

/// A plain reason that makes a refund of 100 cents grow order 1043 by exactly `growth` bytes.
fn reason_growing_by(s: &Shop, growth: usize) -> String {
    let reason = "y".repeat(1 + growth - refund_growth(s, "y"));
    assert_eq!(refund_growth(s, &reason), growth);
    reason
}

fn audited(s: &Shop) {
    assert_eq!(Simulated::audit(s), Ok(()));
}

const FULL: &str = "the shop is full: a run's shop holds at most 2 MiB in all; nothing was changed";

#[test]
fn every_write_moves_the_total_by_what_it_stores() {
    let mut s = Shop::from_seed(&seed("Ceramic Mug")).unwrap();
    let start = held(&s);
    let made = s
        .call("create_product", &json!({ "title": "Tea \"Pot\"", "sku": "TEA-POT", "price": 2500, "tags": ["kitchen", "tea\\leaf"], "inventory": [{ "location": "lyon", "quantity": 3 }] }))
        .unwrap();
    assert_eq!(made["id"], 7003);
    s.call(
        "update_product",
        &json!({ "productId": 7003, "price": 2990, "tags": [] }),
    )
    .unwrap();
    s.call("archive_product", &json!({ "productId": 7002 }))
        .unwrap();
    s.call(
        "adjust_inventory",
        &json!({ "sku": "TEA-POT", "location": "berlin", "delta": 40 }),
    )
    .unwrap();
    s.call(
        "set_inventory",
        &json!({ "sku": "TEA-POT", "location": "lyon", "quantity": 0 }),
    )
    .unwrap();
    s.call(
        "refund_order",
        &json!({ "orderId": 1043, "amount": 960, "reason": "dented\nlid" }),
    )
    .unwrap();
    let rest = s.call("refund_order", &json!({ "orderId": 1043 })).unwrap();
    assert_eq!(rest["status"], "refunded");
    s.call(
        "create_discount_code",
        &json!({ "code": "spring-5", "amountOff": 500, "usageLimit": 3 }),
    )
    .unwrap();
    // Refused for other reasons: nothing moves.
    for (tool, args) in [
        (
            "create_product",
            json!({ "title": "Again", "sku": "tea-pot", "price": 1 }),
        ),
        ("archive_product", json!({ "productId": 7002 })),
        (
            "adjust_inventory",
            json!({ "sku": "MUG-CER", "location": "berlin", "delta": -99 }),
        ),
        (
            "set_inventory",
            json!({ "sku": "MUG-CER", "location": "paris", "quantity": 1 }),
        ),
        ("refund_order", json!({ "orderId": 1043, "amount": 1 })),
        ("refund_order", json!({ "orderId": 1044 })),
        (
            "create_discount_code",
            json!({ "code": "WELCOME10", "percentOff": 5 }),
        ),
    ] {
        s.call(tool, &args).unwrap_err();
    }
    audited(&s);
    assert_eq!(
        held(&s).records,
        start.records + 1 + 2 + 1,
        "product, 2 refunds, code"
    );
}

#[test]
fn escaped_text_is_counted_as_stored_and_removals_give_bytes_back() {
    let mut s = Shop::from_seed(&seed("Ceramic Mug")).unwrap();
    let text = "a\"b\\c\n\u{1}é";
    assert_eq!(
        footprint(text),
        19,
        "quotes, \\\", \\\\, \\n, \\u0001, two bytes of é"
    );
    let before = held(&s).bytes;
    s.call(
        "update_product",
        &json!({ "productId": 7001, "title": text }),
    )
    .unwrap();
    assert_eq!(held(&s).bytes, before + 19 - footprint("Ceramic Mug"));
    // A shorter title gives bytes back.
    s.call(
        "update_product",
        &json!({ "productId": 7001, "title": "Mug" }),
    )
    .unwrap();
    assert_eq!(held(&s).bytes, before - 8);
    // Emptying berlin drops its entry, `"berlin":12,`.
    s.call(
        "set_inventory",
        &json!({ "sku": "MUG-CER", "location": "berlin", "quantity": 0 }),
    )
    .unwrap();
    assert_eq!(held(&s).bytes, before - 8 - "\"berlin\":12,".len());
    // A refund reason with escapes: the refund, its list, escaped as stored.
    let reason = "bent \"handle\"\t✓";
    let growth = refund_growth(&s, reason);
    assert_eq!(
        growth,
        ",\"refunds\":[{\"amount\":100,\"reason\":}]".len() + footprint(reason)
    );
    s.call(
        "refund_order",
        &json!({ "orderId": 1043, "amount": 100, "reason": reason }),
    )
    .unwrap();
    assert_eq!(held(&s).bytes, before - 8 - "\"berlin\":12,".len() + growth);
    audited(&s);
}

#[test]
fn a_full_shop_admits_a_refund_that_fits_to_the_byte() {
    const ROOM: usize = 200;
    let mut s = filled(ROOM);
    let snapshot = Simulated::snapshot(&s);
    // The order's first refund costs the refund and the list around it, not the refund alone:
    // a reason one byte over the room is refused, even though the refund by itself fits.
    let over = reason_growing_by(&s, ROOM + 1);
    let refund = footprint(&Refund {
        amount: 100,
        reason: over.clone(),
    });
    assert!(refund < ROOM, "the refund alone would fit");
    let e = s
        .call(
            "refund_order",
            &json!({ "orderId": 1043, "amount": 100, "reason": over }),
        )
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::FailedPrecondition);
    assert_eq!(e.message, FULL);
    assert_eq!(
        Simulated::snapshot(&s),
        snapshot,
        "a refusal changes nothing"
    );
    // The refusal left the total where it was: a reason that fits exactly is admitted.
    let fits = reason_growing_by(&s, ROOM);
    s.call(
        "refund_order",
        &json!({ "orderId": 1043, "amount": 100, "reason": fits }),
    )
    .unwrap();
    assert_eq!(held(&s).bytes, SHOP.bytes);
    // Full to the byte: a second refund (a separator more) is refused.
    let e = s
        .call("refund_order", &json!({ "orderId": 1043, "amount": 1 }))
        .unwrap_err();
    assert_eq!(e.message, FULL);
    audited(&s);
}

#[test]
fn stock_and_status_that_lengthen_a_product_are_admitted_like_any_growth() {
    let mut s = filled(0);
    // An archived status is stored, an active one is not: `,"status":"archived"`.
    let e = s
        .call("archive_product", &json!({ "productId": 7002 }))
        .unwrap_err();
    assert_eq!(e.message, FULL);
    // A count with as many digits fits; one digit more, or a location first stocked, does not.
    s.call(
        "adjust_inventory",
        &json!({ "sku": "MUG-CER", "location": "berlin", "delta": 3 }),
    )
    .unwrap();
    for (tool, args) in [
        (
            "adjust_inventory",
            json!({ "sku": "MUG-CER", "location": "berlin", "delta": 85 }),
        ),
        (
            "set_inventory",
            json!({ "sku": "LIN-SHIRT", "location": "lyon", "quantity": 1 }),
        ),
        (
            "create_discount_code",
            json!({ "code": "MORE", "percentOff": 1 }),
        ),
    ] {
        assert_eq!(s.call(tool, &args).unwrap_err().message, FULL, "{tool}");
    }
    // Emptying a location frees `"berlin":5` (with its braces and key, as it was the only
    // one): enough to archive the product.
    s.call(
        "set_inventory",
        &json!({ "sku": "LIN-SHIRT", "location": "berlin", "quantity": 0 }),
    )
    .unwrap();
    let freed = ",\"inventory\":{\"berlin\":5}".len();
    assert_eq!(held(&s).bytes, SHOP.bytes - freed);
    s.call("archive_product", &json!({ "productId": 7002 }))
        .unwrap();
    assert_eq!(
        held(&s).bytes,
        SHOP.bytes - freed + ",\"status\":\"archived\"".len()
    );
    audited(&s);
}

#[test]
fn refunds_count_as_records() {
    let mut sd = seed("Ceramic Mug");
    // Two products, two orders and a code beside them: 1,994 more codes make 1,999 records.
    for n in 0..1_994 {
        sd.discount_codes.push(DiscountCode {
            code: format!("CODE{n}"),
            percent_off: Some(5),
            amount_off: None,
            usage_limit: None,
            used: 0,
        });
    }
    let mut s = Shop::from_seed(&sd).unwrap();
    assert_eq!(held(&s).records, 1_999);
    s.call("refund_order", &json!({ "orderId": 1043, "amount": 100 }))
        .unwrap();
    let records = "the shop is full: a run's shop holds at most 2,000 products, orders, refunds and discount codes; nothing was changed";
    for (tool, args) in [
        ("refund_order", json!({ "orderId": 1043, "amount": 100 })),
        (
            "create_discount_code",
            json!({ "code": "LAST", "percentOff": 5 }),
        ),
        (
            "create_product",
            json!({ "title": "One more", "sku": "ONE-MORE", "price": 1 }),
        ),
    ] {
        assert_eq!(s.call(tool, &args).unwrap_err().message, records, "{tool}");
    }
    // Edits that add no record still pass.
    s.call(
        "update_product",
        &json!({ "productId": 7002, "title": "Still editable" }),
    )
    .unwrap();
    assert_eq!(held(&s).records, 2_000);
    audited(&s);
}
