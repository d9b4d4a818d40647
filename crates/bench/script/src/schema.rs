//! A postgres world's schema read as the public families bind it (`pgn`, lib.jq's
//! `pg_shop | .names`): the tables listed, each of the shop's four told by the names its
//! role may take (the postgres server's public naming pools), then read (a result holds up to
//! 100 rows), its columns by position; the rows as `pg_shop` gives them, for the records the goal described. A script that has read the repository knows the pools; it still spends the calls
//! a model would to learn which names this database uses.

use mcpbench_heuristic::{ToolInfo, Tools};
use mcpbench_server_postgres::naming::SLOTS;
use serde_json::{Map, Value, json};

/// The binding the public postgres families give the schema's names.
pub const BINDING: &str = "pgn";

/// What a hint names as its `after` to read the records of a database the script read
/// (`{"customers": [...], ...}` as `pg_shop` gives them), which no tool answers as such.
pub const RECORDS: &str = "schema";

/// The calls a reference makes to learn the schema, which a read of it makes already.
pub const READS: [&str; 2] = ["postgres.list_tables", "postgres.describe_table"];

/// The columns of each role in place, under the keys `pg_shop` gives them, and the key of the
/// role's columns in `names` (`orders`' are `names.order`).
const COLUMNS: [(&str, &str, &[&str]); 4] = [
    (
        "customers",
        "customer",
        &["id", "name", "email", "city", "status"],
    ),
    (
        "products",
        "product",
        &["id", "sku", "name", "price", "stock"],
    ),
    (
        "orders",
        "order",
        &[
            "id",
            "customer_id",
            "product_id",
            "quantity",
            "total",
            "status",
            "placed_on",
        ],
    ),
    ("inventory", "stock", &["warehouse", "sku", "quantity"]),
];

/// What reading a database gave: the names as `pg_shop` gives them (`pgn`), its records as
/// `pg_shop` gives them (`{"customers": [{"id": 1, "name": ...}], ...}`, amounts in cents),
/// and the calls it took.
pub struct Read {
    pub names: Value,
    pub records: Value,
    pub calls: u32,
}

