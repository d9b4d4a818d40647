//! What a submission says of its model and agent (docs/data.md): the organisation behind the
//! model, its version, open or closed weights, the agent framework, and whether the scaffold
//! is the harness's standard agent or the vendor's own. Optional, checked, shown on the board
//! as columns and filters; a value not given is "not stated", never guessed.

use crate::CoreError;
use mcpbench_db::submissions;
use serde::{Deserialize, Serialize};

/// Whether the model's weights can be downloaded.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Weights {
    Open,
    Closed,
}

/// Whose scaffold drives the model.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Scaffold {
    /// The harness's standard agent (`mcpbench agent`, or the Python template unchanged).
    Standard,
    /// The vendor's own agent.
    Own,
}

/// Which board track an entry is on: `standard`, a model driven by our own `llm` agent (rows
/// differ only by model), or `open`, any agent a vendor built. Decided by what was submitted,
/// not stated.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Track {
    Standard,
    Open,
}

impl Track {
    pub fn as_str(self) -> &'static str {
        match self {
            Track::Standard => "standard",
            Track::Open => "open",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Track::Standard, Track::Open]
            .into_iter()
            .find(|t| t.as_str() == s)
    }

    /// The track of a submission of `kind`.
    pub fn of(kind: mcpbench_db::AgentKind) -> Self {
        match kind {
            mcpbench_db::AgentKind::Model => Track::Standard,
            mcpbench_db::AgentKind::Endpoint
            | mcpbench_db::AgentKind::Docker
            | mcpbench_db::AgentKind::Baseline => Track::Open,
        }
    }
}

impl Weights {
    pub fn as_str(self) -> &'static str {
        match self {
            Weights::Open => "open",
            Weights::Closed => "closed",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Weights::Open, Weights::Closed]
            .into_iter()
            .find(|w| w.as_str() == s)
    }
}

impl Scaffold {
    pub fn as_str(self) -> &'static str {
        match self {
            Scaffold::Standard => "standard",
            Scaffold::Own => "own",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Scaffold::Standard, Scaffold::Own]
            .into_iter()
            .find(|w| w.as_str() == s)
    }
}

/// What a submission says of itself: in `POST /submissions` and wherever it is shown. Every
/// field is optional; `null` is not stated.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct About {
    /// The organisation that made the model (`Acme AI`).
    #[cfg_attr(
        feature = "openapi",
        schema(pattern = r"^[A-Za-z0-9][A-Za-z0-9 ._+/()-]{0,79}$")
    )]
    pub organisation: Option<String>,
    /// The model's exact version or snapshot (`2025-06-01`).
    #[cfg_attr(
        feature = "openapi",
        schema(pattern = r"^[A-Za-z0-9][A-Za-z0-9 ._+/()-]{0,79}$")
    )]
    pub model_version: Option<String>,
    pub weights: Option<Weights>,
    /// The agent framework (`LangGraph 0.2`, `openai-agents`, `none`).
    #[cfg_attr(
        feature = "openapi",
        schema(pattern = r"^[A-Za-z0-9][A-Za-z0-9 ._+/()-]{0,79}$")
    )]
    pub framework: Option<String>,
    pub scaffold: Option<Scaffold>,
}

/// Whether `value` is a label: a letter or digit, then letters, digits, spaces and `._+/()-`
/// (`Mistral AI`, `2025-06-01`, `LangGraph 0.2`), at most 80; the schemas' pattern
/// `^[A-Za-z0-9][A-Za-z0-9 ._+/()-]{0,79}$` written out by hand. A label never starts with
/// `=`, `+`, `-` or `@`, so no spreadsheet reads an exported one as a formula.
pub fn is_label(value: &str) -> bool {
    let mut bytes = value.bytes();
    let first_ok = bytes.next().is_some_and(|b| b.is_ascii_alphanumeric());
    first_ok
        && value.len() <= 80
        && bytes.all(|b| b.is_ascii_alphanumeric() || b" ._+/()-".contains(&b))
}

fn label(field: &str, value: Option<&str>) -> Result<Option<String>, CoreError> {
    match value {
        None => Ok(None),
        Some(v) if is_label(v) => Ok(Some(v.to_string())),
        Some(_) => Err(CoreError::Invalid(format!(
            "about.{field} must be 1 to 80 characters: a letter or digit, then letters, \
             digits, spaces or ._+/()-"
        ))),
    }
}

impl About {
    /// Checked, as the database keeps it.
    pub fn checked(&self) -> Result<submissions::About, CoreError> {
        Ok(submissions::About {
            organisation: label("organisation", self.organisation.as_deref())?,
            model_version: label("model_version", self.model_version.as_deref())?,
            weights: self.weights.map(|w| w.as_str().to_string()),
            framework: label("framework", self.framework.as_deref())?,
            scaffold: self.scaffold.map(|s| s.as_str().to_string()),
        })
    }

    /// As stored; a value the table's checks let through but this version does not know is
    /// shown as not stated.
    pub fn stored(a: &submissions::About) -> Self {
        About {
            organisation: a.organisation.clone(),
            model_version: a.model_version.clone(),
            weights: a.weights.as_deref().and_then(Weights::parse),
            framework: a.framework.clone(),
            scaffold: a.scaffold.as_deref().and_then(Scaffold::parse),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_the_patterns_words() {
        for ok in [
            "Acme AI",
            "2025-06-01",
            "LangGraph 0.2",
            "a",
            "Qwen (Alibaba)",
            "x/y+z_1.",
        ] {
            assert!(is_label(ok), "{ok:?}");
        }
        let long = "a".repeat(81);
        for bad in [
            "",
            " lead",
            "-x",
            "tab\there",
            "é",
            "semi;colon",
            "=cmd()",
            long.as_str(),
        ] {
            assert!(!is_label(bad), "{bad:?}");
        }
        assert!(is_label(&"a".repeat(80)));
    }

    #[test]
    fn a_bad_label_is_named_and_enums_round_trip() {
        let about = About {
            framework: Some("=HYPERLINK(x)".into()),
            ..Default::default()
        };
        let err = about.checked().unwrap_err();
        assert!(err.to_string().contains("about.framework"), "{err}");
        let about = About {
            organisation: Some("Acme".into()),
            weights: Some(Weights::Closed),
            scaffold: Some(Scaffold::Own),
            ..Default::default()
        };
        let stored = about.checked().unwrap();
        assert_eq!(stored.weights.as_deref(), Some("closed"));
        assert_eq!(About::stored(&stored), about);
    }
}
