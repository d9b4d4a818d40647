//! `postgres.*` predicate atoms. Each one is answered by the engine: the SQL is built from the
//! typed arguments with quoted identifiers (validated first) and bound values, never from text
//! a task supplies. A name that is not a plain identifier, or a table that does not exist,
//! makes the atom false.

use crate::catalog::Kind;
use crate::engine::{quote, sql_of};
use crate::state::Postgres;
use rusqlite::params_from_iter;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub enum Atom {
    /// A table named `table` exists.
    #[serde(rename = "postgres.tableExists")]
    TableExists { table: String },
    /// `table` has a column `column`; when given, its declared type matches `data_type`
    /// (Postgres aliases accepted: `int` for `integer`, `bool` for `boolean`, a length such as
    /// `varchar(40)` ignored), and it is NOT NULL / part of the primary key as stated.
    #[serde(rename = "postgres.columnExists")]
    ColumnExists {
        table: String,
        column: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        data_type: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        not_null: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        primary_key: Option<bool>,
    },
    /// Some row of `table` has every listed column equal to its value (SQL `IS`, so `null`
    /// matches NULL; `true`/`false` match 1/0).
    #[serde(rename = "postgres.rowExists")]
    RowExists {
        table: String,
        #[serde(rename = "where")]
        filter: BTreeMap<String, Value>,
    },
    /// Exactly `count` rows of `table` match `where` (all rows when it is left out).
    #[serde(rename = "postgres.rowCount")]
    RowCount {
        table: String,
        #[serde(rename = "where", default, skip_serializing_if = "BTreeMap::is_empty")]
        filter: BTreeMap<String, Value>,
        count: u64,
    },
    /// `table` has a complete (not partial) index on exactly `columns`, in that order; when
    /// given, with that `name` and that uniqueness. Indexes made by PRIMARY KEY and UNIQUE
    /// constraints count.
    #[serde(rename = "postgres.indexExists")]
    IndexExists {
        table: String,
        columns: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        unique: Option<bool>,
    },
}

/// A plain SQL identifier: letters, digits and `_`, not starting with a digit.
pub(crate) fn identifier(name: &str) -> bool {
    let mut chars = name.chars();
    name.len() <= 63
        && chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A declared type in a canonical spelling: lower case, one space, no length, Postgres aliases
/// folded (`int4` and `int` are `integer`).
pub(crate) fn canonical_type(t: &str) -> String {
    let lower = t.to_ascii_lowercase();
    let base = lower.split('(').next().unwrap_or_default();
    let words: Vec<&str> = base.split_whitespace().collect();
    let joined = words.join(" ");
    let folded = match joined.as_str() {
        "int" | "int4" => "integer",
        "int8" => "bigint",
        "int2" => "smallint",
        "bool" => "boolean",
        "decimal" => "numeric",
        "float4" => "real",
        "float8" | "double" => "double precision",
        "character varying" => "varchar",
        "character" => "char",
        "timestamp without time zone" => "timestamp",
        "timestamp with time zone" => "timestamptz",
        other => other,
    };
    folded.to_string()
}

impl Atom {
    pub(crate) fn holds(&self, pg: &Postgres) -> bool {
        match self {
            Atom::TableExists { table } => table_name(pg, table).is_some(),
            Atom::ColumnExists {
                table,
                column,
                data_type,
                not_null,
                primary_key,
            } => {
                let Some(t) = table_name(pg, table) else {
                    return false;
                };
                let columns = pg.db.columns(&t).unwrap_or_default();
                columns.iter().any(|c| {
                    c.name.eq_ignore_ascii_case(column)
                        && data_type
                            .as_ref()
                            .is_none_or(|d| canonical_type(d) == canonical_type(&c.data_type))
                        && not_null.is_none_or(|n| n == c.never_null(&columns))
                        && primary_key.is_none_or(|p| p == (c.pk > 0))
                })
            }
            Atom::RowExists { table, filter } => count(pg, table, filter).is_some_and(|n| n > 0),
            Atom::RowCount {
                table,
                filter,
                count: want,
            } => count(pg, table, filter) == Some(*want),
            Atom::IndexExists {
                table,
                columns,
                name,
                unique,
            } => {
                let Some(t) = table_name(pg, table) else {
                    return false;
                };
                pg.db.indexes(&t).unwrap_or_default().iter().any(|i| {
                    !i.partial
                        && i.columns.len() == columns.len()
                        && i.columns.iter().zip(columns).all(|(have, want)| {
                            have.as_deref()
                                .is_some_and(|h| h.eq_ignore_ascii_case(want))
                        })
                        && name.as_ref().is_none_or(|n| i.name.eq_ignore_ascii_case(n))
                        && unique.is_none_or(|u| u == i.unique)
                })
            }
        }
    }
}

fn table_name(pg: &Postgres, table: &str) -> Option<String> {
    if !identifier(table) {
        return None;
    }
    pg.db
        .find(table, &[Kind::Table])
        .ok()
        .flatten()
        .map(|(_, name)| name)
}

fn count(pg: &Postgres, table: &str, filter: &BTreeMap<String, Value>) -> Option<u64> {
    let table = table_name(pg, table)?;
    let mut conditions = Vec::new();
    let mut values = Vec::new();
    for (i, (column, value)) in filter.iter().enumerate() {
        if !identifier(column) {
            return None;
        }
        conditions.push(format!("{} IS ?{}", quote(column), i + 1));
        values.push(sql_of(value)?);
    }
    let mut sql = format!("SELECT count(*) FROM {}", quote(&table));
    if !conditions.is_empty() {
        sql.push_str(&format!(" WHERE {}", conditions.join(" AND ")));
    }
    let c = pg.db.trusted();
    c.query_row(&sql, params_from_iter(values), |r| r.get::<_, i64>(0))
        .ok()
        .map(|n| n as u64)
}
