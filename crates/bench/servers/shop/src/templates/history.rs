//! Templates over the shop's whole history, drawn with a background of their own: the answer
//! runs through every page of a listing, not only the first.

use super::{Kit, euros, params, sample_seed};
use crate::background::Background;
use crate::tools::orders_query;
use crate::{OrderStatus, Shop};
use mcpbench_sim::{AnswerCheck, Draft, Pred, Rng, Step, call, token_for};
use serde_json::json;

/// Ways to ask for the value of a kind of order above a floor, with `{status}` and `{floor}`.
const VALUE_ASKS: &[&str] = &[
    "What did our {status} orders over {floor} come to in all? Give the sum of their totals in euros.",
    "Add up the totals of every {status} order worth more than {floor}: how much is that, in euros?",
    "For the quarterly review I need the combined value of all {status} orders above {floor}, in euros.",
    "How much money is in the {status} orders that came to more than {floor} each? One figure in euros, please.",
    "Across the whole order history, what is the sum of the {status} orders larger than {floor}, in euros?",
];

/// The orders of a status above a floor, summed over the store's whole history: a few hundred
/// orders, so the listing runs to several pages and the filter on the total is the agent's.
pub(crate) fn order_history_value(rng: &mut Rng) -> Draft<Shop> {
    let mut seed = sample_seed(rng);
    seed.background = Some(Background::draw(rng));
    let shop = Shop::from_seed(&seed).expect("a sampled shop with its background is valid");
    let (status, word) = *rng.pick(&[
        (OrderStatus::Fulfilled, "fulfilled"),
        (OrderStatus::Fulfilled, "fulfilled"),
        (OrderStatus::Refunded, "refunded"),
        (OrderStatus::Cancelled, "cancelled"),
    ]);
    let totals: Vec<u64> = (shop.orders.values())
        .filter(|o| o.status == status)
        .map(|o| o.total())
        .collect();
    // A floor in whole euros that no total equals, so "over" cannot be read two ways.
    let floor = loop {
        let floor = 100 * rng.range(15, 90) as u64;
        if !totals.contains(&floor) {
            break floor;
        }
    };
    let sum: u64 = totals.iter().filter(|t| **t > floor).sum();
    let query = orders_query(Some(status), None);
    let mut reference: Vec<Step> = (0..totals.len().div_ceil(100).max(1))
        .map(|page| {
            let mut args = json!({ "status": word, "limit": 100 });
            if page > 0 {
                args["after"] = json!(token_for(100 * page, &query));
            }
            call::<Shop>("list_orders", args)
        })
        .collect();
    let pages = reference.len();
    reference.push(Step::Answer {
        answer: format!("{}.{:02}", sum / 100, sum % 100),
    });
    let floor_text = euros(floor).trim_end_matches(".00").to_string();
    Draft {
        goal: rng
            .pick(VALUE_ASKS)
            .replace("{status}", word)
            .replace("{floor}", &floor_text),
        max_steps: pages as u32 + 4,
        seed,
        tools: Shop::tools(&["list_orders", "get_order", "search_products"]),
        predicate: Pred::Answer(AnswerCheck::OnlyNumber {
            value: sum as f64 / 100.0,
            tolerance: 0.001,
        }),
        references: vec![reference],
        faults: vec![],
        params: params(&[
            ("status", json!(word)),
            ("floor", json!(floor)),
            ("sum", json!(sum)),
            ("orders", json!(totals.len())),
        ]),
    }
}