/// The schema's names and the shop's rows, read with at most `budget` calls: the tables
/// listed, then the rows of each of the shop's tables (up to a result's 100; a result names
/// its columns, so no description is needed). `None` when the task offers no listing or no query.
pub fn read(tools: &[ToolInfo], budget: u32, env: &mut (impl Tools + ?Sized)) -> Option<Read> {
    let offered = |name: &str| tools.iter().any(|t| t.name == name);
    if !offered("postgres.list_tables") || !offered("postgres.query") || budget == 0 {
        return None;
    }
    let mut calls = 1;
    // A listing that fails still spent its call: the plain names stand, nothing is read.
    let listed = env
        .call("postgres.list_tables", &json!({}))
        .unwrap_or(Value::Null);
    let tables: Vec<&str> = (listed.get("tables").and_then(Value::as_array))
        .map(|t| t.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    let mut names = Map::new();
    let mut records = Map::new();
    for (role, key, plain) in COLUMNS {
        let pool = SLOTS
            .iter()
            .find(|(r, c, _)| *r == role && c.is_empty())
            .map_or(&[][..], |(_, _, n)| *n);
        let table = tables.iter().copied().find(|t| pool.contains(t));
        names.insert(role.into(), json!(table.unwrap_or(role)));
        let mut columns: Vec<String> = plain.iter().map(|c| c.to_string()).collect();
        let mut rows = Vec::new();
        if let Some(table) = table
            && calls < budget
        {
            calls += 1;
            let sql = format!("SELECT * FROM {table}");
            if let Ok(result) = env.call("postgres.query", &json!({ "sql": sql })) {
                let shown = result["columns"].as_array().cloned().unwrap_or_default();
                for (k, c) in shown.iter().enumerate().take(columns.len()) {
                    if let Some(name) = c.as_str().or_else(|| c["name"].as_str()) {
                        columns[k] = name.to_string();
                    }
                }
                rows = result["rows"].as_array().cloned().unwrap_or_default();
            }
        }
        records.insert(
            role.into(),
            Value::Array(rows.iter().map(|r| record(plain, r)).collect()),
        );
        let by_key: Map<String, Value> = (plain.iter())
            .zip(columns)
            .map(|(k, c)| (k.to_string(), Value::String(c)))
            .collect();
        names.insert(key.into(), Value::Object(by_key));
    }
    Some(Read {
        names: Value::Object(names),
        records: Value::Object(records),
        calls,
    })
}

/// A row (values in column order) as `pg_shop` writes its record: under the role's keys, an
/// amount (`price`, `total`) in cents.
fn record(keys: &[&str], row: &Value) -> Value {
    let values = row.as_array().map_or(&[][..], Vec::as_slice);
    let fields = keys
        .iter()
        .zip(values)
        .map(|(k, v)| match (*k, v.as_f64()) {
            ("price" | "total", Some(amount)) => {
                (format!("{k}_cents"), json!((amount * 100.0).round() as i64))
            }
            _ => (k.to_string(), v.clone()),
        });
    Value::Object(fields.collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpbench_server_postgres::naming::Naming;
    use mcpbench_server_postgres::sample::{Shop, ShopTable, Sizes};
    use mcpbench_server_postgres::{Background, Postgres};
    use mcpbench_sim::{Rng, Server, Simulated};

    struct Db(Postgres, u32);

    impl Tools for Db {
        fn call(&mut self, tool: &str, arguments: &Value) -> Result<Value, String> {
            self.1 += 1;
            let bare = tool.strip_prefix("postgres.").unwrap_or(tool);
            Server::call(&mut self.0, bare, arguments).map_err(|e| e.to_string())
        }
    }

    fn tool(name: &str) -> ToolInfo {
        ToolInfo {
            name: name.into(),
            description: String::new(),
            input_schema: json!({}),
        }
    }

    #[test]
    fn a_drawn_schema_is_read_back_with_its_rows_among_the_background() {
        let mut rng = Rng::new(5, 0);
        let shop = Shop::sample_sized(&mut rng, Sizes::BUSY);
        let mut seed = shop.seed(&[ShopTable::Customers, ShopTable::Products, ShopTable::Orders]);
        let naming = Naming::draw(&mut rng);
        naming.apply(&mut seed);
        // This stream renames the tables and columns the assertions read.
        assert_ne!(naming.name("orders", ""), "orders");
        assert_ne!(naming.name("orders", "total"), "total");
        seed.background = Some(Background { seed: 9, rows: 300 });
        let mut db = Db(<Postgres as Simulated>::from_seed(&seed).unwrap(), 0);
        let tools = [tool("postgres.list_tables"), tool("postgres.query")];
        let read = read(&tools, 10, &mut db).expect("a listing and a query are offered");
        // One listing and one read per shop table the database holds.
        assert_eq!((read.calls, db.1), (4, 4));
        assert_eq!(read.names["orders"], naming.name("orders", ""));
        assert_eq!(read.names["order"]["total"], naming.name("orders", "total"));
        assert_eq!(
            read.names["customer"]["name"],
            naming.name("customers", "name")
        );
        // The missing inventory keeps the plain names; its rows are none.
        assert_eq!(read.names["inventory"], "inventory");
        let customers = read.records["customers"].as_array().unwrap();
        assert_eq!(customers.len(), shop.customers.len());
        assert_eq!(customers[0]["name"], shop.customers[0].name.as_str());
        let order = &read.records["orders"][0];
        assert_eq!(order["total_cents"], shop.orders[0].total_cents);
        // Without a query tool the script reads nothing.
        assert!(read_without_query(&mut db).is_none());
    }

    fn read_without_query(db: &mut Db) -> Option<Read> {
        read(&[tool("postgres.list_tables")], 10, db)
    }
}
