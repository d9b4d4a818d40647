//! Single-tool templates: one statement (or one index call) does it, once the agent has found
//! the right tool; a few reads to look at the schema are the slack in `max_steps`.

use super::{Kit, exec, not, params, products_unchanged, read, row, rows};
use crate::sample::{PRODUCTS, Shop, ShopTable, amount, distinct_prices, money, sku, sql_amount};
use crate::{Atom, Postgres};
use mcpbench_sim::{AnswerCheck, Draft, Pred, Rng, Step, call};
use serde_json::json;

/// A product of the pool that the shop does not sell yet: (SKU prefix, name).
pub(super) fn new_product(rng: &mut Rng, shop: &Shop) -> (&'static str, &'static str) {
    let free: Vec<(&str, &str)> = PRODUCTS
        .iter()
        .copied()
        .filter(|(prefix, _)| !shop.products.iter().any(|p| p.sku.starts_with(prefix)))
        .collect();
    *rng.pick(&free)
}

pub(super) fn insert_product(rng: &mut Rng) -> Draft<Postgres> {
    let shop = Shop::sample(rng);
    let (prefix, name) = new_product(rng, &shop);
    let sku = sku(rng, prefix);
    let price = rng.range(499, 19_999);
    let stock = rng.range(1, 60);
    let sql = format!(
        "INSERT INTO products (sku, name, price, stock) VALUES ('{sku}', '{name}', {}, {stock})",
        sql_amount(price)
    );
    Draft {
        goal: format!(
            "Add a new product to the products table: SKU {sku}, name \"{name}\", price {}, and {stock} units in stock.",
            money(price)
        ),
        max_steps: 4,
        seed: shop.seed(&[ShopTable::Customers, ShopTable::Products]),
        tools: Postgres::tools(&[
            "execute_sql",
            "query",
            "list_tables",
            "describe_table",
            "get_table_sample",
            "count_rows",
        ]),
        predicate: Pred::All(vec![
            row(
                "products",
                &[
                    ("sku", json!(sku)),
                    ("name", json!(name)),
                    ("price", json!(amount(price))),
                    ("stock", json!(stock)),
                ],
            ),
            rows("products", &[], shop.products.len() + 1),
        ]),
        references: vec![vec![exec(&sql)]],
        faults: vec![],
        params: params(&[
            ("sku", json!(sku)),
            ("price_cents", json!(price)),
            ("stock", json!(stock)),
        ]),
    }
}

pub(super) fn update_price(rng: &mut Rng) -> Draft<Postgres> {
    let shop = Shop::sample(rng);
    let p = rng.pick(&shop.products).clone();
    let new = loop {
        let cents = distinct_prices(rng, 1)[0];
        if !shop.products.iter().any(|q| q.price_cents == cents) {
            break cents;
        }
    };
    let mut checks = vec![row(
        "products",
        &[("sku", json!(p.sku)), ("price", json!(amount(new)))],
    )];
    checks.extend(products_unchanged(&shop, &[p.id]));
    Draft {
        goal: format!(
            "The {} (SKU {}) now costs {}. Update its price in the products table.",
            p.name,
            p.sku,
            money(new)
        ),
        max_steps: 4,
        seed: shop.seed(&[ShopTable::Customers, ShopTable::Products]),
        tools: Postgres::tools(&[
            "execute_sql",
            "query",
            "describe_table",
            "get_table_sample",
            "list_objects",
        ]),
        predicate: Pred::All(checks),
        references: vec![vec![exec(&format!(
            "UPDATE products SET price = {} WHERE sku = '{}'",
            sql_amount(new),
            p.sku
        ))]],
        faults: vec![],
        params: params(&[("sku", json!(p.sku)), ("price_cents", json!(new))]),
    }
}

