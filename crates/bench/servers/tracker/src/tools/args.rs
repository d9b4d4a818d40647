//! Argument types of the tracker's tools: their JSON Schemas are what agents read and what
//! validates every call.

use crate::state::{LinkType, Status};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

mcpbench_sim::string_arg!(
    /// An issue's key, as every tool that names an issue takes it.
    pub(crate) IssueId, 3, 20, "Issue identifier, like ENG-12."
);

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NoArgs {}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListUsers {
    /// Only users whose username, name or email contains this text (case-insensitive).
    #[schemars(length(min = 1, max = 100))]
    pub(crate) query: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct IdArg {
    pub(crate) id: IssueId,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Search {
    /// Text to find in titles and descriptions (case-insensitive).
    #[schemars(length(min = 1, max = 200))]
    pub(crate) query: Option<String>,
    /// Project key, like ENG.
    #[schemars(length(min = 2, max = 10))]
    pub(crate) project: Option<String>,
    pub(crate) status: Option<Status>,
    /// Username or email of the assignee.
    #[schemars(length(min = 1, max = 100))]
    pub(crate) assignee: Option<String>,
    /// Only issues carrying this label.
    #[schemars(length(min = 1, max = 50))]
    pub(crate) label: Option<String>,
    /// 0 none, 1 urgent, 2 high, 3 medium, 4 low.
    #[schemars(range(max = 4))]
    pub(crate) priority: Option<u8>,
    /// Most issues to return (default 50).
    #[schemars(range(min = 1, max = 100))]
    pub(crate) limit: Option<u32>,
    /// The pageInfo.endCursor of the previous page, for the page after it.
    #[schemars(length(min = 1, max = 64))]
    pub(crate) after: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Create {
    /// Key of the project to file the issue in, like ENG.
    #[schemars(length(min = 2, max = 10))]
    pub(crate) project: String,
    #[schemars(length(min = 1, max = 200))]
    pub(crate) title: String,
    /// Markdown body.
    #[schemars(length(max = 10000))]
    pub(crate) description: Option<String>,
    /// 0 none (default), 1 urgent, 2 high, 3 medium, 4 low.
    #[schemars(range(max = 4))]
    pub(crate) priority: Option<u8>,
    /// Username or email of the person to assign.
    #[schemars(length(min = 1, max = 100))]
    pub(crate) assignee: Option<String>,
    /// Names of existing labels.
    #[schemars(length(max = 10), inner(length(max = 100)))]
    pub(crate) labels: Option<Vec<String>>,
    /// Story points.
    #[schemars(range(max = 100))]
    pub(crate) estimate: Option<u32>,
    /// Identifier of the parent issue, to create a sub-issue.
    pub(crate) parent: Option<IssueId>,
    /// Initial status (default backlog). Any status may be chosen at creation.
    pub(crate) status: Option<Status>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Update {
    pub(crate) id: IssueId,
    #[schemars(length(min = 1, max = 200))]
    pub(crate) title: Option<String>,
    #[schemars(length(max = 10000))]
    pub(crate) description: Option<String>,
    /// 0 none, 1 urgent, 2 high, 3 medium, 4 low.
    #[schemars(range(max = 4))]
    pub(crate) priority: Option<u8>,
    /// Username or email of the new assignee.
    #[schemars(length(min = 1, max = 100))]
    pub(crate) assignee: Option<String>,
    /// The complete new set of label names; labels not listed are removed.
    #[schemars(length(max = 10), inner(length(max = 100)))]
    pub(crate) labels: Option<Vec<String>>,
    /// Story points.
    #[schemars(range(max = 100))]
    pub(crate) estimate: Option<u32>,
    /// Identifier of the new parent issue.
    pub(crate) parent: Option<IssueId>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Transition {
    pub(crate) id: IssueId,
    /// The status to move to; must be allowed from the current one.
    pub(crate) status: Status,
}

/// Lists `assignee` as required while keeping it nullable (null unassigns).
fn assignee_required(schema: &mut schemars::Schema) {
    if let Some(required) = schema.get_mut("required").and_then(Value::as_array_mut) {
        required.push(json!("assignee"));
    } else {
        schema.insert("required".into(), json!(["id", "assignee"]));
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = assignee_required)]
pub(crate) struct Assign {
    pub(crate) id: IssueId,
    /// Username or email of the person to assign; null to unassign.
    #[schemars(length(min = 1, max = 100))]
    pub(crate) assignee: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AddComment {
    pub(crate) id: IssueId,
    /// Markdown text of the comment.
    #[schemars(length(min = 1, max = 10000))]
    pub(crate) body: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListComments {
    pub(crate) id: IssueId,
    /// Most comments to return, oldest first (default 50).
    #[schemars(range(min = 1, max = 100))]
    pub(crate) limit: Option<u32>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LinkArgs {
    pub(crate) id: IssueId,
    /// The other issue.
    pub(crate) target: IssueId,
    /// How `id` relates to `target`: `ENG-3 blocks ENG-7`.
    #[serde(rename = "type")]
    pub(crate) link_type: LinkType,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CreateLabel {
    #[schemars(length(min = 1, max = 50))]
    pub(crate) name: String,
    #[schemars(length(max = 500))]
    pub(crate) description: Option<String>,
}
