//! `compose.revenue_to_channel` (postgres + slack): three or four customers, named in the goal,
//! each get a message in a channel with what they spent on paid orders since a given month.
//! Every target has a paid order from before that month and an order since then in another
//! status, so a careless agent that sums all of a customer's orders, or all paid ones, posts
//! the wrong amount; customers not named must get no message.

use super::{REPORT_CHANNELS, bot_messages, workspace};
use super::{and_list, list_channels, month_name, pg_query, post, posted, with_slack};
use mcpbench_server_postgres::sample::{Order, Shop, ShopTable, money};
use mcpbench_sim::{Pred, Rng, params};
use mcpbench_world::{Composed, InitialState};
use serde_json::json;

/// Statuses an order since the cut-off can have without counting.
const UNPAID: &[&str] = &["pending", "cancelled"];

pub(super) fn revenue_to_channel(rng: &mut Rng) -> Composed {
    let mut db = Shop::sample(rng);
    let channel = *rng.pick(REPORT_CHANNELS);
    let from = rng.range(3, 10) as u32;
    let k = rng.range(3, 4).min(db.customers.len() as i64) as usize;
    let mut who: Vec<usize> = (0..db.customers.len()).collect();
    rng.shuffle(&mut who);
    who.truncate(k);
    let since = format!("2024-{from:02}-01");
    let mut totals: Vec<i64> = Vec::new();
    for &c in &who {
        add_orders(rng, &mut db, c, from);
        // Distinct amounts, so a message that pairs a name with another's amount fails.
        while totals.contains(&paid_since(&db, c, &since)) {
            let month = rng.range(from as i64, 12);
            add_order(rng, &mut db, c, "paid", month);
        }
        totals.push(paid_since(&db, c, &since));
    }
    let names: Vec<String> = who.iter().map(|&c| db.customers[c].name.clone()).collect();
    let lines: Vec<String> = who
        .iter()
        .map(|&c| {
            format!(
                "{}: {}",
                db.customers[c].name,
                money(paid_since(&db, c, &since))
            )
        })
        .collect();

    let (w, channel_id) = workspace(rng, channel);
    let mut steps = vec![
        pg_query(&format!(
            "SELECT c.name, SUM(o.total) FROM orders o JOIN customers c ON c.id = o.customer_id \
             WHERE o.status = 'paid' AND o.placed_on >= '{since}' GROUP BY c.name"
        )),
        list_channels(),
    ];
    steps.extend(lines.iter().map(|l| post(&channel_id, l)));
    let mut checks: Vec<Pred<_>> = lines.iter().map(|l| posted(channel, l)).collect();
    checks.push(bot_messages(channel, k));

    let list = and_list(&names);
    let month = month_name(from as usize);
    let goal = match rng.below(3) {
        0 => format!(
            "For the account review, post in #{channel} how much each of {list} has spent with us on paid orders placed from {month} 1, 2024 onward (the total column of the orders table; orders in any other status don't count). One message per customer, written exactly `<customer name>: <amount>` with two decimals, like `Jane Doe: 1234.50`."
        ),
        1 => format!(
            "I need the paid revenue since the start of {month} 2024 for {list}: for each of them add up the totals of their orders with status paid placed on or after {month} 1, 2024, and post it in the #{channel} channel as its own message, exactly `<customer name>: <amount>` (two decimals, e.g. `Jane Doe: 87.00`). Nobody else should get a message."
        ),
        _ => format!(
            "Please share in #{channel} what {list} have paid us since {month} 2024, one message each in the form `<customer name>: <amount>` with the amount to two decimals (like `Jane Doe: 310.25`). Count only their orders whose status is paid and that were placed from {month} 1, 2024 on."
        ),
    };
    Composed {
        max_steps: steps.len() as u32 + 5,
        goal,
        initial_state: InitialState {
            postgres: Some(db.seed(&[
                ShopTable::Customers,
                ShopTable::Products,
                ShopTable::Orders,
            ])),
            slack: Some(w.seed),
            ..Default::default()
        },
        available_tools: with_slack(&[
            "postgres.query",
            "postgres.list_tables",
            "postgres.describe_table",
            "postgres.get_table_sample",
        ]),
        success_predicate: Pred::All(checks),
        faults: vec![],
        reference_solutions: vec![steps],
        params: params(&[
            ("channel", json!(channel)),
            ("since", json!(since)),
            ("customers", json!(names)),
        ]),
    }
}

/// Gives customer `c` a paid order since month `from` (the one that counts), a paid one before
/// it and an unpaid one since it (the near misses).
fn add_orders(rng: &mut Rng, db: &mut Shop, c: usize, from: u32) {
    let kinds = [
        ("paid", rng.range(from as i64, 12)),
        ("paid", rng.range(1, from as i64 - 1)),
        (*rng.pick(UNPAID), rng.range(from as i64, 12)),
    ];
    for (status, month) in kinds {
        add_order(rng, db, c, status, month);
    }
}

/// An order of customer `c` with `status`, placed in `month` of 2024.
fn add_order(rng: &mut Rng, db: &mut Shop, c: usize, status: &str, month: i64) {
    let product = rng.pick(&db.products).clone();
    let quantity = rng.range(1, 4);
    let id = db.orders.iter().map(|o| o.id).max().unwrap_or(1000) + 1;
    db.orders.push(Order {
        id,
        customer_id: db.customers[c].id,
        product_id: product.id,
        quantity,
        total_cents: quantity * product.price_cents,
        status: status.into(),
        placed_on: format!("2024-{month:02}-{:02}", rng.range(1, 28)),
    });
}

/// What customer `c` spent on paid orders placed on or after `since`, in cents.
fn paid_since(db: &Shop, c: usize, since: &str) -> i64 {
    db.orders_of(db.customers[c].id)
        .iter()
        .filter(|o| o.status == "paid" && o.placed_on.as_str() >= since)
        .map(|o| o.total_cents)
        .sum()
}