/// (table, column) pairs worth an index; the second list holds columns whose values are
/// distinct in every sampled shop.
const PLAIN_INDEXES: &[(&str, &str)] = &[
    ("orders", "customer_id"),
    ("orders", "status"),
    ("orders", "placed_on"),
    ("orders", "product_id"),
    ("orders", "total"),
    ("customers", "city"),
    ("customers", "status"),
    ("products", "stock"),
    ("products", "price"),
];
const UNIQUE_INDEXES: &[(&str, &str)] = &[("products", "name"), ("customers", "name")];

/// Why a user wants an index, with `{column}` and `{table}`.
const INDEX_REASONS: &[&str] = &[
    "",
    "Lookups by {column} on {table} have become slow. ",
    "The reports filter {table} by {column} all day. ",
    "Our dashboard keeps scanning {table} for {column}. ",
    "Ahead of the traffic peak: ",
];
/// How an index is named: `{p}` prefix, `{t}` table, `{c}` column.
const INDEX_NAMES: &[&str] = &["{p}_{t}_{c}", "{t}_{c}_{p}", "{p}_{c}"];
/// Ways to ask for a plain index and for a unique one (`{name}`, `{column}`, `{table}`).
const PLAIN_ASKS: &[&str] = &[
    "Add an index named {name} on the {column} column of the {table} table.",
    "Please create an index on {table}.{column} and call it {name}.",
    "Index the {column} column of {table}; name the index {name}.",
];
const UNIQUE_ASKS: &[&str] = &[
    "Add a unique index named {name} on the {column} column of the {table} table, so that no two rows can share a {column}.",
    "No two rows of {table} may share a {column}: enforce it with a unique index called {name}.",
    "Create a unique index {name} on {table}.{column} so that duplicates of a {column} are refused.",
];

pub(super) fn add_index(rng: &mut Rng) -> Draft<Postgres> {
    let shop = Shop::sample(rng);
    let unique = rng.chance(1, 3);
    let (table, column) = *rng.pick(if unique {
        UNIQUE_INDEXES
    } else {
        PLAIN_INDEXES
    });
    let prefix = if unique {
        "uq"
    } else {
        rng.pick(&["idx", "ix"])
    };
    let name = rng
        .pick(INDEX_NAMES)
        .replace("{p}", prefix)
        .replace("{t}", table)
        .replace("{c}", column);
    let ask = rng.pick(if unique { UNIQUE_ASKS } else { PLAIN_ASKS });
    let goal = format!("{}{ask}", rng.pick(INDEX_REASONS))
        .replace("{name}", &name)
        .replace("{column}", column)
        .replace("{table}", table);
    let mut args = json!({ "index_name": name, "table_name": table, "columns": [column] });
    if unique {
        args["unique"] = json!(true);
    }
    let kind = if unique { "UNIQUE INDEX" } else { "INDEX" };
    Draft {
        goal,
        max_steps: 4,
        seed: shop.seed(&[ShopTable::Customers, ShopTable::Products, ShopTable::Orders]),
        tools: Postgres::tools(&[
            "create_index",
            "execute_sql",
            "list_indexes",
            "describe_table",
            "drop_index",
            "list_tables",
        ]),
        predicate: Pred::Atom(Atom::IndexExists {
            table: table.into(),
            columns: vec![column.into()],
            name: Some(name.clone()),
            unique: unique.then_some(true),
        }),
        references: vec![
            vec![call::<Postgres>("create_index", args)],
            vec![exec(&format!("CREATE {kind} {name} ON {table} ({column})"))],
        ],
        faults: vec![],
        params: params(&[
            ("table", json!(table)),
            ("column", json!(column)),
            ("unique", json!(unique)),
        ]),
    }
}

/// What a shop owner may say first, or nothing.
const SHOP_OPENERS: &[&str] = &[
    "",
    "Quick database question. ",
    "Getting ready for the quarterly report. ",
    "For the team meeting: ",
    "While I have the shop database open: ",
    "Housekeeping. ",
];

