//! The private packs as the public sees them (docs/packs.md): each pack's name and the hash of
//! its files from the day it was added, and the files of the families the operator retired,
//! in clear, to check against that hash. Nothing of a live family is shown but its hash.

use crate::AppState;
use crate::answers::NotFound;
use crate::body::AppJson;
use crate::error::ApiError;
use crate::extract::Path;
use crate::routes::sets::download;
use axum::extract::State;
use axum::response::Response;
use mcpbench_db::packs;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
pub struct PackView {
    pub name: String,
    /// SHA-256 over every file of the pack (docs/packs.md), listed from the day it was added.
    pub sha256: String,
    pub families: i32,
    /// Families retired: no month draws from them, and their files are below in clear.
    pub retired: i64,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub added_at: OffsetDateTime,
    /// The files in clear: retired families, and the pack's `pack.json` and `lib.jq` once
    /// every family is retired.
    pub revealed: Vec<RevealedView>,
}

#[derive(Serialize, ToSchema)]
pub struct RevealedView {
    pub name: String,
    /// SHA-256 of the file's bytes.
    pub sha256: String,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub retired_at: Option<OffsetDateTime>,
    /// Where the file downloads.
    pub url: String,
}

/// The stored packs, with the files of their retired families.
#[utoipa::path(get, path = "/packs", tag = "public", operation_id = "list_packs",
    responses((status = 200, body = Vec<PackView>)))]
pub async fn list(State(state): State<AppState>) -> Result<AppJson<Vec<PackView>>, ApiError> {
    let revealed = packs::revealed(state.pool()).await?;
    let views = packs::list(state.pool())
        .await?
        .into_iter()
        .map(|p| PackView {
            revealed: (revealed.iter())
                .filter(|f| f.pack == p.name)
                .map(|f| RevealedView {
                    url: format!("/packs/{}/files/{}", p.name, f.name),
                    name: f.name.clone(),
                    sha256: f.sha256.clone(),
                    retired_at: f.retired_at,
                })
                .collect(),
            name: p.name,
            sha256: p.sha256,
            families: p.families,
            retired: p.retired,
            added_at: p.added_at,
        })
        .collect();
    Ok(AppJson(views))
}

/// A file of a pack in clear: a retired family's, or once every family is retired, the pack's
/// `pack.json` and `lib.jq`.
#[utoipa::path(get, path = "/packs/{pack}/files/{file}", tag = "public",
    params(("pack" = String, Path, pattern = r"^[a-z0-9-]{1,64}$"),
           ("file" = String, Path, pattern = r"^[a-z0-9._-]{1,80}$")),
    responses((status = 200, description = "the file", content_type = "application/octet-stream"),
        NotFound))]
pub async fn file(
    State(state): State<AppState>,
    Path((pack, file)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let hidden = || {
        ApiError::not_found(format!(
            "pack {pack:?} has no file {file:?} in clear: a family's file is published when \
             the operator retires it"
        ))
    };
    if pack.len() > 64 || file.len() > 80 {
        return Err(hidden());
    }
    let bytes = packs::revealed_bytes(state.pool(), &pack, &file)
        .await?
        .ok_or_else(hidden)?;
    let content_type = if file.ends_with(".json") {
        "application/json"
    } else {
        "text/plain; charset=utf-8"
    };
    Ok(download(content_type, file.clone(), bytes))
}
