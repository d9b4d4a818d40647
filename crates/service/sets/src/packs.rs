//! Private packs a deployment keeps (docs/packs.md): families of tasks that were never in the
//! repository, so that a script written against the public generator cannot pass the months
//! drawn from them.
//!
//! - `admin pack add DIR` reads and proves the pack (every family over many draws, as
//!   `mcpbench tasks check --pack` does), then stores each file sealed under the task keyring,
//!   bound to its pack and place, its name sealed with it; only the SHA-256 of each file and of
//!   the pack are in clear, listed from that day on.
//! - A generated month draws most of its tasks from the live families ([`crate::month`]).
//! - Retiring a family writes its file in clear, to be checked against the hash listed when it
//!   was added; once every family of a pack is retired, its `pack.json` and `lib.jq` follow.
//!
//! Errors name packs, files and counts, never what a family holds (`tasks check --pack` on the
//! operator's own copy shows that).

use crate::{Custody, SetError};
use mcpbench_db::PgPool;
use mcpbench_db::packs::{self, NewPackFile, PackRow};
use mcpbench_pack::{Pack, PackFile, check_pack, template};
use mcpbench_vault::{Keyring, Sealed};
use mcpbench_world::AnyTemplate;
use sha2::{Digest, Sha256};
use std::path::Path;

/// Draws per family when a pack is added, and their seed: `mcpbench tasks check --pack`'s
/// defaults, so the operator's own run shows what the store saw.
pub const ADD_DRAWS: usize = 40;
const ADD_SEED: u64 = 1;

/// The associated data a pack's file is sealed with: its pack and place.
fn place(pack: &str, position: i32) -> String {
    format!("packs/{pack}/{position}")
}

/// A file sealed with its name: the name, a zero byte, the bytes.
fn envelope(file: &PackFile) -> Vec<u8> {
    let mut out = file.name.as_bytes().to_vec();
    out.push(0);
    out.extend_from_slice(&file.bytes);
    out
}

fn open_envelope(bytes: Vec<u8>) -> Option<PackFile> {
    let zero = bytes.iter().position(|b| *b == 0)?;
    let name = String::from_utf8(bytes[..zero].to_vec()).ok()?;
    Some(PackFile {
        name,
        bytes: bytes[zero + 1..].to_vec(),
    })
}

/// Reads the pack in `dir`, proves every family over `draws` draws, and stores it sealed.
/// Nothing is stored on error.
pub async fn add_pack(
    pool: &PgPool,
    custody: &Custody,
    dir: &Path,
    draws: usize,
) -> Result<PackRow, SetError> {
    let keyring = custody.keyring()?;
    let owned = dir.to_path_buf();
    let checked = tokio::task::spawn_blocking(move || {
        let pack = Pack::read(&owned).map_err(|e| {
            SetError::Invalid(format!(
                "the pack {} does not load ({} problems); nothing was stored (`mcpbench tasks \
                 check --pack {}` names them; they are left out here because they may quote \
                 the families)",
                owned.display(),
                e.problems.len(),
                owned.display()
            ))
        })?;
        let report = check_pack(&pack, draws, ADD_SEED);
        let failing: Vec<String> = (report.families.iter())
            .filter(|f| !f.ok())
            .map(|f| format!("{}.json", f.family))
            .collect();
        if !failing.is_empty() {
            return Err(SetError::Invalid(format!(
                "families of the pack {} fail their proof over {draws} draws ({}): {}; nothing \
                 was stored (`mcpbench tasks check --pack {} --draws {draws}` shows why)",
                owned.display(),
                failing.len(),
                failing.join(", "),
                owned.display()
            )));
        }
        Ok(pack)
    })
    .await
    .expect("proving a pack does not panic")?;
    let files: Vec<NewPackFile> = checked
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let position = i as i32;
            let sealed = keyring.seal(&place(&checked.name, position), &envelope(f));
            NewPackFile {
                position,
                family: f.name != "pack.json" && f.name != "lib.jq",
                sha256: hex::encode(Sha256::digest(&f.bytes)),
                key_id: sealed.key_id,
                sealed: sealed.bytes,
            }
        })
        .collect();
    packs::add(pool, &checked.name, &checked.sha256, &files).await?;
    packs::list(pool)
        .await?
        .into_iter()
        .find(|p| p.name == checked.name)
        .ok_or_else(|| SetError::NotFound(checked.name.clone()))
}

/// Every stored pack, by name.
pub async fn list_packs(pool: &PgPool) -> Result<Vec<PackRow>, SetError> {
    Ok(packs::list(pool).await?)
}

/// A stored pack opened: its files in position order, with whether each family is retired.
struct Opened {
    files: Vec<(i32, PackFile, bool)>,
}

async fn open_pack(pool: &PgPool, keyring: &Keyring, name: &str) -> Result<Opened, SetError> {
    let rows = packs::files(pool, name).await?;
    if rows.is_empty() {
        return Err(SetError::NotFound(format!("pack {name}")));
    }
    let mut files = Vec::with_capacity(rows.len());
    for row in rows {
        let sealed = Sealed {
            key_id: row.key_id,
            bytes: row.sealed,
        };
        let bytes = keyring.open(&place(name, row.position), &sealed)?;
        let file = open_envelope(bytes).ok_or_else(|| {
            SetError::Invalid(format!("a stored file of pack {name:?} is corrupt"))
        })?;
        files.push((row.position, file, row.retired_at.is_some()));
    }
    Ok(Opened { files })
}

/// The families of every stored pack that are not retired, as templates to draw from.
pub async fn live_families(pool: &PgPool, keyring: &Keyring) -> Result<Vec<AnyTemplate>, SetError> {
    let mut out = Vec::new();
    for row in packs::list(pool).await? {
        if row.retired >= i64::from(row.families) {
            continue;
        }
        let opened = open_pack(pool, keyring, &row.name).await?;
        let retired: Vec<String> = (opened.files.iter())
            .filter(|(_, _, retired)| *retired)
            .map(|(_, f, _)| f.name.clone())
            .collect();
        let files = opened.files.into_iter().map(|(_, f, _)| f).collect();
        let pack = Pack::from_files(files).map_err(|e| {
            SetError::Invalid(format!(
                "the stored pack {:?} no longer loads ({} problems): this build reads packs \
                 differently from the one that stored it",
                row.name,
                e.problems.len()
            ))
        })?;
        out.extend(
            (pack.families.iter())
                .filter(|f| !retired.contains(&f.file))
                .map(|f| template(f.clone())),
        );
    }
    Ok(out)
}

/// Retires `family` of `pack`: its file is written in clear, and once it was the pack's last
/// live family, the pack's other files too.
pub async fn retire_family(
    pool: &PgPool,
    custody: &Custody,
    pack: &str,
    family: &str,
) -> Result<(), SetError> {
    let opened = open_pack(pool, custody.keyring()?, pack).await?;
    let name = format!("{family}.json");
    let Some((position, file, retired)) = opened.files.iter().find(|(_, f, _)| f.name == name)
    else {
        return Err(SetError::NotFound(format!(
            "family {family} of pack {pack}"
        )));
    };
    if *retired {
        return Err(SetError::Conflict(format!(
            "family {family} of pack {pack} is retired already"
        )));
    }
    let rest: Vec<(i32, String, Vec<u8>)> = (opened.files.iter())
        .filter(|(_, f, _)| f.name == "pack.json" || f.name == "lib.jq")
        .map(|(p, f, _)| (*p, f.name.clone(), f.bytes.clone()))
        .collect();
    packs::retire_family(pool, pack, *position, &file.name, &file.bytes, &rest).await?;
    Ok(())
}
