//! What the database holds, read from the engine's own catalog (`sqlite_schema` and the
//! table-valued pragmas) for the listing tools, the predicates and the snapshot. The server's
//! own SQL here binds every name it looks up and quotes every identifier it embeds.

use crate::engine::{Engine, json_of, quote};
use rusqlite::Result;
use serde_json::Value;

/// The kinds of schema object the catalog names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Table,
    View,
    Index,
    Trigger,
}

impl Kind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Kind::Table => "table",
            Kind::View => "view",
            Kind::Index => "index",
            Kind::Trigger => "trigger",
        }
    }
}

pub(crate) struct Column {
    pub name: String,
    pub data_type: String,
    pub not_null: bool,
    pub default: Option<String>,
    /// Position in the primary key, 0 when not part of it.
    pub pk: i64,
}

impl Column {
    /// Whether the column can never hold NULL: declared NOT NULL, or the INTEGER PRIMARY KEY
    /// that is the row id. `all` is every column of its table.
    pub(crate) fn never_null(&self, all: &[Column]) -> bool {
        self.not_null
            || (self.pk > 0
                && all.iter().filter(|c| c.pk > 0).count() == 1
                && self.data_type.eq_ignore_ascii_case("integer"))
    }
}

pub(crate) struct Index {
    pub name: String,
    /// Indexed columns in order; `None` for an expression.
    pub columns: Vec<Option<String>>,
    pub unique: bool,
    /// `c` (CREATE INDEX), `u` (UNIQUE constraint) or `pk` (PRIMARY KEY).
    pub origin: String,
    pub partial: bool,
    /// The CREATE INDEX statement; `None` for an index a constraint made.
    pub sql: Option<String>,
}

pub(crate) struct ForeignKey {
    pub columns: Vec<String>,
    pub table: String,
    pub to: Vec<String>,
    pub on_update: String,
    pub on_delete: String,
}

/// The name without a leading `public.`: the one schema may be written or left out.
pub(crate) fn unqualified(name: &str) -> &str {
    match name.split_once('.') {
        Some((schema, rest)) if schema.eq_ignore_ascii_case("public") => rest,
        _ => name,
    }
}

impl Engine {
    /// Names and definitions of the user objects of one kind, sorted by name.
    pub(crate) fn objects(&self, kind: Kind) -> Result<Vec<(String, Option<String>)>> {
        let c = self.trusted();
        let mut s = c.prepare(
            "SELECT name, sql FROM sqlite_schema WHERE type = ?1 AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
        )?;
        s.query_map([kind.as_str()], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect()
    }

    /// The object called `name` (any letter case, `public.` optional) of the first of `kinds`
    /// that has one, with its exact name.
    pub(crate) fn find(&self, name: &str, kinds: &[Kind]) -> Result<Option<(Kind, String)>> {
        let c = self.trusted();
        let name = unqualified(name);
        for &kind in kinds {
            let mut s = c.prepare(
                "SELECT name FROM sqlite_schema WHERE type = ?1 AND name = ?2 COLLATE NOCASE \
                 AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name LIMIT 1",
            )?;
            let mut rows = s.query([kind.as_str(), name])?;
            if let Some(row) = rows.next()? {
                return Ok(Some((kind, row.get(0)?)));
            }
        }
        Ok(None)
    }

    /// The definition (CREATE statement) of an object.
    pub(crate) fn definition(&self, name: &str) -> Result<Option<String>> {
        let c = self.trusted();
        let mut s = c.prepare("SELECT sql FROM sqlite_schema WHERE name = ?1")?;
        let mut rows = s.query([name])?;
        Ok(match rows.next()? {
            Some(row) => row.get(0)?,
            None => None,
        })
    }

    pub(crate) fn columns(&self, table: &str) -> Result<Vec<Column>> {
        let c = self.trusted();
        let mut s = c.prepare("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?1) ORDER BY cid")?;
        s.query_map([table], |r| {
            Ok(Column {
                name: r.get(0)?,
                data_type: r.get(1)?,
                not_null: r.get(2)?,
                default: r.get(3)?,
                pk: r.get(4)?,
            })
        })?
        .collect()
    }

    pub(crate) fn indexes(&self, table: &str) -> Result<Vec<Index>> {
        let c = self.trusted();
        let mut s = c.prepare(
            "SELECT name, \"unique\", origin, partial FROM pragma_index_list(?1) ORDER BY name",
        )?;
        let heads: Vec<(String, bool, String, bool)> = s
            .query_map([table], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })?
            .collect::<Result<_>>()?;
        let mut out = Vec::new();
        for (name, unique, origin, partial) in heads {
            let mut s = c.prepare("SELECT name FROM pragma_index_info(?1) ORDER BY seqno")?;
            let columns = s.query_map([&name], |r| r.get(0))?.collect::<Result<_>>()?;
            let sql = self.definition(&name)?;
            out.push(Index {
                name,
                columns,
                unique,
                origin,
                partial,
                sql,
            });
        }
        Ok(out)
    }

    pub(crate) fn foreign_keys(&self, table: &str) -> Result<Vec<ForeignKey>> {
        let c = self.trusted();
        let mut s = c.prepare(
            "SELECT id, \"table\", \"from\", \"to\", on_update, on_delete FROM pragma_foreign_key_list(?1) ORDER BY id, seq",
        )?;
        let parts: Vec<(i64, String, String, Option<String>, String, String)> = s
            .query_map([table], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            })?
            .collect::<Result<_>>()?;
        let mut out: Vec<(i64, ForeignKey)> = Vec::new();
        for (id, parent, from, to, on_update, on_delete) in parts {
            if out.last().is_none_or(|(last, _)| *last != id) {
                let fk = ForeignKey {
                    columns: vec![],
                    table: parent,
                    to: vec![],
                    on_update,
                    on_delete,
                };
                out.push((id, fk));
            }
            let (_, fk) = out.last_mut().expect("pushed");
            fk.columns.push(from);
            fk.to.push(to.unwrap_or_default());
        }
        Ok(out.into_iter().map(|(_, fk)| fk).collect())
    }

    pub(crate) fn row_count(&self, table: &str) -> Result<i64> {
        self.trusted()
            .query_row(&format!("SELECT count(*) FROM {}", quote(table)), [], |r| {
                r.get(0)
            })
    }

    /// Column names and rows of a table or view, `SELECT *` in the engine's scan order, at
    /// most `limit` rows.
    pub(crate) fn sample(&self, table: &str, limit: u32) -> Result<(Vec<String>, Vec<Vec<Value>>)> {
        self.select(&format!("SELECT * FROM {} LIMIT {limit}", quote(table)))
    }

    /// Every row of a table, ordered by all of its columns: the canonical content.
    pub(crate) fn all_rows(&self, table: &str) -> Result<(Vec<String>, Vec<Vec<Value>>)> {
        let n = self.columns(table)?.len().max(1);
        let order: Vec<String> = (1..=n).map(|i| i.to_string()).collect();
        self.select(&format!(
            "SELECT * FROM {} ORDER BY {}",
            quote(table),
            order.join(", ")
        ))
    }

    fn select(&self, sql: &str) -> Result<(Vec<String>, Vec<Vec<Value>>)> {
        let c = self.trusted();
        let mut s = c.prepare(sql)?;
        let columns: Vec<String> = s.column_names().into_iter().map(String::from).collect();
        let width = columns.len();
        let rows = s
            .query_map([], |r| {
                (0..width)
                    .map(|i| r.get_ref(i).map(json_of))
                    .collect::<Result<Vec<Value>>>()
            })?
            .collect::<Result<_>>()?;
        Ok((columns, rows))
    }
}
