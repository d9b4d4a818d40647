//! The seed (tables with typed columns, constraints and rows; indexes; views; the clock) and
//! the server value the engine is built into from it.

use crate::background::{self, Background, MAX_ROWS};
use crate::catalog::Kind;
use crate::engine::{Engine, quote, sql_of};
use mcpbench_sim::SeedError;
use rusqlite::params_from_iter;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;

/// The database's current time when the seed names none.
pub const DEFAULT_NOW: &str = "2025-01-15 09:00:00";

/// `initial_state.postgres`: the tables (with their rows), indexes and views the database
/// starts with. Everything lives in the one schema, `public`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Seed {
    /// The database's fixed current time (`now()`, `CURRENT_TIMESTAMP`, `date('now')`),
    /// `YYYY-MM-DD HH:MM:SS`; default 2025-01-15 09:00:00.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub now: Option<String>,
    /// Tables in creation order; foreign keys may point at any of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tables: Vec<TableSeed>,
    /// Secondary indexes (those of PRIMARY KEY and UNIQUE columns exist without listing).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub indexes: Vec<IndexSeed>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub views: Vec<ViewSeed>,
    /// Tables of the database's own beside `tables`, expanded when the database is built.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<Background>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TableSeed {
    /// Lower-case identifier: letters, digits and `_`.
    pub name: String,
    pub columns: Vec<ColumnSeed>,
    /// A primary key over several columns; for one column, mark the column instead.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub primary_key: Vec<String>,
    /// Rows, each a list of scalar values in column order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rows: Vec<Vec<Value>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ColumnSeed {
    pub name: String,
    #[serde(rename = "type")]
    pub data_type: SqlType,
    #[serde(default, skip_serializing_if = "is_false")]
    pub primary_key: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub not_null: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub unique: bool,
    /// A scalar default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// A boolean SQL expression every row must satisfy, like `price >= 0`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub references: Option<Reference>,
}

/// A foreign key to a column of another table (its primary key or a unique column).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Reference {
    pub table: String,
    pub column: String,
    #[serde(default, skip_serializing_if = "OnDelete::is_default")]
    pub on_delete: OnDelete,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OnDelete {
    #[default]
    NoAction,
    Restrict,
    Cascade,
    SetNull,
}

impl OnDelete {
    fn is_default(&self) -> bool {
        *self == OnDelete::NoAction
    }
    fn sql(self) -> &'static str {
        match self {
            OnDelete::NoAction => "",
            OnDelete::Restrict => " ON DELETE RESTRICT",
            OnDelete::Cascade => " ON DELETE CASCADE",
            OnDelete::SetNull => " ON DELETE SET NULL",
        }
    }
}

/// Column types, by their Postgres names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SqlType {
    Integer,
    Bigint,
    Numeric,
    Real,
    Text,
    Varchar,
    Boolean,
    Date,
    Timestamp,
}

