//! Private packs (docs/packs.md): their files stored sealed, each with the hash of its bytes in
//! clear; a retired family's file, and a wholly retired pack's other files, written in clear.
//! This module never sees a key: the caller seals and opens (`mcpbench-vault`).

use crate::DbError;
use sqlx::PgPool;
use time::OffsetDateTime;

/// A file of a pack being added, sealed.
#[derive(Clone, Debug)]
pub struct NewPackFile {
    pub position: i32,
    /// A family file (else `pack.json` or `lib.jq`).
    pub family: bool,
    pub sha256: String,
    pub key_id: String,
    pub sealed: Vec<u8>,
}

/// A stored pack, as listed.
#[derive(Clone, Debug, PartialEq)]
pub struct PackRow {
    pub name: String,
    pub sha256: String,
    pub families: i32,
    /// Families retired (their files revealed).
    pub retired: i64,
    pub added_at: OffsetDateTime,
}

/// A stored file of a pack.
#[derive(Clone, Debug)]
pub struct StoredPackFile {
    pub position: i32,
    pub family: bool,
    pub sha256: String,
    pub key_id: String,
    pub sealed: Vec<u8>,
    pub retired_at: Option<OffsetDateTime>,
}

/// A file in clear, as listed: a retired family's, or a wholly retired pack's other files.
#[derive(Clone, Debug, PartialEq)]
pub struct RevealedFile {
    pub pack: String,
    pub name: String,
    pub family: bool,
    pub sha256: String,
    pub retired_at: Option<OffsetDateTime>,
}

/// Stores a new pack; a pack of the same name is a conflict (a pack is added once; a new
/// version is a new name).
pub async fn add(
    pool: &PgPool,
    name: &str,
    sha256: &str,
    files: &[NewPackFile],
) -> Result<(), DbError> {
    let families = files.iter().filter(|f| f.family).count() as i32;
    let mut tx = pool.begin().await?;
    let inserted = sqlx::query!(
        "INSERT INTO packs (name, sha256, families) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
        name,
        sha256,
        families
    )
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if inserted == 0 {
        return Err(DbError::Conflict(format!(
            "a pack named {name:?} is stored already; give a new version a new name"
        )));
    }
    for f in files {
        sqlx::query!(
            "INSERT INTO pack_files (pack, position, family, sha256, key_id, sealed)
             VALUES ($1, $2, $3, $4, $5, $6)",
            name,
            f.position,
            f.family,
            f.sha256,
            f.key_id,
            f.sealed
        )
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Every stored pack, by name.
pub async fn list(pool: &PgPool) -> Result<Vec<PackRow>, DbError> {
    Ok(sqlx::query_as!(
        PackRow,
        r#"SELECT p.name, p.sha256, p.families, p.added_at,
                  (SELECT count(*) FROM pack_files f
                    WHERE f.pack = p.name AND f.retired_at IS NOT NULL) AS "retired!"
             FROM packs p ORDER BY p.name"#
    )
    .fetch_all(pool)
    .await?)
}

/// The files of pack `name`, in position order; none when no such pack is stored.
pub async fn files(pool: &PgPool, name: &str) -> Result<Vec<StoredPackFile>, DbError> {
    Ok(sqlx::query_as!(
        StoredPackFile,
        "SELECT position, family, sha256, key_id, sealed, retired_at
           FROM pack_files WHERE pack = $1 ORDER BY position",
        name
    )
    .fetch_all(pool)
    .await?)
}

/// Retires the family file at `position` of `pack`, writing it in clear (`name`, `bytes`);
/// when that was the pack's last live family, `rest` (its other files, in clear) are written
/// too. Whether the family was live until now.
pub async fn retire_family(
    pool: &PgPool,
    pack: &str,
    position: i32,
    name: &str,
    bytes: &[u8],
    rest: &[(i32, String, Vec<u8>)],
) -> Result<bool, DbError> {
    let mut tx = pool.begin().await?;
    let retired = sqlx::query!(
        "UPDATE pack_files SET retired_at = now(), revealed_name = $3, revealed = $4
          WHERE pack = $1 AND position = $2 AND family AND retired_at IS NULL",
        pack,
        position,
        name,
        bytes
    )
    .execute(&mut *tx)
    .await?
    .rows_affected()
        == 1;
    let live = sqlx::query_scalar!(
        r#"SELECT count(*) AS "live!" FROM pack_files
            WHERE pack = $1 AND family AND retired_at IS NULL"#,
        pack
    )
    .fetch_one(&mut *tx)
    .await?;
    if live == 0 {
        for (position, name, bytes) in rest {
            sqlx::query!(
                "UPDATE pack_files SET revealed_name = $3, revealed = $4
                  WHERE pack = $1 AND position = $2 AND NOT family",
                pack,
                position,
                name,
                bytes
            )
            .execute(&mut *tx)
            .await?;
        }
    }
    if retired {
        crate::public_changed(&mut *tx).await?;
    }
    tx.commit().await?;
    Ok(retired)
}

/// Every file in clear, by pack and position (without its bytes: [`revealed_bytes`]).
pub async fn revealed(pool: &PgPool) -> Result<Vec<RevealedFile>, DbError> {
    Ok(sqlx::query_as!(
        RevealedFile,
        r#"SELECT pack, revealed_name AS "name!", family, sha256, retired_at
             FROM pack_files WHERE revealed IS NOT NULL ORDER BY pack, position"#
    )
    .fetch_all(pool)
    .await?)
}

/// The bytes of the file `name` of `pack`, when it is in clear.
pub async fn revealed_bytes(
    pool: &PgPool,
    pack: &str,
    name: &str,
) -> Result<Option<Vec<u8>>, DbError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT revealed AS "revealed!" FROM pack_files
            WHERE pack = $1 AND revealed_name = $2 AND revealed IS NOT NULL"#,
        pack,
        name
    )
    .fetch_optional(pool)
    .await?)
}
