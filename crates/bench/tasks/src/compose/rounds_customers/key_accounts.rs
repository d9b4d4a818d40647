//! `compose.key_accounts` (postgres, memory): a quarter's orders are totalled per customer in a
//! database of hundreds of rows, with decoys just under the bar (a near miss, one over it only
//! with an order the day after the quarter, one only with a cancelled order); those above it
//! are noted in the knowledge graph the way last quarter's key accounts are, a returning one
//! only getting the new spend line.

use super::{people, tools, transient};
use mcpbench_server_memory::{self as mem, Memory};
use mcpbench_server_postgres::Postgres;
use mcpbench_server_postgres::sample::{self, ShopTable};
use mcpbench_sim::dates::{days_from_civil, format_date, month_name};
use mcpbench_sim::{Pred, Rng, call, not, params};
use mcpbench_world::{Atom, Composed, InitialState};
use serde_json::json;
use std::collections::BTreeMap;

pub(super) fn key_accounts(rng: &mut Rng) -> Composed {
    key_accounts_with(rng, false)
}

pub(super) fn key_accounts_after_fault(rng: &mut Rng) -> Composed {
    key_accounts_with(rng, true)
}

const MANAGERS: &str = "Rosa Delgado, Tom Whitaker, Yuki Mori, Amara Osei, Lars Holm, Nadia Farouk";
/// How last quarter's key accounts are typed, and linked from their manager.
const ACCOUNT_TYPES: &[&str] = &["key account", "key_account", "customer", "client"];
const MANAGES: &[&str] = &["manages", "looks_after", "handles"];
/// Thresholds in whole currency units.
#[rustfmt::skip]
const THRESHOLDS: &[i64] = &[
    1500, 1750, 1800, 2000, 2250, 2400, 2500, 2750, 3000, 3200, 3250, 3500, 3750, 4000, 4500,
];
const OPEN_STATUSES: &[&str] = &["pending", "paid", "shipped", "delivered"];
/// How the user remembers last quarter, with `{prev}` for its label.
const RECAPS: &[&str] = &[
    "Last quarter I noted my key accounts in my memory: each customer with their {prev} spend, linked to the account manager who looks after their city.",
    "My memory holds last quarter's key accounts, each customer with their {prev} spend and a link to the account manager for their city.",
    "At the end of {prev} I recorded my key accounts in my memory, each with its spend for the quarter and its account manager, who covers the customer's city.",
    "You helped me list my key accounts for {prev}: they are in my memory with what each spent and the account manager who covers their city.",
    "My key accounts up to {prev} are in my memory, every customer with a line for the quarter's spend and a link to the account manager of their city.",
];
/// What a user may say first: why they ask, or nothing.
const OPENERS: &[&str] = &[
    "",
    "Quarter-end housekeeping. ",
    "Time for the quarterly key-account review. ",
    "The board wants the key accounts updated. ",
    "Before my review with finance: ",
    "New quarter, new numbers. ",
    "Sales asked who our big customers are now. ",
    "Our account managers need the updated list. ",
    "For Monday's pipeline meeting: ",
    "Catching up on admin. ",
    "The CRM notes are stale. ",
];

/// A quarter, counted from year 0: `4 * year + (quarter - 1)`.
#[derive(Clone, Copy)]
struct Quarter(i64);

impl Quarter {
    fn start(self) -> i64 {
        days_from_civil(self.0 / 4, 3 * (self.0 % 4) + 1, 1)
    }
    fn end(self) -> i64 {
        Quarter(self.0 + 1).start() - 1
    }
    fn prev(self) -> Quarter {
        Quarter(self.0 - 1)
    }
    fn label(self) -> String {
        format!("Q{} {}", self.0 % 4 + 1, self.0 / 4)
    }
    /// `July to September 2025`.
    fn months(self) -> String {
        let first = 3 * (self.0 % 4) + 1;
        let (from, to) = (month_name(first), month_name(first + 2));
        format!("{from} to {to} {}", self.0 / 4)
    }
    /// Its first and last days as dates (`2025-07-01`, `2025-09-30`), which order as text.
    fn dates(self) -> (String, String) {
        (format_date(self.start()), format_date(self.end()))
    }
}

/// The orders being drawn, and the products they are of; ids are given at the end.
struct Book {
    products: Vec<sample::Product>,
    orders: Vec<sample::Order>,
}

impl Book {
    fn add(&mut self, customer: i64, product: usize, quantity: i64, day: i64, status: &str) {
        let p = &self.products[product];
        self.orders.push(sample::Order {
            id: 0,
            customer_id: customer,
            product_id: p.id,
            quantity,
            total_cents: quantity * p.price_cents,
            status: status.into(),
            placed_on: format_date(day),
        });
    }

