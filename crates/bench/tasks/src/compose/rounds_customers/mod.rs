//! Customer rounds: long tasks where a list of customers is worked out on one server and each
//! of them is then written about on another.
//!
//! - `compose.delayed_orders` (shop, email): an item is out of stock; the paid, unshipped orders
//!   holding it are found among thirty-odd orders (one past the first page of newest orders),
//!   each checked line by line, and each customer gets an email of their own apologising, naming
//!   the item and their order number; nobody else gets one.
//! - `compose.key_accounts` (postgres, memory): a quarter's orders are totalled per customer in
//!   a database of hundreds of rows; those above a threshold are noted in the knowledge graph
//!   the way last quarter's key accounts are (their type, a spend line, a link from the account
//!   manager of their city), a returning one only getting the new line.
//!
//! Each is registered twice: as composition, and as recovery with one transient failure of a
//! write in the middle of the work, which the reference simply repeats. This file holds what
//! both share: the registration, drawn names, tool lists and transient faults.

mod delayed_orders;
mod key_accounts;

use delayed_orders::{delayed_orders, delayed_orders_after_fault};
use key_accounts::{key_accounts, key_accounts_after_fault};
use mcpbench_sim::{Category, Difficulty, ErrorKind, Fault, Rng};
use mcpbench_world::AnyTemplate;

#[rustfmt::skip]
pub(crate) fn templates() -> Vec<AnyTemplate> {
    use Category::{Composition, Recovery};
    let t = |id, servers: [&'static str; 2], category, build| {
        AnyTemplate::new(id, servers.to_vec(), category, Difficulty::Hard, build)
    };
    let (shop_mail, pg_memory) = (["shop", "email"], ["postgres", "memory"]);
    vec![
        t("compose.delayed_orders", shop_mail, Composition, delayed_orders),
        t("compose.delayed_orders_after_fault", shop_mail, Recovery, delayed_orders_after_fault),
        t("compose.key_accounts", pg_memory, Composition, key_accounts),
        t("compose.key_accounts_after_fault", pg_memory, Recovery, key_accounts_after_fault),
    ]
}

/// Qualified tool names, space-separated.
pub(super) fn tools(names: &str) -> Vec<String> {
    names.split_whitespace().map(String::from).collect()
}

const FIRST: &str = "Aisha Bruno Carla Dmitri Elena Felix Grace Hugo Ines Jakob Keiko Liam Maya \
                     Nils Olga Pablo Quinn Rita Samir Tess Umar Vera Wanda Yusuf";
const LAST: &str = "Adler Bianchi Costa Duarte Eriksen Fontaine Gruber Horvat Ibsen Jansen \
                    Kowalski Lindqvist Moreno Nakamura Oliveira Pereira Quist Reyes Schulz \
                    Takahashi Ulrich Varga Weber Zielinski";

/// `n` distinct full names.
pub(super) fn people(rng: &mut Rng, n: usize) -> Vec<String> {
    let first: Vec<&str> = FIRST.split_whitespace().collect();
    let last: Vec<&str> = LAST.split_whitespace().collect();
    let mut out: Vec<String> = Vec::with_capacity(n);
    while out.len() < n {
        let name = format!("{} {}", rng.pick(&first), rng.pick(&last));
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// Transient errors, with `{lost}` for what did not happen.
#[rustfmt::skip]
const TRANSIENT: &[(ErrorKind, &str)] = &[
    (ErrorKind::RateLimited, "too many requests in a short time; {lost}. Retry in a few seconds"),
    (ErrorKind::Unavailable, "the service is briefly unavailable (503); {lost}"),
    (ErrorKind::Timeout, "no response within 30 seconds; {lost}"),
];

/// One failure of the `on_call`-th call of `tool` that trying again gets past.
pub(super) fn transient(rng: &mut Rng, tool: &str, on_call: u32, lost: &str) -> Fault {
    let (error, message) = *rng.pick(TRANSIENT);
    Fault {
        tool: tool.into(),
        on_call,
        times: 1,
        error,
        message: message.replace("{lost}", lost),
        landed: false,
    }
}