/// Ways to ask for the dearest or cheapest product: `{superlative}` ("most expensive" or
/// "cheapest"), `{word}` ("highest" or "lowest") and `{among}` (a filter, or nothing).
const PRICE_ASKS: &[&str] = &[
    "Which product in the products table has the {word} price{among}? Reply with the product's name.",
    "What is our {superlative} product{among}? Just the name, please.",
    "Look at the products we sell{among}: which one costs the {word}? I only need its name.",
    "Name the {superlative} product{among}.",
];

pub(super) fn most_expensive(rng: &mut Rng) -> Draft<Postgres> {
    let shop = Shop::sample(rng);
    let highest = rng.chance(1, 2);
    // Half the time only products with at least `min_stock` units count: the stock of one of
    // them, so that some product qualifies.
    let min_stock = rng
        .chance(1, 2)
        .then(|| rng.pick(&shop.products).stock.max(1));
    let candidates = shop
        .products
        .iter()
        .filter(|p| min_stock.is_none_or(|k| p.stock >= k));
    let pick = if highest {
        candidates.max_by_key(|p| p.price_cents)
    } else {
        candidates.min_by_key(|p| p.price_cents)
    };
    let answer = pick.expect("a product with enough stock").name.clone();
    let (word, superlative, order) = if highest {
        ("highest", "most expensive", "DESC")
    } else {
        ("lowest", "cheapest", "ASC")
    };
    let (among, filter) = match min_stock {
        Some(k) => (
            format!(" among those with at least {k} units in stock"),
            format!("WHERE stock >= {k} "),
        ),
        None => (String::new(), String::new()),
    };
    let goal = format!("{}{}", rng.pick(SHOP_OPENERS), rng.pick(PRICE_ASKS))
        .replace("{word}", word)
        .replace("{superlative}", superlative)
        .replace("{among}", &among);
    Draft {
        goal,
        max_steps: 4,
        seed: shop.seed(&[ShopTable::Customers, ShopTable::Products]),
        tools: Postgres::tools(&[
            "query",
            "get_table_sample",
            "list_tables",
            "describe_table",
            "count_rows",
            "explain_query",
        ]),
        predicate: Pred::Answer(AnswerCheck::names(
            &answer,
            shop.products.iter().map(|p| p.name.as_str()),
        )),
        references: vec![vec![
            read(&format!(
                "SELECT name FROM products {filter}ORDER BY price {order} LIMIT 1"
            )),
            Step::Answer { answer },
        ]],
        faults: vec![],
        params: params(&[
            ("highest", json!(highest)),
            ("min_stock", json!(min_stock)),
            ("products", json!(shop.products.len())),
        ]),
    }
}

/// Ways to ask, with `{name}` for the customer.
const CANCELLED_ASKS: &[&str] = &[
    "Delete every cancelled order placed by the customer {name}. Keep their other orders and every other customer's orders.",
    "{name}'s cancelled orders are clutter: remove them from the orders table, and nothing else.",
    "Please clean up the orders of {name}: the cancelled ones go, everything else stays, theirs and everyone else's.",
    "Our bookkeeping wants no cancelled orders left for {name}. Delete those rows only; the rest of the orders stay.",
    "Can you drop the orders {name} cancelled? Leave their live orders and all other customers' orders alone.",
];