    /// An order that counts, on a random day of `quarter`.
    fn add_in(&mut self, rng: &mut Rng, customer: i64, quarter: Quarter, product: usize, qty: i64) {
        let (day, status) = (
            rng.range(quarter.start(), quarter.end()),
            *rng.pick(OPEN_STATUSES),
        );
        self.add(customer, product, qty, day, status);
    }

    /// What `customer` spent in `quarter`, cancelled orders left out, in cents.
    fn spend(&self, customer: i64, quarter: Quarter) -> i64 {
        // The bounds once per call, not per order: drawing a book asks this thousands of times.
        let (start, end) = quarter.dates();
        self.orders
            .iter()
            .filter(|o| o.customer_id == customer && o.status != "cancelled")
            .filter(|o| start <= o.placed_on && o.placed_on <= end)
            .map(|o| o.total_cents)
            .sum()
    }

    /// The line a key account gets for `quarter`: `Q3 2025 spend: 2345.60`.
    fn spend_line(&self, quarter: Quarter, customer: i64) -> String {
        let spend = sample::money(self.spend(customer, quarter));
        format!("{} spend: {spend}", quarter.label())
    }

    /// (product index, quantity, total) of every order of 1-4 units.
    fn options(&self) -> Vec<(usize, i64, i64)> {
        (0..self.products.len())
            .flat_map(|i| (1..=4).map(move |q| (i, q)))
            .map(|(i, q)| (i, q, q * self.products[i].price_cents))
            .collect()
    }

    /// Adds orders to `quarter` while the spend stays below `cap`, biggest first, so that it
    /// ends less than one unit of the cheapest product short of `cap`.
    fn fill_below(&mut self, rng: &mut Rng, customer: i64, quarter: Quarter, cap: i64) {
        loop {
            let gap = cap - self.spend(customer, quarter);
            let options = self.options().into_iter().filter(|o| o.2 < gap);
            let Some((i, q, _)) = options.max_by_key(|o| o.2) else {
                return;
            };
            self.add_in(rng, customer, quarter, i, q);
        }
    }

    /// Adds random orders to `quarter` until the spend passes `floor`.
    fn top_up(&mut self, rng: &mut Rng, customer: i64, quarter: Quarter, floor: i64) {
        while self.spend(customer, quarter) <= floor {
            let i = rng.below(self.products.len() as u64) as usize;
            let q = rng.range(1, 4);
            self.add_in(rng, customer, quarter, i, q);
        }
    }

    /// Adds orders of `status` on `day` worth more than `gap` together: the smallest single
    /// order that is, if one is.
    fn tip_over(&mut self, customer: i64, mut gap: i64, day: i64, status: &str) {
        while gap >= 0 {
            let options = self.options();
            let over = options.iter().filter(|o| o.2 > gap).min_by_key(|o| o.2);
            let (i, q, total) = *over
                .or(options.iter().max_by_key(|o| o.2))
                .expect("products");
            self.add(customer, i, q, day, status);
            gap -= total;
        }
    }
}

/// The drawn database and who plays which part, by customer id: this quarter's `accounts`
/// (the first also one of last quarter's), last quarter's `former` others, and the `decoys`:
/// a near miss, one over the bar only with an order the day after the quarter, one only with
/// a cancelled order.
struct Drawn {
    customers: Vec<sample::Customer>,
    book: Book,
    accounts: Vec<i64>,
    former: Vec<i64>,
    decoys: Vec<i64>,
}

