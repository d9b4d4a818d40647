//! Query and path values the API and the website both take: names, set names, and the task
//! filters with their choices, checked the same way everywhere and documented in the OpenAPI
//! parameters from the same lists.

use crate::error::ApiError;
use mcpbench_db::sets;
use mcpbench_tasks::{Category, Difficulty, SERVERS};

/// Names in queries: short, and of the characters ids are made of.
pub(crate) fn name(field: &str, value: &str) -> Result<String, ApiError> {
    let ok = !value.is_empty()
        && value.len() <= 80
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !ok {
        return Err(ApiError::bad_request(format!(
            "{field} must be 1 to 80 letters, digits, '-' or '_'"
        )));
    }
    Ok(value.to_owned())
}

/// A set named by its id, or by its tag once revealed: `Historical-2026-11` is set `2026-11`
/// (a committed set is named by its month, and its tag follows from it).
pub(crate) fn set_name(field: &str, value: &str) -> Result<String, ApiError> {
    let value = name(field, value)?;
    Ok(match value.strip_prefix("Historical-") {
        Some(month) if mcpbench_attest::bundle::is_month(month) => month.to_string(),
        _ => value,
    })
}

/// The name that stands for the deployment's current public set, whatever its id (`dev-v2`,
/// ...): what the README's examples and scripts written against any deployment say.
pub(crate) const CURRENT_PUBLIC_SET: &str = "dev";

/// The set a request names, as [`set_name`] reads it: absent (or blank, as a form sends it),
/// or [`CURRENT_PUBLIC_SET`], is `default`, the deployment's current public set.
pub(crate) fn requested_set(
    field: &str,
    value: Option<&str>,
    default: &str,
) -> Result<String, ApiError> {
    match value.filter(|v| !v.is_empty()) {
        None => Ok(default.to_string()),
        Some(v) => {
            let id = set_name(field, v)?;
            Ok(if id == CURRENT_PUBLIC_SET {
                default.to_string()
            } else {
                id
            })
        }
    }
}

/// A listing's filter value: blank is none; anything else must be one of `all` (a clear 400
/// naming them otherwise).
pub(crate) fn one_of(
    field: &str,
    value: Option<String>,
    all: &[&str],
) -> Result<Option<String>, ApiError> {
    match value.filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(v) if all.contains(&v.as_str()) => Ok(Some(v)),
        Some(_) => Err(ApiError::bad_request(format!(
            "{field} must be one of {}",
            all.join(", ")
        ))),
    }
}

/// A string schema whose values are `values`: the query filters' choices, from the task crate.
/// The empty value means "any", as the website's forms send it.
fn choices(values: Vec<&'static str>) -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .enum_values(Some(std::iter::once("").chain(values)))
        .build()
}

pub(crate) fn server_schema() -> utoipa::openapi::Object {
    choices(SERVERS.to_vec())
}

pub(crate) fn category_schema() -> utoipa::openapi::Object {
    choices(Category::ALL.iter().map(|c| c.as_str()).collect())
}

pub(crate) fn difficulty_schema() -> utoipa::openapi::Object {
    choices(Difficulty::ALL.iter().map(|d| d.as_str()).collect())
}

/// The filters of a task listing, each checked against the servers, categories and
/// difficulties that exist.
#[derive(Default)]
pub(crate) struct TaskFilters {
    pub server: Option<String>,
    pub category: Option<String>,
    pub difficulty: Option<String>,
}

impl TaskFilters {
    pub(crate) fn parse(
        server: Option<String>,
        category: Option<String>,
        difficulty: Option<String>,
    ) -> Result<Self, ApiError> {
        let categories: Vec<&str> = Category::ALL.iter().map(|c| c.as_str()).collect();
        let difficulties: Vec<&str> = Difficulty::ALL.iter().map(|d| d.as_str()).collect();
        Ok(Self {
            server: one_of("server", server, SERVERS)?,
            category: one_of("category", category, &categories)?,
            difficulty: one_of("difficulty", difficulty, &difficulties)?,
        })
    }

    pub(crate) fn as_db(&self) -> sets::TaskFilter<'_> {
        sets::TaskFilter {
            server: self.server.as_deref(),
            category: self.category.as_deref(),
            difficulty: self.difficulty.as_deref(),
        }
    }
}