pub(super) fn delete_cancelled(rng: &mut Rng) -> Draft<Postgres> {
    let mut shop = Shop::sample(rng);
    let (target, other) = (shop.customers[0].clone(), shop.customers[1].id);
    let mine: Vec<usize> = (0..shop.orders.len())
        .filter(|&i| shop.orders[i].customer_id == target.id)
        .collect();
    let theirs = (0..shop.orders.len())
        .find(|&i| shop.orders[i].customer_id == other)
        .expect("two orders each");
    shop.orders[mine[0]].status = "cancelled".into();
    shop.orders[mine[1]].status = rng
        .pick(&["pending", "paid", "shipped", "delivered"])
        .to_string();
    shop.orders[theirs].status = "cancelled".into();
    let cancelled = shop
        .orders_of(target.id)
        .iter()
        .filter(|o| o.status == "cancelled")
        .count();
    Draft {
        goal: format!("{}{}", rng.pick(SHOP_OPENERS), rng.pick(CANCELLED_ASKS))
            .replace("{name}", &target.name),
        max_steps: 5,
        seed: shop.seed(&[ShopTable::Customers, ShopTable::Products, ShopTable::Orders]),
        tools: Postgres::tools(&[
            "execute_sql",
            "query",
            "list_tables",
            "describe_table",
            "get_object_details",
            "count_rows",
        ]),
        predicate: Pred::All(vec![
            not(row(
                "orders",
                &[
                    ("customer_id", json!(target.id)),
                    ("status", json!("cancelled")),
                ],
            )),
            rows("orders", &[], shop.orders.len() - cancelled),
        ]),
        references: vec![vec![exec(&format!(
            "DELETE FROM orders WHERE status = 'cancelled' AND customer_id = (SELECT id FROM customers WHERE name = '{}')",
            target.name
        ))]],
        faults: vec![],
        params: params(&[
            ("customer", json!(target.name)),
            ("cancelled", json!(cancelled)),
        ]),
    }
}

const NEW_TABLES: &[&str] = &[
    "suppliers",
    "vendors",
    "partners",
    "couriers",
    "wholesalers",
];
/// Extra columns: name, the type the goal states, the SQL type of the reference.
const EXTRA_COLUMNS: &[(&str, &str, &str)] = &[
    ("country", "text", "TEXT"),
    ("rating", "integer", "INTEGER"),
    ("credit_limit", "numeric", "NUMERIC"),
    ("active", "boolean", "BOOLEAN"),
    ("joined_on", "date", "DATE"),
    ("phone", "text", "TEXT"),
];

pub(super) fn create_table(rng: &mut Rng) -> Draft<Postgres> {
    let shop = Shop::sample(rng);
    let table = *rng.pick(NEW_TABLES);
    let n = rng.range(1, 2) as usize;
    let extras = rng.sample(EXTRA_COLUMNS, n);
    let column =
        |name: &str, data_type: &str, not_null: Option<bool>, primary_key: Option<bool>| {
            Pred::Atom(Atom::ColumnExists {
                table: table.into(),
                column: name.into(),
                data_type: Some(data_type.into()),
                not_null,
                primary_key,
            })
        };
    let mut checks = vec![
        Pred::Atom(Atom::TableExists {
            table: table.into(),
        }),
        column("id", "integer", None, Some(true)),
        column("name", "text", Some(true), None),
        column("email", "text", None, None),
        Pred::Atom(Atom::IndexExists {
            table: table.into(),
            columns: vec!["email".into()],
            name: None,
            unique: Some(true),
        }),
    ];
    let mut described = vec![
        "id (integer, primary key)".to_string(),
        "name (text, not null)".into(),
        "email (text, unique)".into(),
    ];
    let mut ddl = vec![
        "id INTEGER PRIMARY KEY".to_string(),
        "name TEXT NOT NULL".into(),
        "email TEXT UNIQUE".into(),
    ];
    for (name, data_type, sql_type) in &extras {
        checks.push(column(name, data_type, None, None));
        described.push(format!("{name} ({data_type})"));
        ddl.push(format!("{name} {sql_type}"));
    }
    Draft {
        goal: format!(
            "Create a new table named {table} with these columns: {}.",
            described.join(", ")
        ),
        max_steps: 4,
        seed: shop.seed(&[ShopTable::Customers, ShopTable::Products]),
        tools: Postgres::tools(&[
            "execute_sql",
            "query",
            "list_tables",
            "describe_table",
            "create_index",
            "list_objects",
        ]),
        predicate: Pred::All(checks),
        references: vec![vec![exec(&format!(
            "CREATE TABLE {table} ({})",
            ddl.join(", ")
        ))]],
        faults: vec![],
        params: params(&[
            ("table", json!(table)),
            (
                "extra_columns",
                json!(extras.iter().map(|e| e.0).collect::<Vec<_>>()),
            ),
        ]),
    }
}
