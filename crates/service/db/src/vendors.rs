//! Vendors and their API keys. A key is shown once, when made; only its SHA-256 is stored,
//! found by its public prefix and compared in full.

use crate::DbError;
use sha2::{Digest, Sha256};
use sqlx::PgPool;
use time::OffsetDateTime;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vendor {
    pub id: i64,
    pub name: String,
    pub is_admin: bool,
    pub is_reference: bool,
}

/// A new key: `mcpb_<prefix>_<secret>`, 16 + 64 hex characters of randomness.
fn new_key_text() -> (String, String) {
    let mut bytes = [0u8; 40];
    getrandom::fill(&mut bytes).expect("the operating system's random source works");
    let prefix = hex::encode(&bytes[..8]);
    (
        prefix.clone(),
        format!("mcpb_{prefix}_{}", hex::encode(&bytes[8..])),
    )
}

fn digest(key: &str) -> Vec<u8> {
    Sha256::digest(key.as_bytes()).to_vec()
}

/// Creates a vendor and its first key; returns the key, which is not stored anywhere.
pub async fn create(
    pool: &PgPool,
    name: &str,
    is_admin: bool,
    is_reference: bool,
) -> Result<(Vendor, String), DbError> {
    let mut tx = pool.begin().await?;
    let row = sqlx::query!(
        "INSERT INTO vendors (name, is_admin, is_reference) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO NOTHING RETURNING id",
        name,
        is_admin,
        is_reference
    )
    .fetch_optional(&mut *tx)
    .await?
    .ok_or_else(|| DbError::Conflict(format!("a vendor named {name:?} exists already")))?;
    let (prefix, key) = new_key_text();
    sqlx::query!(
        "INSERT INTO api_keys (vendor_id, prefix, hash) VALUES ($1, $2, $3)",
        row.id,
        prefix,
        digest(&key)
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok((
        Vendor {
            id: row.id,
            name: name.into(),
            is_admin,
            is_reference,
        },
        key,
    ))
}

/// A new key for an existing vendor (its other keys stay live); the key is not stored.
pub async fn new_key(pool: &PgPool, vendor: &str) -> Result<String, DbError> {
    let (prefix, key) = new_key_text();
    let done = sqlx::query!(
        "INSERT INTO api_keys (vendor_id, prefix, hash)
         SELECT id, $2, $3 FROM vendors WHERE name = $1",
        vendor,
        prefix,
        digest(&key)
    )
    .execute(pool)
    .await?;
    if done.rows_affected() == 0 {
        return Err(DbError::NotFound);
    }
    Ok(key)
}

/// The public prefix of a well-formed key (`mcpb_<prefix>_<secret>`).
pub fn key_prefix(key: &str) -> Option<&str> {
    key.strip_prefix("mcpb_")
        .and_then(|k| k.split_once('_'))
        .map(|(p, _)| p)
}

/// The vendor a key belongs to, if the key is well formed, known, matching and not revoked.
pub async fn by_key(pool: &PgPool, key: &str) -> Result<Option<Vendor>, DbError> {
    let Some(prefix) = key_prefix(key) else {
        return Ok(None);
    };
    let row = sqlx::query!(
        "SELECT v.id, v.name, v.is_admin, v.is_reference, k.hash
         FROM api_keys k JOIN vendors v ON v.id = k.vendor_id
         WHERE k.prefix = $1 AND (k.revoked_at IS NULL OR k.revoked_at > now())",
        prefix
    )
    .fetch_optional(pool)
    .await?;
    // Both hashes are 32 bytes; comparing digests leaks nothing useful about the key.
    Ok(row.filter(|r| r.hash == digest(key)).map(|r| Vendor {
        id: r.id,
        name: r.name,
        is_admin: r.is_admin,
        is_reference: r.is_reference,
    }))
}

/// The vendor of the live key with public prefix `prefix` (a token's `kid`); `None` once the
/// key is revoked (or its grace after a rotation is over).
pub async fn by_key_prefix(pool: &PgPool, prefix: &str) -> Result<Option<Vendor>, DbError> {
    let row = sqlx::query_as!(
        Vendor,
        "SELECT v.id, v.name, v.is_admin, v.is_reference
         FROM api_keys k JOIN vendors v ON v.id = k.vendor_id
         WHERE k.prefix = $1 AND (k.revoked_at IS NULL OR k.revoked_at > now())",
        prefix
    )
    .fetch_optional(pool)
    .await?;
    Ok(row)
}

/// The id of the vendor named `name`.
pub async fn id_by_name(pool: &PgPool, name: &str) -> Result<Option<i64>, DbError> {
    let id = sqlx::query_scalar!("SELECT id FROM vendors WHERE name = $1", name)
        .fetch_optional(pool)
        .await?;
    Ok(id)
}

/// Revokes every key of a vendor at once, those in their grace after a rotation too; returns
/// how many were live.
pub async fn revoke_keys(pool: &PgPool, vendor: &str) -> Result<u64, DbError> {
    let done = sqlx::query!(
        "UPDATE api_keys SET revoked_at = now()
         WHERE (revoked_at IS NULL OR revoked_at > now())
           AND vendor_id = (SELECT id FROM vendors WHERE name = $1)",
        vendor
    )
    .execute(pool)
    .await?;
    Ok(done.rows_affected())
}

/// A vendor's keys rotated: a new key (returned, not stored), and every other live key of the
/// vendor ends `grace_secs` from now (one already ending sooner keeps its end). When the old
/// keys end, with how many there were.
pub async fn rotate_key(
    pool: &PgPool,
    vendor_id: i64,
    grace_secs: i64,
) -> Result<(String, OffsetDateTime, u64), DbError> {
    let (prefix, key) = new_key_text();
    let mut tx = pool.begin().await?;
    let ends = sqlx::query_scalar!(
        r#"SELECT now() + make_interval(secs => $1::bigint::double precision) AS "ends!""#,
        grace_secs
    )
    .fetch_one(&mut *tx)
    .await?;
    let ended = sqlx::query!(
        "UPDATE api_keys SET revoked_at = LEAST(COALESCE(revoked_at, $2), $2)
         WHERE vendor_id = $1 AND (revoked_at IS NULL OR revoked_at > now())",
        vendor_id,
        ends
    )
    .execute(&mut *tx)
    .await?
    .rows_affected();
    sqlx::query!(
        "INSERT INTO api_keys (vendor_id, prefix, hash) VALUES ($1, $2, $3)",
        vendor_id,
        prefix,
        digest(&key)
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok((key, ends, ended))
}
