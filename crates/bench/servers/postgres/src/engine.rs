//! The embedded engine: one in-memory SQLite database per run, fenced so that the SQL an agent
//! sends stays inside that database and gives the same bytes on every replay.
//!
//! The fence is built from the engine's own mechanisms, never from reading SQL text:
//! - an authorizer, consulted while a statement is compiled, refuses what would leave the
//!   database or break the per-call transaction: ATTACH/DETACH, explicit BEGIN/COMMIT/ROLLBACK/
//!   SAVEPOINT, PRAGMAs other than introspection, temporary objects, virtual tables and
//!   `load_extension`;
//! - limits: no attached databases at all (which also stops `VACUUM INTO` a file), values of at
//!   most 1 MB, statements of at most 100 kB, a database of at most [`MAX_DB_BYTES`] (the
//!   page count), its page cache and temporary tables in memory, results of at most
//!   [`RESULT_BYTES`] of values, and a hard limit on the heap every run's engine shares in
//!   this process ([`HEAP_LIMIT_BYTES`]): one call cannot take a worker's memory, whatever it
//!   inserts, sorts, recurses over or selects;
//! - a progress handler cancels a statement after a fixed number of virtual-machine steps, so a
//!   runaway statement ends the same way on every machine;
//! - the clock and random functions are replaced: `'now'`, `CURRENT_TIMESTAMP` and `now()` read
//!   the seed's fixed time, `random()` and `randomblob()` draw from a seeded generator.
//!
//! Reads are told from writes by `sqlite3_stmt_readonly`, which the engine computes from the
//! compiled statement. Every call runs inside a savepoint, so a call with several statements is
//! applied all or nothing, and a failed call changes nothing.

use crate::functions;
use mcpbench_sim::ToolError;
use rusqlite::fallible_iterator::FallibleIterator;
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::limits::Limit;
use rusqlite::types::{Value as Sql, ValueRef};
use rusqlite::{Batch, Connection, Error, ErrorCode, Statement};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard};

/// Rows a result shows at most.
pub(crate) const ROW_CAP: usize = 100;
/// Bytes of values a result shows at most: every value may be a megabyte and a row may have
/// two thousand columns, so without it one answer could hold gigabytes.
pub(crate) const RESULT_BYTES: usize = 4 << 20;

/// Why a result shows fewer rows than the statement returned.
enum Cut {
    Rows,
    Bytes,
}
const OPS_PER_TICK: i32 = 1_000;
/// Progress ticks a call may use: about five million virtual-machine steps.
const MAX_TICKS: u64 = 5_000;
/// The most one run's database holds (seeds are a few hundred rows; this is a thousand times
/// their size).
pub(crate) const MAX_DB_BYTES: u32 = 8 << 20;
const PAGE_BYTES: u32 = 4096;
/// The page cache of one run's database, in KiB.
const CACHE_KIB: u32 = 2048;
/// The SQLite heap of this whole process, every run's engine together: past it a call fails
/// with a tool error (and changes nothing) rather than the worker running out of memory.
///
/// SQLite bounds a connection's pages (above) but not what one statement holds while it runs
/// (a sort, a recursive query's queue, a materialised subquery), and its only heap limit is
/// process-wide. So: a full run's database and cache take about 10 MiB, the default four
/// concurrent runs 40 MiB, and two dozen full runs would still fit; the rest is room for
/// statements in flight, and the whole engine stays within a quarter of a 1 GiB worker.
/// A statement that needs more fails. The limit being shared, a concurrent run's statement
/// that allocates in that instant can fail the same way; such a failure is transient, over as
/// soon as the greedy statement has failed and freed its memory.
pub(crate) const HEAP_LIMIT_BYTES: u64 = 256 << 20;

/// Pragmas an agent may run: they only describe the schema.
const INTROSPECTION_PRAGMAS: &[&str] = &[
    "table_info",
    "table_xinfo",
    "table_list",
    "index_list",
    "index_info",
    "index_xinfo",
    "foreign_key_list",
    "foreign_key_check",
    "integrity_check",
    "quick_check",
];

