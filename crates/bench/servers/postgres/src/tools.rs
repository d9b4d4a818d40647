//! The tools, modelled on the reference Postgres MCP servers: `query` is the official server's
//! read-only tool; `list_schemas`, `list_objects`, `get_object_details`, `execute_sql` and
//! `explain_query` follow Postgres MCP Pro; `list_tables`, `describe_table`, `list_indexes`,
//! `create_index`, `drop_index`, `get_table_sample` and `count_rows` are the conveniences other
//! Postgres servers add. Near-duplicates an agent must choose between: `query` and
//! `execute_sql`, `list_objects` and `list_tables`, `get_object_details` and `describe_table`,
//! `get_table_sample` / `count_rows` and a plain SELECT.

use crate::catalog::{Kind, unqualified};
use crate::engine::{Access, quote};
use crate::state::Postgres;
use mcpbench_sim::{Tool, ToolBox, ToolError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::sync::LazyLock;

type Out = Result<Value, ToolError>;

macro_rules! dialect {
    () => {
        " SQL runs on an embedded SQLite-compatible engine: standard SELECT, INSERT, UPDATE, DELETE, \
         CREATE/ALTER/DROP and RETURNING work; Postgres-only syntax (::casts, ILIKE, SERIAL, \
         information_schema) does not. Tables live in the schema public; write their names bare. \
         Values go into the SQL as literals ('text', 12.5); placeholders are not supported."
    };
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SqlArgs {
    /// The SQL to run; several statements may be separated by semicolons.
    #[schemars(length(min = 1, max = 100000))]
    sql: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

#[derive(Clone, Copy, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum ObjectType {
    #[default]
    Table,
    View,
    Sequence,
    Extension,
}

impl ObjectType {
    fn as_str(self) -> &'static str {
        match self {
            ObjectType::Table => "table",
            ObjectType::View => "view",
            ObjectType::Sequence => "sequence",
            ObjectType::Extension => "extension",
        }
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ListObjects {
    /// The schema to list; this database has one, public.
    #[schemars(length(min = 1, max = 63))]
    schema_name: String,
    /// The kind of object to list (default table).
    #[serde(default)]
    object_type: ObjectType,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ObjectDetails {
    /// The schema of the object: public.
    #[schemars(length(min = 1, max = 63))]
    schema_name: String,
    /// The name of the table or view.
    #[schemars(length(min = 1, max = 128))]
    object_name: String,
    /// The kind of object (default table).
    #[serde(default)]
    object_type: ObjectType,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ListTables {
    /// The schema to list (default public, the only one).
    #[schemars(length(min = 1, max = 63))]
    schema_name: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct TableArgs {
    /// The table (or view), bare or as public.name.
    #[schemars(length(min = 1, max = 128))]
    table_name: String,
    /// Its schema (default public, the only one).
    #[schemars(length(min = 1, max = 63))]
    schema_name: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Explain {
    /// One SQL statement to explain.
    #[schemars(length(min = 1, max = 100000))]
    sql: String,
    /// Also run the statement (read-only statements only) and report how many rows it returns.
    #[serde(default)]
    analyze: bool,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CreateIndex {
    /// The name of the new index.
    #[schemars(length(min = 1, max = 63), pattern(r"^[A-Za-z_][A-Za-z0-9_]*$"))]
    index_name: String,
    /// The table to index.
    #[schemars(length(min = 1, max = 128))]
    table_name: String,
    /// The columns to index, in order.
    #[schemars(length(min = 1, max = 16), inner(length(min = 1, max = 63)))]
    columns: Vec<String>,
    /// Refuse rows that would repeat a value of the indexed columns.
    #[serde(default)]
    unique: bool,
    /// Succeed without change when an index with this name exists already.
    #[serde(default)]
    if_not_exists: bool,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct DropIndex {
    /// The name of the index to drop.
    #[schemars(length(min = 1, max = 63), pattern(r"^[A-Za-z_][A-Za-z0-9_]*$"))]
    index_name: String,
    /// Succeed without change when there is no such index.
    #[serde(default)]
    if_exists: bool,
}

fn five() -> u32 {
    5
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Sample {
    /// The table (or view), bare or as public.name.
    #[schemars(length(min = 1, max = 128))]
    table_name: String,
    /// How many rows to show (default 5).
    #[serde(default = "five")]
    #[schemars(range(min = 1, max = 50))]
    limit: u32,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CountRows {
    /// The table (or view), bare or as public.name.
    #[schemars(length(min = 1, max = 128))]
    table_name: String,
}

fn check_schema(schema: Option<&str>) -> Result<(), ToolError> {
    match schema {
        Some(s) if !s.eq_ignore_ascii_case("public") => Err(ToolError::not_found(format!(
            "schema \"{s}\" does not exist; this database has one schema, public"
        ))),
        _ => Ok(()),
    }
}

fn relation(
    pg: &Postgres,
    name: &str,
    schema: Option<&str>,
    kinds: &[Kind],
) -> Result<(Kind, String), ToolError> {
    check_schema(schema)?;
    let what = if kinds == [Kind::Table] {
        "table"
    } else {
        "relation"
    };
    pg.db
        .find(name, kinds)
        .map_err(|e| pg.db.error(e))?
        .ok_or_else(|| {
            ToolError::not_found(format!(
                "{what} \"{}\" does not exist in schema public",
                unqualified(name)
            ))
        })
}

fn query(pg: &Postgres, a: SqlArgs) -> Out {
    pg.db.run(&a.sql, Access::ReadOnly)
}

fn execute_sql(pg: &mut Postgres, a: SqlArgs) -> Out {
    pg.db.run(&a.sql, Access::ReadWrite)
}

fn list_schemas(_: &Postgres, _: NoArgs) -> Out {
    Ok(
        json!([{ "schema_name": "public", "schema_owner": "postgres", "schema_type": "User Schema" }]),
    )
}

fn list_objects(pg: &Postgres, a: ListObjects) -> Out {
    check_schema(Some(&a.schema_name))?;
    let kind = match a.object_type {
        ObjectType::Table => Kind::Table,
        ObjectType::View => Kind::View,
        ObjectType::Sequence | ObjectType::Extension => return Ok(json!([])),
    };
    let objects = pg.db.objects(kind).map_err(|e| pg.db.error(e))?;
    Ok(objects
        .into_iter()
        .map(|(name, _)| json!({ "schema": "public", "name": name, "type": kind.as_str() }))
        .collect())
}

fn list_tables(pg: &Postgres, a: ListTables) -> Out {
    check_schema(a.schema_name.as_deref())?;
    let err = |e| pg.db.error(e);
    let mut tables = Vec::new();
    for (name, _) in pg.db.objects(Kind::Table).map_err(err)? {
        let columns = pg.db.columns(&name).map_err(err)?.len();
        let rows = pg.db.row_count(&name).map_err(err)?;
        tables.push(json!({ "name": name, "columns": columns, "rows": rows }));
    }
    Ok(json!({ "schema": "public", "tables": tables }))
}

fn get_object_details(pg: &Postgres, a: ObjectDetails) -> Out {
    let kinds = match a.object_type {
        ObjectType::Table => [Kind::Table],
        ObjectType::View => [Kind::View],
        t => {
            check_schema(Some(&a.schema_name))?;
            let t = t.as_str();
            return Err(ToolError::not_found(format!(
                "{t} \"{}\" does not exist; this database has no {t}s",
                a.object_name
            )));
        }
    };
    let (kind, name) = relation(pg, &a.object_name, Some(&a.schema_name), &kinds)?;
    let err = |e| pg.db.error(e);
    let all = pg.db.columns(&name).map_err(err)?;
    let columns: Vec<Value> = all
        .iter()
        .map(|c| {
            json!({
                "column": c.name, "data_type": c.data_type.to_ascii_lowercase(),
                "is_nullable": if c.never_null(&all) { "NO" } else { "YES" }, "default": c.default,
            })
        })
        .collect();
    let mut out = json!({
        "basic": { "schema": "public", "name": name, "type": kind.as_str() },
        "columns": columns,
        "definition": pg.db.definition(&name).map_err(err)?,
    });
    if kind == Kind::Table {
        let mut constraints = Vec::new();
        let mut pk: Vec<&crate::catalog::Column> = all.iter().filter(|c| c.pk > 0).collect();
        pk.sort_by_key(|c| c.pk);
        if !pk.is_empty() {
            constraints.push(json!({ "type": "PRIMARY KEY", "columns": pk.iter().map(|c| &c.name).collect::<Vec<_>>() }));
        }
        let indexes = pg.db.indexes(&name).map_err(err)?;
        for i in indexes.iter().filter(|i| i.origin == "u") {
            constraints.push(json!({ "type": "UNIQUE", "columns": i.columns }));
        }
        for fk in pg.db.foreign_keys(&name).map_err(err)? {
            constraints.push(json!({
                "type": "FOREIGN KEY", "columns": fk.columns,
                "references": { "table": fk.table, "columns": fk.to },
                "on_update": fk.on_update, "on_delete": fk.on_delete,
            }));
        }
        out["constraints"] = Value::Array(constraints);
        out["indexes"] = indexes
            .iter()
            .map(|i| json!({ "name": i.name, "columns": i.columns, "unique": i.unique }))
            .collect();
    }
    Ok(out)
}

fn describe_table(pg: &Postgres, a: TableArgs) -> Out {
    let (kind, name) = relation(
        pg,
        &a.table_name,
        a.schema_name.as_deref(),
        &[Kind::Table, Kind::View],
    )?;
    let all = pg.db.columns(&name).map_err(|e| pg.db.error(e))?;
    let columns: Vec<Value> = all
        .iter()
        .map(|c| {
            json!({
                "name": c.name, "type": c.data_type.to_ascii_lowercase(), "nullable": !c.never_null(&all),
                "default": c.default, "primary_key": c.pk > 0,
            })
        })
        .collect();
    Ok(json!({ "schema": "public", "table": name, "type": kind.as_str(), "columns": columns }))
}

fn explain_query(pg: &Postgres, a: Explain) -> Out {
    pg.db.explain(&a.sql, a.analyze)
}

fn list_indexes(pg: &Postgres, a: TableArgs) -> Out {
    let (_, name) = relation(pg, &a.table_name, a.schema_name.as_deref(), &[Kind::Table])?;
    let indexes: Vec<Value> = pg
        .db
        .indexes(&name)
        .map_err(|e| pg.db.error(e))?
        .into_iter()
        .map(|i| {
            let origin = match i.origin.as_str() {
                "pk" => "primary key",
                "u" => "unique constraint",
                _ => "create index",
            };
            json!({
                "name": i.name, "columns": i.columns, "unique": i.unique, "origin": origin,
                "partial": i.partial, "definition": i.sql,
            })
        })
        .collect();
    Ok(json!({ "table": name, "indexes": indexes }))
}

fn create_index(pg: &mut Postgres, a: CreateIndex) -> Out {
    let (_, table) = relation(pg, &a.table_name, None, &[Kind::Table])?;
    let err = |e| pg.db.error(e);
    let taken = pg
        .db
        .find(
            &a.index_name,
            &[Kind::Index, Kind::Table, Kind::View, Kind::Trigger],
        )
        .map_err(err)?;
    if let Some((kind, existing)) = taken {
        if kind == Kind::Index && a.if_not_exists {
            return Ok(
                json!({ "status": "ok", "message": format!("index {existing} already exists; nothing was changed") }),
            );
        }
        return Err(ToolError::conflict(format!(
            "a {} named {existing} already exists",
            kind.as_str()
        )));
    }
    let columns = pg.db.columns(&table).map_err(err)?;
    let mut listed: Vec<String> = Vec::new();
    for c in &a.columns {
        let Some(col) = columns.iter().find(|x| x.name.eq_ignore_ascii_case(c)) else {
            return Err(ToolError::not_found(format!(
                "column \"{c}\" of table {table} does not exist"
            )));
        };
        let quoted = quote(&col.name);
        if listed.contains(&quoted) {
            return Err(ToolError::invalid(format!(
                "column {} is listed twice",
                col.name
            )));
        }
        listed.push(quoted);
    }
    let unique = if a.unique { "UNIQUE " } else { "" };
    let sql = format!(
        "CREATE {unique}INDEX {} ON {} ({})",
        quote(&a.index_name),
        quote(&table),
        listed.join(", ")
    );
    pg.db.run(&sql, Access::ReadWrite)?;
    Ok(json!({ "status": "ok", "index": a.index_name, "table": table, "definition": sql }))
}

fn drop_index(pg: &mut Postgres, a: DropIndex) -> Out {
    if a.index_name
        .to_ascii_lowercase()
        .starts_with("sqlite_autoindex")
    {
        return Err(ToolError::precondition(format!(
            "index {} enforces a PRIMARY KEY or UNIQUE constraint and cannot be dropped on its own",
            a.index_name
        )));
    }
    match pg
        .db
        .find(&a.index_name, &[Kind::Index])
        .map_err(|e| pg.db.error(e))?
    {
        None if a.if_exists => Ok(
            json!({ "status": "ok", "message": format!("index {} does not exist; nothing was changed", a.index_name) }),
        ),
        None => Err(ToolError::not_found(format!(
            "index \"{}\" does not exist",
            a.index_name
        ))),
        Some((_, name)) => {
            pg.db
                .run(&format!("DROP INDEX {}", quote(&name)), Access::ReadWrite)?;
            Ok(json!({ "status": "ok", "message": format!("dropped index {name}") }))
        }
    }
}

fn get_table_sample(pg: &Postgres, a: Sample) -> Out {
    let (_, name) = relation(pg, &a.table_name, None, &[Kind::Table, Kind::View])?;
    let err = |e| pg.db.error(e);
    let (columns, rows) = pg.db.sample(&name, a.limit).map_err(err)?;
    let total = pg.db.row_count(&name).map_err(err)?;
    Ok(json!({ "table": name, "columns": columns, "rows": rows, "total_rows": total }))
}

fn count_rows(pg: &Postgres, a: CountRows) -> Out {
    let (_, name) = relation(pg, &a.table_name, None, &[Kind::Table, Kind::View])?;
    let n = pg.db.row_count(&name).map_err(|e| pg.db.error(e))?;
    Ok(json!({ "table": name, "row_count": n }))
}

pub(crate) static TOOLS: LazyLock<ToolBox<Postgres>> = LazyLock::new(|| {
    ToolBox::new(vec![
        Tool::read(
            "query",
            concat!(
                "Run a read-only SQL query and get the rows back: column names, rows as arrays of values, at most 100 rows and 4 MiB of values per result. \
             It runs in a read-only transaction, so statements that would change data or schema are refused.",
                dialect!()
            ),
            query,
        ),
        Tool::write(
            "execute_sql",
            concat!(
                "Execute any SQL: INSERT, UPDATE, DELETE, CREATE/ALTER/DROP, or SELECT. Returns rows (at most 100 and 4 MiB of values per result) or \
             the number of rows affected. Several statements separated by semicolons run as one transaction: all or nothing. \
             A run's database holds at most 8 MiB in all.",
                dialect!()
            ),
            execute_sql,
        ),
        Tool::read(
            "list_schemas",
            "List the database's schemas with their owner and type.",
            list_schemas,
        ),
        Tool::read(
            "list_objects",
            "List the objects of one schema: tables (default), views, sequences or extensions, each with schema, name and type.",
            list_objects,
        ),
        Tool::read(
            "list_tables",
            "List the tables of the public schema with how many columns and rows each has.",
            list_tables,
        ),
        Tool::read(
            "get_object_details",
            "Show a table or view in detail: columns (type, nullability, default), constraints (primary key, unique, foreign keys), indexes, and the full definition, where CHECK constraints appear.",
            get_object_details,
        ),
        Tool::read(
            "describe_table",
            "Describe the columns of a table or view: name, type, whether it is nullable, default, and whether it is part of the primary key.",
            describe_table,
        ),
        Tool::read(
            "explain_query",
            "Show the query plan of one SQL statement: which tables are scanned and which indexes are searched. With analyze, a read-only statement is also run and its actual row count reported.",
            explain_query,
        ),
        Tool::read(
            "list_indexes",
            "List the indexes of a table: name, columns in order, unique, origin (primary key, unique constraint or create index), partial, and definition.",
            list_indexes,
        ),
        Tool::write(
            "create_index",
            "Create an index on one or more columns of a table; unique makes it refuse duplicate values. Fails if the name is taken, unless if_not_exists is set.",
            create_index,
        ),
        Tool::write(
            "drop_index",
            "Drop an index by name. Indexes that enforce a PRIMARY KEY or UNIQUE constraint cannot be dropped this way.",
            drop_index,
        ),
        Tool::read(
            "get_table_sample",
            "Get the first rows of a table or view (default 5, at most 50) and its total row count, to see what the data looks like.",
            get_table_sample,
        ),
        Tool::read(
            "count_rows",
            "Count all rows of a table or view.",
            count_rows,
        ),
    ])
});