impl SqlType {
    pub fn sql(self) -> &'static str {
        match self {
            SqlType::Integer => "INTEGER",
            SqlType::Bigint => "BIGINT",
            SqlType::Numeric => "NUMERIC",
            SqlType::Real => "REAL",
            SqlType::Text => "TEXT",
            SqlType::Varchar => "VARCHAR",
            SqlType::Boolean => "BOOLEAN",
            SqlType::Date => "DATE",
            SqlType::Timestamp => "TIMESTAMP",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IndexSeed {
    pub name: String,
    pub table: String,
    pub columns: Vec<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub unique: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ViewSeed {
    pub name: String,
    /// The SELECT statement the view runs.
    pub query: String,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl ColumnSeed {
    /// A nullable column without constraints; chain the builders below for more.
    pub fn new(name: &str, data_type: SqlType) -> Self {
        Self {
            name: name.into(),
            data_type,
            primary_key: false,
            not_null: false,
            unique: false,
            default: None,
            check: None,
            references: None,
        }
    }
    pub fn primary_key(mut self) -> Self {
        self.primary_key = true;
        self
    }
    pub fn not_null(mut self) -> Self {
        self.not_null = true;
        self
    }
    pub fn unique(mut self) -> Self {
        self.unique = true;
        self
    }
    pub fn default(mut self, value: Value) -> Self {
        self.default = Some(value);
        self
    }
    pub fn check(mut self, expression: &str) -> Self {
        self.check = Some(expression.into());
        self
    }
    pub fn references(mut self, table: &str, column: &str) -> Self {
        self.references = Some(Reference {
            table: table.into(),
            column: column.into(),
            on_delete: OnDelete::NoAction,
        });
        self
    }
}

/// The simulated server: a live database.
pub struct Postgres {
    pub(crate) db: Engine,
}

impl std::fmt::Debug for Postgres {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tables: Vec<String> = self
            .db
            .objects(Kind::Table)
            .unwrap_or_default()
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        f.debug_struct("Postgres").field("tables", &tables).finish()
    }
}

/// A Postgres-style identifier for seeds: lower case, letters, digits and `_`, at most 63 bytes.
pub(crate) fn seed_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    name.len() <= 63
        && !name.starts_with("sqlite_")
        && chars
            .next()
            .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

fn literal(v: &Value) -> Option<String> {
    Some(match v {
        Value::Null => "NULL".into(),
        Value::Bool(b) => if *b { "TRUE" } else { "FALSE" }.into(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("'{}'", s.replace('\'', "''")),
        Value::Array(_) | Value::Object(_) => return None,
    })
}

fn column_sql(c: &ColumnSeed) -> String {
    let mut s = format!("{} {}", quote(&c.name), c.data_type.sql());
    if c.primary_key {
        s.push_str(" PRIMARY KEY");
    }
    if c.not_null {
        s.push_str(" NOT NULL");
    }
    if c.unique {
        s.push_str(" UNIQUE");
    }
    if let Some(d) = c.default.as_ref().and_then(literal) {
        s.push_str(&format!(" DEFAULT {d}"));
    }
    if let Some(check) = &c.check {
        s.push_str(&format!(" CHECK ({check})"));
    }
    if let Some(r) = &c.references {
        s.push_str(&format!(
            " REFERENCES {} ({}){}",
            quote(&r.table),
            quote(&r.column),
            r.on_delete.sql()
        ));
    }
    s
}

fn create_table_sql(t: &TableSeed) -> String {
    let mut parts: Vec<String> = t.columns.iter().map(column_sql).collect();
    if !t.primary_key.is_empty() {
        let cols: Vec<String> = t.primary_key.iter().map(|c| quote(c)).collect();
        parts.push(format!("PRIMARY KEY ({})", cols.join(", ")));
    }
    format!(
        "CREATE TABLE {} (\n  {}\n)",
        quote(&t.name),
        parts.join(",\n  ")
    )
}

fn validate(seed: &Seed) -> Result<(), String> {
    let mut names = BTreeSet::new();
    let mut claim = |what: &str, name: &str| -> Result<(), String> {
        if !seed_identifier(name) {
            return Err(format!(
                "{what} name {name:?} is not a lower-case identifier (letters, digits, _)"
            ));
        }
        if !names.insert(name.to_string()) {
            return Err(format!(
                "the name {name} is used twice (tables, views and indexes share one namespace)"
            ));
        }
        Ok(())
    };
    for t in &seed.tables {
        claim("table", &t.name)?;
    }
    for i in &seed.indexes {
        claim("index", &i.name)?;
    }
    for v in &seed.views {
        claim("view", &v.name)?;
    }
    let table = |name: &str| seed.tables.iter().find(|t| t.name == name);
    let has_column = |t: &TableSeed, c: &str| t.columns.iter().any(|x| x.name == c);
    for t in &seed.tables {
        let at = &t.name;
        if t.columns.is_empty() {
            return Err(format!("table {at} has no columns"));
        }
        let mut seen = BTreeSet::new();
        for c in &t.columns {
            if !seed_identifier(&c.name) {
                return Err(format!(
                    "column name {:?} of table {at} is not a lower-case identifier",
                    c.name
                ));
            }
            if !seen.insert(c.name.as_str()) {
                return Err(format!("table {at} has two columns named {}", c.name));
            }
            if c.default.as_ref().is_some_and(|d| literal(d).is_none()) {
                return Err(format!("the default of {at}.{} is not a scalar", c.name));
            }
            if let Some(r) = &c.references
                && !table(&r.table).is_some_and(|p| has_column(p, &r.column))
            {
                return Err(format!(
                    "{at}.{} references {}.{}, which the seed does not define",
                    c.name, r.table, r.column
                ));
            }
        }
        let flagged = t.columns.iter().filter(|c| c.primary_key).count();
        if flagged > 1 || (flagged == 1 && !t.primary_key.is_empty()) {
            return Err(format!(
                "table {at} declares more than one primary key; list several columns in primary_key"
            ));
        }
        if let Some(c) = t.primary_key.iter().find(|c| !has_column(t, c)) {
            return Err(format!(
                "primary key of {at} names {c}, which is not a column"
            ));
        }
        for (i, row) in t.rows.iter().enumerate() {
            if row.len() != t.columns.len() {
                return Err(format!(
                    "row {} of {at} has {} values for {} columns",
                    i + 1,
                    row.len(),
                    t.columns.len()
                ));
            }
            if row.iter().any(|v| sql_of(v).is_none()) {
                return Err(format!(
                    "row {} of {at} holds a list or object; values are scalars",
                    i + 1
                ));
            }
        }
    }
    for i in &seed.indexes {
        let Some(t) = table(&i.table) else {
            return Err(format!(
                "index {} is on table {}, which the seed does not define",
                i.name, i.table
            ));
        };
        if i.columns.is_empty() || i.columns.iter().any(|c| !has_column(t, c)) {
            return Err(format!(
                "index {} must list existing columns of {}",
                i.name, i.table
            ));
        }
    }
    Ok(())
}

impl Postgres {
    /// An exact copy of the database ([`Engine::copy`](crate::engine::Engine)), with a fence of
    /// its own; fails when the engine's shared memory limit refuses the copy's pages.
    pub(crate) fn copy(&self) -> Result<Self, SeedError> {
        let db = self.db.copy().map_err(|e| {
            SeedError::new("postgres", format!("the database could not be copied: {e}"))
        })?;
        Ok(Self { db })
    }

    pub(crate) fn from_seed(seed: &Seed) -> Result<Self, SeedError> {
        let bad = |m: String| SeedError::new("postgres", m);
        let now = seed.now.as_deref().unwrap_or(DEFAULT_NOW);
        let furnished;
        let seed = match &seed.background {
            Some(b) if b.rows > MAX_ROWS => {
                return Err(bad(format!(
                    "a background of {} rows is more than the {MAX_ROWS} a database may hold",
                    b.rows
                )));
            }
            Some(b) => {
                furnished = background::furnished(b, seed, now);
                &furnished
            }
            None => seed,
        };
        validate(seed).map_err(bad)?;
        let db = Engine::open(now).map_err(|e| bad(format!("the database did not open: {e}")))?;
        build(&db, seed, now).map_err(bad)?;
        Ok(Postgres { db })
    }

    pub(crate) fn snapshot(&self) -> Value {
        let db = &self.db;
        let mut tables = Map::new();
        for (name, sql) in db.objects(Kind::Table).unwrap_or_default() {
            let content = match db.all_rows(&name) {
                Ok((columns, rows)) => json!({ "sql": sql, "columns": columns, "rows": rows }),
                Err(e) => json!({ "sql": sql, "error": e.to_string() }),
            };
            tables.insert(name, content);
        }
        let defs = |kind| -> Map<String, Value> {
            db.objects(kind)
                .unwrap_or_default()
                .into_iter()
                .filter_map(|(n, s)| Some((n, Value::from(s?))))
                .collect()
        };
        json!({ "tables": tables, "indexes": defs(Kind::Index), "views": defs(Kind::View), "triggers": defs(Kind::Trigger) })
    }
}

fn build(db: &Engine, seed: &Seed, now: &str) -> Result<(), String> {
    let c = db.trusted();
    let parsed: Option<String> = c
        .query_row("SELECT datetime(?1)", [now], |r| r.get(0))
        .map_err(|e| e.to_string())?;
    if parsed.is_none() {
        return Err(format!(
            "now {now:?} is not a date and time like 2025-01-15 09:00:00"
        ));
    }
    c.execute_batch("BEGIN; PRAGMA defer_foreign_keys = ON")
        .map_err(|e| e.to_string())?;
    for t in &seed.tables {
        c.execute_batch(&create_table_sql(t))
            .map_err(|e| format!("table {}: {e}", t.name))?;
    }
    for t in &seed.tables {
        let cols: Vec<String> = t.columns.iter().map(|c| quote(&c.name)).collect();
        let marks: Vec<String> = (1..=cols.len()).map(|i| format!("?{i}")).collect();
        let sql = format!(
            "INSERT INTO {} ({}) VALUES ({})",
            quote(&t.name),
            cols.join(", "),
            marks.join(", ")
        );
        let mut stmt = c
            .prepare(&sql)
            .map_err(|e| format!("table {}: {e}", t.name))?;
        for (i, row) in t.rows.iter().enumerate() {
            let values = row.iter().filter_map(sql_of);
            stmt.execute(params_from_iter(values))
                .map_err(|e| format!("row {} of {}: {e}", i + 1, t.name))?;
        }
    }
    for i in &seed.indexes {
        let cols: Vec<String> = i.columns.iter().map(|c| quote(c)).collect();
        let unique = if i.unique { "UNIQUE " } else { "" };
        let sql = format!(
            "CREATE {unique}INDEX {} ON {} ({})",
            quote(&i.name),
            quote(&i.table),
            cols.join(", ")
        );
        c.execute_batch(&sql)
            .map_err(|e| format!("index {}: {e}", i.name))?;
    }
    for v in &seed.views {
        c.execute_batch(&format!("CREATE VIEW {} AS {}", quote(&v.name), v.query))
            .map_err(|e| format!("view {}: {e}", v.name))?;
    }
    let dangling: Option<(String, i64, String)> = c
        .query_row(
            "SELECT \"table\", rowid, parent FROM pragma_foreign_key_check LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .map(Some)
        .or_else(|e| {
            if matches!(e, rusqlite::Error::QueryReturnedNoRows) {
                Ok(None)
            } else {
                Err(e.to_string())
            }
        })?;
    if let Some((table, rowid, parent)) = dangling {
        return Err(format!(
            "a row of {table} (rowid {rowid}) refers to a row of {parent} that does not exist"
        ));
    }
    c.execute_batch("COMMIT").map_err(|e| e.to_string())
}