/// Shared between the engine and its callbacks.
#[derive(Default)]
struct Guard {
    /// Set while the server runs its own SQL (seed, metadata, predicates, savepoints).
    trusted: AtomicBool,
    ticks: AtomicU64,
    /// Why the authorizer last refused, for the error the agent reads.
    refusal: Mutex<Option<String>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Guard {
    fn authorize(&self, ctx: AuthContext<'_>) -> Authorization {
        if self.trusted.load(Relaxed) {
            return Authorization::Allow;
        }
        match refusal(ctx.action) {
            None => Authorization::Allow,
            Some(reason) => {
                *lock(&self.refusal) = Some(reason);
                Authorization::Deny
            }
        }
    }

    /// Whether to cancel the running statement.
    fn tick(&self) -> bool {
        !self.trusted.load(Relaxed) && self.ticks.fetch_add(1, Relaxed) >= MAX_TICKS
    }
}

fn refusal(action: AuthAction<'_>) -> Option<String> {
    let text = match action {
        AuthAction::Transaction { .. } | AuthAction::Savepoint { .. } => {
            "explicit transaction control (BEGIN, COMMIT, ROLLBACK, SAVEPOINT) is not available: \
             each call already runs as one transaction, and a call with several statements is \
             applied all or nothing"
        }
        AuthAction::Attach { .. } | AuthAction::Detach { .. } => {
            "attaching other databases is not allowed"
        }
        AuthAction::Pragma {
            pragma_name,
            pragma_value,
        } => {
            let name = pragma_name.to_ascii_lowercase();
            let allowed = INTROSPECTION_PRAGMAS.contains(&name.as_str())
                || (name == "foreign_keys" && pragma_value.is_none());
            if allowed {
                return None;
            }
            return Some(format!(
                "PRAGMA {pragma_name} is not allowed; only schema introspection pragmas ({}) are",
                INTROSPECTION_PRAGMAS.join(", ")
            ));
        }
        AuthAction::CreateVtable { .. } | AuthAction::DropVtable { .. } => {
            "virtual tables are not supported"
        }
        AuthAction::CreateTempTable { .. }
        | AuthAction::CreateTempIndex { .. }
        | AuthAction::CreateTempTrigger { .. }
        | AuthAction::CreateTempView { .. } => {
            "temporary tables, views, indexes and triggers are not supported; create regular ones"
        }
        AuthAction::Function { function_name }
            if function_name.eq_ignore_ascii_case("load_extension") =>
        {
            "loading extensions is not allowed"
        }
        _ => return None,
    };
    Some(text.to_string())
}

/// Whether a call may change the database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    ReadOnly,
    ReadWrite,
}

/// The database of one run.
pub(crate) struct Engine {
    conn: Connection,
    guard: Arc<Guard>,
    /// The seed's time, which the clock functions read.
    now: String,
    /// The state of `random()`, which a copy carries on from.
    random: Arc<AtomicU64>,
}

/// The connection while the server runs its own SQL: no fence, no step budget.
pub(crate) struct Trusted<'a> {
    engine: &'a Engine,
    before: bool,
}

impl std::ops::Deref for Trusted<'_> {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        &self.engine.conn
    }
}

impl Drop for Trusted<'_> {
    fn drop(&mut self) {
        self.engine.guard.trusted.store(self.before, Relaxed);
    }
}

impl Engine {
    /// A fresh fenced database whose clock reads `now`.
    pub(crate) fn open(now: &str) -> rusqlite::Result<Self> {
        Self::open_with(now, functions::RANDOM_START)
    }

