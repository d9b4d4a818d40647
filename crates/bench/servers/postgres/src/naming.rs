//! The names a shop database is written under, drawn per task: the four tables and every
//! column but `id` each take one of a few names a real schema might use (`orders.total` is
//! as often `purchases.amount` or `sales.grand_total`). An agent that sends a query it did not
//! write against the schema it was shown fails; one that lists the tables and reads a
//! description first does not. Three to five names a slot give about 10^12 schemas over the
//! four tables (some 700,000 for customers and products alone).
//!
//! The names are drawn slot by slot in the order of [`SLOTS`]; a renamed seed keeps its
//! tables in the order customers, products, orders, inventory, and every column in place, so
//! a reader that knows the roles (the pack's `pg_shop`) finds them by position.

use crate::state::{Seed, TableSeed};
use mcpbench_sim::Rng;

/// Every renamed slot: `(table role, column or "" for the table's own name, names)`. The
/// first name of each is the one the shop sample writes.
pub const SLOTS: &[(&str, &str, &[&str])] = &[
    (
        "customers",
        "",
        &["customers", "clients", "accounts", "buyers", "shoppers"],
    ),
    (
        "customers",
        "name",
        &["name", "full_name", "customer_name", "display_name"],
    ),
    (
        "customers",
        "email",
        &["email", "email_address", "contact_email"],
    ),
    ("customers", "city", &["city", "home_city", "town"]),
    (
        "customers",
        "status",
        &["status", "account_status", "standing"],
    ),
    (
        "products",
        "",
        &["products", "items", "catalog_items", "articles", "goods"],
    ),
    (
        "products",
        "sku",
        &["sku", "item_code", "product_code", "stock_code"],
    ),
    (
        "products",
        "name",
        &["name", "title", "product_name", "label"],
    ),
    (
        "products",
        "price",
        &["price", "unit_price", "list_price", "price_eur"],
    ),
    (
        "products",
        "stock",
        &["stock", "units_in_stock", "on_hand", "qty_available"],
    ),
    (
        "orders",
        "",
        &["orders", "purchases", "sales", "order_book", "transactions"],
    ),
    (
        "orders",
        "customer_id",
        &["customer_id", "client_id", "buyer_id", "account_id"],
    ),
    (
        "orders",
        "product_id",
        &["product_id", "item_id", "article_id"],
    ),
    ("orders", "quantity", &["quantity", "qty", "units"]),
    (
        "orders",
        "total",
        &["total", "amount", "order_total", "total_eur", "grand_total"],
    ),
    (
        "orders",
        "status",
        &["status", "order_status", "state", "stage"],
    ),
    (
        "orders",
        "placed_on",
        &["placed_on", "order_date", "ordered_on", "created_on"],
    ),
    (
        "inventory",
        "",
        &["inventory", "stock_levels", "warehouse_stock", "stockpile"],
    ),
    (
        "inventory",
        "warehouse",
        &["warehouse", "location", "site", "depot"],
    ),
    ("inventory", "sku", &["sku", "item_code", "product_sku"]),
    ("inventory", "quantity", &["quantity", "units", "on_hand"]),
];

/// The table roles in the order a shop seed lists them.
pub const ROLES: [&str; 4] = ["customers", "products", "orders", "inventory"];

/// The names drawn for one database, slot by slot as [`SLOTS`] lists them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Naming {
    names: Vec<&'static str>,
}

impl Naming {
    /// The names the shop sample writes (the first of every slot).
    pub fn plain() -> Self {
        Naming {
            names: SLOTS.iter().map(|(_, _, names)| names[0]).collect(),
        }
    }

    /// One name per slot, each drawn from `rng` in the order of [`SLOTS`].
    pub fn draw(rng: &mut Rng) -> Self {
        Naming {
            names: SLOTS.iter().map(|(_, _, names)| *rng.pick(names)).collect(),
        }
    }

