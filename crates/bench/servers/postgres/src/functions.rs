//! The engine's clock and random numbers: SQLite's date, time and random functions replaced by
//! ones that read the seed's fixed time and a seeded generator, so that the same calls give
//! the same answers on every machine and every replay.

use rusqlite::functions::FunctionFlags;
use rusqlite::types::{Value as Sql, ValueRef};
use rusqlite::{Connection, Error, params_from_iter};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Date and time functions read `now` wherever SQLite would read the wall clock. Each override
/// rewrites a `'now'` argument (or adds the implicit one) and asks the built-in function of a
/// private, unfenced connection for the answer, so every other behaviour stays SQLite's own.
pub(crate) fn install_clock(conn: &Connection, now: &str) -> rusqlite::Result<()> {
    let aux = Arc::new(Mutex::new(Connection::open_in_memory()?));
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    for name in [
        "date",
        "time",
        "datetime",
        "julianday",
        "unixepoch",
        "strftime",
        "timediff",
    ] {
        let (aux, now) = (Arc::clone(&aux), now.to_string());
        conn.create_scalar_function(name, -1, flags, move |ctx| {
            let mut args: Vec<Sql> = (0..ctx.len())
                .map(|i| ctx.get::<Sql>(i))
                .collect::<rusqlite::Result<_>>()?;
            for a in &mut args {
                if matches!(a, Sql::Text(t) if t.eq_ignore_ascii_case("now")) {
                    *a = Sql::Text(now.clone());
                }
            }
            let implicit_at = usize::from(name == "strftime");
            if name != "timediff" && args.len() == implicit_at {
                args.push(Sql::Text(now.clone()));
            }
            builtin(&lock(&aux), name, &args)
        })?;
    }
    for (name, base) in [
        ("current_date", "date"),
        ("current_time", "time"),
        ("current_timestamp", "datetime"),
        ("now", "datetime"),
    ] {
        let (aux, now) = (Arc::clone(&aux), now.to_string());
        conn.create_scalar_function(name, 0, flags, move |_| {
            builtin(&lock(&aux), base, &[Sql::Text(now.clone())])
        })?;
    }
    Ok(())
}

fn builtin(aux: &Connection, name: &str, args: &[Sql]) -> rusqlite::Result<Sql> {
    let marks: Vec<String> = (1..=args.len()).map(|i| format!("?{i}")).collect();
    aux.query_row(
        &format!("SELECT {name}({})", marks.join(", ")),
        params_from_iter(args),
        |r| r.get(0),
    )
}

/// Where `random()` starts in a fresh database.
pub(crate) const RANDOM_START: u64 = 0x6D63_7062_656E_6368;

/// `random()` and `randomblob(n)` from SplitMix64 on `state` (from [`RANDOM_START`] in a fresh
/// database): the same calls give the same numbers on every replay.
pub(crate) fn install_random(conn: &Connection, state: Arc<AtomicU64>) -> rusqlite::Result<()> {
    let next = move |s: &AtomicU64| {
        let mut z = s
            .fetch_add(0x9E37_79B9_7F4A_7C15, Relaxed)
            .wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let s = Arc::clone(&state);
    conn.create_scalar_function("random", 0, FunctionFlags::SQLITE_UTF8, move |_| {
        Ok(next(&s) as i64)
    })?;
    conn.create_scalar_function("randomblob", 1, FunctionFlags::SQLITE_UTF8, move |ctx| {
        let n = match ctx.get_raw(0) {
            ValueRef::Integer(i) => i,
            ValueRef::Real(f) => f as i64,
            _ => 1,
        };
        if n > 1_000_000 {
            return Err(Error::UserFunctionError(
                "randomblob: at most 1000000 bytes".into(),
            ));
        }
        let bytes: Vec<u8> = (0..n.max(1)).map(|_| next(&state) as u8).collect();
        Ok(bytes)
    })?;
    Ok(())
}