    /// An exact copy: the same pages, clock and random state, with a fence of its own. One
    /// step of SQLite's online backup copies the in-memory database page by page, far faster
    /// than building it again from its seed.
    pub(crate) fn copy(&self) -> rusqlite::Result<Self> {
        let mut copy = Self::open_with(&self.now, self.random.load(Relaxed))?;
        let backup = rusqlite::backup::Backup::new(&self.conn, &mut copy.conn)?;
        match backup.step(-1)? {
            rusqlite::backup::StepResult::Done => {}
            // Only a busy or locked source stops a step short; neither can happen to a
            // private in-memory database, but an unfinished copy must never pass for one.
            other => {
                return Err(Error::SqliteFailure(
                    rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_INTERNAL),
                    Some(format!("copying the database stopped early: {other:?}")),
                ));
            }
        }
        drop(backup);
        Ok(copy)
    }

    fn open_with(now: &str, random: u64) -> rusqlite::Result<Self> {
        let conn = Connection::open_in_memory()?;
        conn.execute_batch("PRAGMA foreign_keys = ON")?;
        // Sizes first, before the authorizer is installed (agents may run no such pragma).
        conn.execute_batch(&format!(
            "PRAGMA page_size = {PAGE_BYTES}; PRAGMA max_page_count = {};
             PRAGMA cache_size = -{CACHE_KIB}; PRAGMA temp_store = MEMORY;
             PRAGMA hard_heap_limit = {HEAP_LIMIT_BYTES};",
            MAX_DB_BYTES / PAGE_BYTES
        ))?;
        conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0)?;
        conn.set_limit(Limit::SQLITE_LIMIT_LENGTH, 1_000_000)?;
        conn.set_limit(Limit::SQLITE_LIMIT_SQL_LENGTH, 100_000)?;
        functions::install_clock(&conn, now)?;
        let random = Arc::new(AtomicU64::new(random));
        functions::install_random(&conn, Arc::clone(&random))?;
        let guard = Arc::new(Guard::default());
        let g = Arc::clone(&guard);
        conn.authorizer(Some(move |ctx: AuthContext<'_>| g.authorize(ctx)))?;
        let g = Arc::clone(&guard);
        conn.progress_handler(OPS_PER_TICK, Some(move || g.tick()))?;
        Ok(Self {
            conn,
            guard,
            now: now.to_string(),
            random,
        })
    }

    pub(crate) fn trusted(&self) -> Trusted<'_> {
        let before = self.guard.trusted.swap(true, Relaxed);
        Trusted {
            engine: self,
            before,
        }
    }

    fn begin_call(&self) {
        self.guard.ticks.store(0, Relaxed);
        *lock(&self.guard.refusal) = None;
    }

    /// Runs the statements of `sql` in order as one transaction and returns the result of the
    /// statement, or of each statement when there are several.
    pub(crate) fn run(&self, sql: &str, access: Access) -> Result<Value, ToolError> {
        self.begin_call();
        self.trusted()
            .execute_batch("SAVEPOINT mcpbench_call")
            .map_err(|e| self.error(e))?;
        let outcome = self.run_batch(sql, access);
        let end = if outcome.is_ok() {
            "RELEASE mcpbench_call"
        } else {
            "ROLLBACK TO mcpbench_call; RELEASE mcpbench_call"
        };
        self.trusted()
            .execute_batch(end)
            .map_err(|e| self.error(e))?;
        outcome
    }

    fn run_batch(&self, sql: &str, access: Access) -> Result<Value, ToolError> {
        let mut batch = Batch::new(&self.conn, sql);
        let mut results = Vec::new();
        while let Some(mut stmt) = batch.next().map_err(|e| self.error(e))? {
            let n = results.len() + 1;
            if stmt.parameter_count() > 0 {
                return Err(ToolError::invalid(format!(
                    "statement {n} has parameter placeholders ($1, ?, :name); write the values into the SQL as literals"
                )));
            }
            if access == Access::ReadOnly && !stmt.readonly() {
                return Err(ToolError::denied(format!(
                    "statement {n} would modify the database, and this tool runs in a read-only transaction; nothing was changed"
                )));
            }
            results.push(self.step(&mut stmt)?);
        }
        match results.len() {
            0 => Err(ToolError::invalid(
                "no SQL statement given (only white space or comments)",
            )),
            1 => Ok(results.pop().expect("one result")),
            n => Ok(json!({ "statements": n, "results": results })),
        }
    }

    fn step(&self, stmt: &mut Statement<'_>) -> Result<Value, ToolError> {
        let before = self.conn.total_changes();
        let columns: Vec<String> = stmt.column_names().into_iter().map(String::from).collect();
        let readonly = stmt.readonly();
        let mut rows = stmt.raw_query();
        let mut out: Vec<Vec<Value>> = Vec::new();
        let (mut shown, mut cut) = (0, None);
        while let Some(row) = rows.next().map_err(|e| self.error(e))? {
            if cut.is_none() {
                let size: usize = (0..columns.len())
                    .map(|i| row.get_ref(i).map_or(0, shown_len))
                    .sum();
                if out.len() == ROW_CAP {
                    cut = Some(Cut::Rows);
                } else if shown + size > RESULT_BYTES {
                    cut = Some(Cut::Bytes);
                } else {
                    shown += size;
                    out.push(
                        (0..columns.len())
                            .map(|i| row.get_ref(i).map_or(Value::Null, json_of))
                            .collect(),
                    );
                    continue;
                }
            }
            // A write runs to its end; only the rows it shows stop.
            if readonly {
                break;
            }
        }
        drop(rows);
        let affected = if self.conn.total_changes() == before {
            0
        } else {
            self.conn.changes()
        };
        if columns.is_empty() {
            return Ok(json!({ "status": "ok", "rows_affected": affected }));
        }
        let mut result = json!({ "columns": columns, "row_count": out.len(), "rows": out });
        if !readonly {
            result["rows_affected"] = json!(affected);
        }
        if let Some(cut) = cut {
            result["truncated"] = json!(true);
            result["note"] = json!(match cut {
                Cut::Rows => format!(
                    "only the first {ROW_CAP} rows are shown; narrow the query with WHERE, LIMIT/OFFSET or an aggregate"
                ),
                Cut::Bytes => format!(
                    "the result is cut after {} rows: a result shows at most {} MiB of values; select fewer or shorter columns, or narrow the query",
                    out.len(),
                    RESULT_BYTES >> 20
                ),
            });
        }
        Ok(result)
    }

    /// The engine's plan for one statement; with `analyze`, also runs it (reads only) and
    /// counts the rows it returns.
    pub(crate) fn explain(&self, sql: &str, analyze: bool) -> Result<Value, ToolError> {
        self.begin_call();
        let readonly = {
            let mut batch = Batch::new(&self.conn, sql);
            let first = batch.next().map_err(|e| self.error(e))?;
            let Some(first) = first else {
                return Err(ToolError::invalid(
                    "no SQL statement given (only white space or comments)",
                ));
            };
            if first.parameter_count() > 0 {
                return Err(ToolError::invalid(
                    "the statement has parameter placeholders ($1, ?, :name); write the values into the SQL as literals",
                ));
            }
            if batch.next().map_err(|e| self.error(e))?.is_some() {
                return Err(ToolError::invalid("explain one statement at a time"));
            }
            first.readonly()
        };
        if analyze && !readonly {
            return Err(ToolError::denied(
                "analyze runs the statement, and only read-only statements may be analyzed here; explain it without analyze",
            ));
        }
        let mut stmt = self
            .conn
            .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .map_err(|e| self.error(e))?;
        let steps: Vec<(i64, i64, String)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(3)?)))
            .and_then(Iterator::collect)
            .map_err(|e| self.error(e))?;
        drop(stmt);
        let mut lines = vec!["QUERY PLAN".to_string()];
        render_plan(&steps, 0, "", &mut lines);
        let mut out = json!({ "plan": lines.join("\n") });
        if analyze {
            let mut stmt = self.conn.prepare(sql).map_err(|e| self.error(e))?;
            let mut rows = stmt.raw_query();
            let mut n = 0u64;
            while rows.next().map_err(|e| self.error(e))?.is_some() {
                n += 1;
            }
            out["actual_rows"] = json!(n);
        }
        Ok(out)
    }

    /// The error an agent reads for an engine error.
    pub(crate) fn error(&self, e: Error) -> ToolError {
        // A refusal of the authorizer fails the statement being compiled; some surface as
        // SQLITE_AUTH, others (functions) as a plain error, so the recorded reason decides.
        if let Some(reason) = lock(&self.guard.refusal).take() {
            return ToolError::denied(reason);
        }
        let (code, text) = match &e {
            Error::SqliteFailure(f, m) => (f.code, m.clone().unwrap_or_else(|| f.to_string())),
            Error::SqlInputError { error, msg, .. } => (error.code, msg.clone()),
            Error::MultipleStatement => {
                return ToolError::invalid("give one SQL statement per call here");
            }
            other => return ToolError::invalid(other.to_string()),
        };
        match code {
            ErrorCode::ConstraintViolation => {
                ToolError::conflict(format!("{text}; nothing was changed"))
            }
            ErrorCode::AuthorizationForStatementDenied => ToolError::denied(text),
            ErrorCode::OperationInterrupted => ToolError::invalid(
                "the statement was cancelled: it went past the work limit of about five million engine steps; nothing was changed. Narrow it down",
            ),
            ErrorCode::ReadOnly => ToolError::denied(text),
            ErrorCode::DiskFull => ToolError::precondition(format!(
                "the database is full: a run's database holds at most {} MiB in all; nothing \
                 was changed",
                MAX_DB_BYTES >> 20
            )),
            ErrorCode::OutOfMemory => ToolError::invalid(
                "the statement needed more memory than the database engine may use; nothing was \
                 changed. Narrow it down",
            ),
            _ => classify(text),
        }
    }
}