fn draw(rng: &mut Rng, quarter: Quarter, threshold: i64, n: usize) -> Drawn {
    let count = rng.range(60, 80) as usize;
    let customers: Vec<sample::Customer> = people(rng, count)
        .into_iter()
        .enumerate()
        .map(|(i, name)| sample::Customer {
            id: i as i64 + 1,
            email: sample::email_of(&name),
            name,
            city: rng.pick(sample::CITIES).to_string(),
            status: ["active", "inactive"][usize::from(rng.chance(1, 10))].into(),
        })
        .collect();
    let prices = sample::distinct_prices(rng, sample::PRODUCTS.len());
    let products = (sample::PRODUCTS.iter().zip(prices).enumerate())
        .map(|(i, ((prefix, name), price_cents))| sample::Product {
            id: i as i64 + 1,
            sku: sample::sku(rng, prefix),
            name: name.to_string(),
            price_cents,
            stock: rng.range(0, 80),
        })
        .collect();
    let mut book = Book {
        products,
        orders: vec![],
    };
    // Background: half a year of history before the quarter and a few weeks after it, where
    // nobody spends more than half the bar in the quarter.
    let (from, to) = (quarter.prev().prev().start(), quarter.end() + 45);
    for _ in 0..rng.range(260, 340) {
        let (c, day) = (rng.range(1, customers.len() as i64), rng.range(from, to));
        let (i, q) = (
            rng.below(book.products.len() as u64) as usize,
            rng.range(1, 3),
        );
        let status = *rng.pick(&["pending", "paid", "shipped", "delivered", "cancelled"]);
        let during = (quarter.start()..=quarter.end()).contains(&day);
        let total = q * book.products[i].price_cents;
        if !during || book.spend(c, quarter) + total <= threshold / 2 {
            book.add(c, i, q, day, status);
        }
    }
    let mut ids: Vec<i64> = (customers.iter().filter(|c| c.status == "active"))
        .map(|c| c.id)
        .collect();
    rng.shuffle(&mut ids);
    let n_former = rng.range(2, 3) as usize;
    let accounts = ids[..n].to_vec();
    let former = ids[n..n + n_former].to_vec();
    let decoys = ids[n + n_former..n + n_former + 3].to_vec();
    for &c in accounts.iter().take(1).chain(&former) {
        let floor = threshold + rng.range(1_000, 60_000);
        book.top_up(rng, c, quarter.prev(), floor);
    }
    for &c in &accounts {
        let floor = threshold + rng.range(2_000, 90_000);
        book.top_up(rng, c, quarter, floor);
    }
    book.fill_below(rng, decoys[0], quarter, threshold);
    let [cap_late, cap_cancelled] = [(); 2].map(|_| threshold - rng.range(5_000, 30_000));
    book.fill_below(rng, decoys[1], quarter, cap_late);
    let gap = threshold - book.spend(decoys[1], quarter);
    book.tip_over(decoys[1], gap, quarter.end() + 1, "paid");
    book.fill_below(rng, decoys[2], quarter, cap_cancelled);
    let gap = threshold - book.spend(decoys[2], quarter);
    let day = rng.range(quarter.start(), quarter.end());
    book.tip_over(decoys[2], gap, day, "cancelled");
    let over = |c: &sample::Customer| book.spend(c.id, quarter) > threshold;
    debug_assert!(
        customers
            .iter()
            .all(|c| over(c) == accounts.contains(&c.id))
    );
    book.orders.sort_by(|a, b| a.placed_on.cmp(&b.placed_on));
    for (i, o) in book.orders.iter_mut().enumerate() {
        o.id = 1001 + i as i64;
    }
    Drawn {
        customers,
        book,
        accounts,
        former,
        decoys,
    }
}