    /// The name of `role`'s table (`column` empty) or of its column `column`; names that are
    /// not renamed (`id`, or a column no slot holds) stay as they are.
    pub fn name<'a>(&self, role: &str, column: &'a str) -> &'a str {
        SLOTS
            .iter()
            .position(|(r, c, _)| *r == role && *c == column)
            .map_or(column, |i| self.names[i])
    }

    /// `seed` with its shop tables renamed: the tables named as [`ROLES`] (any of them may be
    /// missing), their columns, the foreign keys pointing at them, the checks over the
    /// renamed columns and the primary keys over several columns. Other tables are left alone
    /// (their foreign keys into the shop follow it); indexes and views are not renamed (a shop
    /// seed has none: a family that adds one writes it in the drawn names).
    pub fn apply(&self, seed: &mut Seed) {
        let role_of = |table: &str| ROLES.iter().copied().find(|r| *r == table);
        for table in &mut seed.tables {
            if let Some(role) = role_of(&table.name) {
                self.rename_table(role, table);
            }
            for column in &mut table.columns {
                if let Some(reference) = &mut column.references
                    && let Some(role) = role_of(&reference.table)
                {
                    reference.column = self.name(role, &reference.column).to_string();
                    reference.table = self.name(role, "").to_string();
                }
            }
        }
    }

    fn rename_table(&self, role: &str, table: &mut TableSeed) {
        for column in &mut table.columns {
            let new = self.name(role, &column.name).to_string();
            if let Some(check) = &mut column.check {
                *check = rename_word(check, &column.name, &new);
            }
            column.name = new;
        }
        for key in &mut table.primary_key {
            *key = self.name(role, key).to_string();
        }
        table.name = self.name(role, "").to_string();
    }
}

/// `text` with the identifier `from` (a whole word) written as `to`.
fn rename_word(text: &str, from: &str, to: &str) -> String {
    debug_assert!(!from.is_empty(), "an empty word is no identifier");
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(from) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + from.len()..].chars().next();
        out.push_str(&rest[..at]);
        if before.is_some_and(is_word) || after.is_some_and(is_word) {
            out.push_str(from);
        } else {
            out.push_str(to);
        }
        rest = &rest[at + from.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::{Shop, ShopTable};

    #[test]
    fn plain_names_leave_the_sample_as_it_is() {
        let shop = Shop::sample(&mut Rng::new(3, 0));
        let seed = shop.seed(&[ShopTable::Customers, ShopTable::Orders]);
        let mut renamed = seed.clone();
        Naming::plain().apply(&mut renamed);
        assert_eq!(renamed, seed);
    }

    #[test]
    fn a_drawn_schema_renames_keys_and_checks_with_the_tables() {
        // The first stream whose draw renames both the orders table and the customers table.
        let naming = (0..)
            .map(|i| Naming::draw(&mut Rng::new(11, i)))
            .find(|n| n.name("orders", "") != "orders" && n.name("customers", "") != "customers")
            .unwrap();
        let shop = Shop::sample(&mut Rng::new(3, 0));
        let mut seed = shop.seed(&[
            ShopTable::Customers,
            ShopTable::Products,
            ShopTable::Orders,
            ShopTable::Inventory,
        ]);
        naming.apply(&mut seed);
        let orders = &seed.tables[2];
        assert_eq!(orders.name, naming.name("orders", ""));
        let customer_id = &orders.columns[1];
        assert_eq!(customer_id.name, naming.name("orders", "customer_id"));
        let reference = customer_id.references.as_ref().unwrap();
        assert_eq!(reference.table, naming.name("customers", ""));
        assert_eq!(reference.column, "id");
        let quantity = &orders.columns[3];
        assert_eq!(
            quantity.check.as_deref(),
            Some(format!("{} > 0", naming.name("orders", "quantity")).as_str())
        );
        let inventory = &seed.tables[3];
        assert_eq!(
            inventory.primary_key,
            [
                naming.name("inventory", "warehouse"),
                naming.name("inventory", "sku")
            ]
        );
        // The renamed database builds and its checks still bite.
        let mut db = crate::Postgres::from_seed(&seed).unwrap();
        let sql = format!(
            "UPDATE {} SET {} = 0",
            naming.name("orders", ""),
            naming.name("orders", "quantity")
        );
        let err =
            mcpbench_sim::Server::call(&mut db, "execute_sql", &serde_json::json!({ "sql": sql }))
                .unwrap_err();
        assert!(err.to_string().contains("CHECK"), "{err}");
    }

    #[test]
    fn a_word_is_renamed_only_where_it_stands_alone() {
        assert_eq!(
            rename_word("stock >= 0", "stock", "on_hand"),
            "on_hand >= 0"
        );
        assert_eq!(
            rename_word("status IN ('active', 'inactive')", "status", "standing"),
            "standing IN ('active', 'inactive')"
        );
        assert_eq!(rename_word("in_stock >= 0", "stock", "x"), "in_stock >= 0");
    }
}