/// SQLite reports a missing object and a syntax error under the same code, so the engine's
/// message (not the SQL) tells them apart.
fn classify(text: String) -> ToolError {
    const MISSING: &[&str] = &[
        "no such table",
        "no such column",
        "has no column named",
        "no such index",
        "no such view",
        "no such trigger",
    ];
    if text.starts_with("no such table: public.") {
        ToolError::not_found(format!(
            "{text}; public is the default schema: write table names without it"
        ))
    } else if MISSING.iter().any(|m| text.contains(m)) {
        ToolError::not_found(text)
    } else if text.contains("already exists") {
        ToolError::conflict(text)
    } else {
        ToolError::invalid(text)
    }
}

fn render_plan(steps: &[(i64, i64, String)], parent: i64, indent: &str, lines: &mut Vec<String>) {
    let children: Vec<&(i64, i64, String)> = steps.iter().filter(|s| s.1 == parent).collect();
    for (i, (id, _, detail)) in children.iter().enumerate() {
        let last = i + 1 == children.len();
        lines.push(format!(
            "{indent}{}{detail}",
            if last { "`--" } else { "|--" }
        ));
        if *id != parent {
            render_plan(
                steps,
                *id,
                &format!("{indent}{}", if last { "   " } else { "|  " }),
                lines,
            );
        }
    }
}