fn key_accounts_with(rng: &mut Rng, fault: bool) -> Composed {
    let quarter = Quarter(4 * rng.range(2023, 2026) + rng.range(0, 3));
    let prev = quarter.prev();
    let threshold = *rng.pick(THRESHOLDS) * 100;
    let n = rng.range(3, 5) as usize;
    let d = draw(rng, quarter, threshold, n);
    let customer = |id: i64| &d.customers[id as usize - 1];
    let spend_line = |q: Quarter, id: i64| d.book.spend_line(q, id);

    // The graph: the company, three account managers sharing the cities, and last quarter's
    // key accounts, each with its spend and linked from its manager.
    let kind = *rng.pick(ACCOUNT_TYPES);
    let manages = *rng.pick(MANAGES);
    let managers = rng.sample(&MANAGERS.split(", ").collect::<Vec<_>>(), 3);
    let mut cities = sample::CITIES.to_vec();
    rng.shuffle(&mut cities);
    let mut manager_of: BTreeMap<&str, &str> = BTreeMap::new();
    let mut g = mem::world::Graph::default();
    g.entity(
        "Northwind",
        "organization",
        &["Sells desk and office gear online"],
    );
    for (m, chunk) in managers
        .iter()
        .zip([&cities[..3], &cities[3..6], &cities[6..]])
    {
        let (last, rest) = chunk.split_last().expect("cities");
        let covers = format!("Account manager for {} and {last}", rest.join(", "));
        g.entity(m, "person", &[&covers]);
        g.relate(m, "Northwind", "works_at");
        manager_of.extend(chunk.iter().map(|c| (*c, *m)));
    }
    for &id in d.accounts.iter().take(1).chain(&d.former) {
        let c = customer(id);
        g.entity(&c.name, kind, &[&spend_line(prev, id)]);
        g.relate(manager_of[c.city.as_str()], &c.name, manages);
    }
    let before = g.seed.entities.len() as u32;

    // This quarter's accounts: the first was one last quarter too and only gets the new line.
    let noted: Vec<(&sample::Customer, String)> = d
        .accounts
        .iter()
        .map(|&id| (customer(id), spend_line(quarter, id)))
        .collect();
    let (returning, new) = noted.split_first().expect("3-5 accounts");
    let m = |a: mem::Atom| Pred::Atom(Atom::memory(a));
    let has = |entity: &str, observation: &str| {
        let (entity, observation) = (entity.into(), observation.into());
        m(mem::Atom::HasObservation {
            entity,
            observation,
        })
    };
    let mut checks = vec![
        has(&returning.0.name, &returning.1),
        has(&returning.0.name, &spend_line(prev, returning.0.id)),
        m(mem::Atom::EntityCount {
            count: before + new.len() as u32,
            entity_type: None,
        }),
    ];
    for (c, observation) in new {
        let (name, entity_type) = (c.name.clone(), Some(kind.to_string()));
        checks.push(m(mem::Atom::EntityExists { name, entity_type }));
        checks.push(has(&c.name, observation));
        checks.push(m(mem::Atom::RelationExists {
            from: manager_of[c.city.as_str()].into(),
            to: c.name.clone(),
            relation_type: manages.into(),
        }));
    }
    for &id in &d.former {
        let entity = customer(id).name.clone();
        checks.push(m(mem::Atom::ObservationCount { entity, count: 1 }));
    }
    for &id in &d.decoys {
        let name = customer(id).name.clone();
        checks.push(not(m(mem::Atom::EntityExists {
            name,
            entity_type: None,
        })));
    }

    let (start, end) = (format_date(quarter.start()), format_date(quarter.end()));
    let sql = format!(
        "SELECT c.name, c.city, SUM(o.total) AS spend FROM orders o JOIN customers c ON \
         c.id = o.customer_id WHERE o.status <> 'cancelled' AND o.placed_on BETWEEN '{start}' \
         AND '{end}' GROUP BY c.id, c.name, c.city HAVING SUM(o.total) > {} ORDER BY spend DESC",
        threshold / 100
    );
    let describe = |t: &str| call::<Postgres>("describe_table", json!({ "table_name": t }));
    // Keys in alphabetical order, as serde_json keeps them: a mutant changes the type.
    let entities: Vec<_> = (new.iter())
        .map(|(c, o)| json!({ "entityType": kind, "name": c.name, "observations": [o] }))
        .collect();
    let relations: Vec<_> = (new.iter())
        .map(|(c, _)| (manager_of[c.city.as_str()], &c.name))
        .map(|(from, to)| json!({ "from": from, "relationType": manages, "to": to }))
        .collect();
    let observations = json!([{ "contents": [returning.1], "entityName": returning.0.name }]);
    let mut steps = vec![
        call::<Memory>("read_graph", json!({})),
        call::<Postgres>("list_tables", json!({})),
        describe("customers"),
        describe("orders"),
        call::<Postgres>("query", json!({ "sql": sql })),
        call::<Memory>("create_entities", json!({ "entities": entities })),
        call::<Memory>("add_observations", json!({ "observations": observations })),
        call::<Memory>("create_relations", json!({ "relations": relations })),
    ];
    let mut faults = vec![];
    if fault {
        // One of the three writes fails once; the reference repeats it.
        let at = rng.range(5, 7) as usize;
        let tool = steps[at].as_call().expect("a call").tool.clone();
        steps.insert(at + 1, steps[at].clone());
        faults.push(transient(rng, &tool, 1, "nothing was written"));
    }
    let recap = rng.pick(RECAPS).replace("{prev}", &prev.label());
    let opener = rng.pick(OPENERS);
    let goal = format!(
        "{opener}{recap} Now do {q} ({months}): find every customer in the shop database whose orders \
         placed in that quarter add up to more than {t} (cancelled orders don't count). Note \
         each of them in my memory the same way as last quarter's, under their full name, with \
         the line `{q} spend: <amount>` (the total with two decimals, like 2345.60), and link \
         each to their account manager the same way. Anyone who was already a key account just \
         gets the new line; keep last quarter's lines, and add no one else.",
        q = quarter.label(),
        months = quarter.months(),
        t = threshold / 100
    );
    let names: Vec<&String> = noted.iter().map(|(c, _)| &c.name).collect();
    let tables = [ShopTable::Customers, ShopTable::Products, ShopTable::Orders];
    let db = sample::Shop {
        customers: d.customers.clone(),
        products: d.book.products,
        orders: d.book.orders,
        inventory: vec![],
    };
    Composed {
        max_steps: steps.len() as u32 + 6,
        goal,
        initial_state: InitialState {
            postgres: Some(db.seed(&tables)),
            memory: Some(g.seed),
            ..Default::default()
        },
        available_tools: tools(
            "postgres.list_tables postgres.describe_table postgres.query \
             postgres.get_table_sample postgres.count_rows memory.read_graph memory.search_nodes \
             memory.open_nodes memory.create_entities memory.add_observations \
             memory.create_relations memory.delete_observations",
        ),
        success_predicate: Pred::All(checks),
        faults,
        reference_solutions: vec![steps],
        params: params(&[
            ("quarter", json!(quarter.label())),
            ("threshold", json!(threshold / 100)),
            ("accounts", json!(names)),
            ("entity_type", json!(kind)),
            ("relation", json!(manages)),
            ("fault", json!(fault)),
        ]),
    }
}