/// A value as JSON: numbers stay numbers, blobs become `\x`-prefixed hex as Postgres prints bytea.
/// The bytes [`json_of`] takes to show `v`, without building it.
fn shown_len(v: ValueRef<'_>) -> usize {
    match v {
        ValueRef::Text(t) => t.len(),
        ValueRef::Blob(b) => 2 + 2 * b.len(),
        ValueRef::Null | ValueRef::Integer(_) | ValueRef::Real(_) => 24,
    }
}

pub(crate) fn json_of(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::from(i),
        ValueRef::Real(f) => serde_json::Number::from_f64(f).map_or_else(
            || {
                Value::from(if f > 0.0 {
                    "Infinity"
                } else if f < 0.0 {
                    "-Infinity"
                } else {
                    "NaN"
                })
            },
            Value::Number,
        ),
        ValueRef::Text(t) => Value::from(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => Value::from(format!(
            "\\x{}",
            b.iter().map(|x| format!("{x:02x}")).collect::<String>()
        )),
    }
}

/// A JSON scalar as an SQL value (booleans as 1 and 0); `None` for lists and objects.
pub(crate) fn sql_of(v: &Value) -> Option<Sql> {
    Some(match v {
        Value::Null => Sql::Null,
        Value::Bool(b) => Sql::Integer(i64::from(*b)),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Sql::Integer(i),
            None => Sql::Real(n.as_f64()?),
        },
        Value::String(s) => Sql::Text(s.clone()),
        Value::Array(_) | Value::Object(_) => return None,
    })
}

/// `"name"`, safe for any text.
pub(crate) fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}
