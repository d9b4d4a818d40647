//! A new submission as the API takes it in: the request (JSON, or the `submission` part of an
//! upload) checked into one value, [`Intake`], before anything is looked up. Each kind of agent
//! carries what it needs and nothing else, so what follows (`routes::submission_checks::admit`:
//! SSRF checks, the model's key sealed, the image stored, the deployment's rules) never meets
//! a field that does not belong.

use crate::error::ApiError;
use crate::model_track::ModelRequest;
use crate::params::requested_set;
use crate::routes::submissions::{Kind, NewSubmission};
use crate::routes::upload::Received;
use mcpbench_db::submissions;

/// The most runs per task a submission may ask for.
pub(crate) const MAX_TRIALS: u32 = 10;

/// A submission whose fields are each valid and belong to its kind.
pub(crate) struct Intake {
    /// The set named, or the deployment's default set (also for `dev`).
    pub set: String,
    pub name: String,
    pub model: String,
    pub trials: u32,
    /// The level of extra tools, as `mcpbench_tasks::Level` writes it.
    pub distractors: Option<String>,
    pub about: submissions::About,
    pub agent: AgentIntake,
    /// Where to POST when it ends, as given (checked against SSRF on admission).
    pub webhook_url: Option<String>,
}

/// The agent, kind by kind.
pub(crate) enum AgentIntake {
    /// `endpoint`: the URL as given (checked against SSRF on admission).
    Endpoint { url: String },
    /// `model`, the standard track: its endpoint; `about.scaffold` says "standard".
    Model { endpoint: ModelRequest },
    /// `docker`: the image, and the model it calls if it names one (without prices).
    Docker {
        image: ImageSource,
        model: Option<ModelRequest>,
    },
}

impl AgentIntake {
    pub(crate) fn kind(&self) -> Kind {
        match self {
            AgentIntake::Endpoint { .. } => Kind::Endpoint,
            AgentIntake::Model { .. } => Kind::Model,
            AgentIntake::Docker { .. } => Kind::Docker,
        }
    }
}

/// Where a `docker` submission's image comes from.
pub(crate) enum ImageSource {
    /// A registry reference, as given: that it is pinned by digest is checked on admission,
    /// once the deployment is known to run images (a refusal then says more).
    Reference(String),
    /// An archive uploaded with the request, received but not yet checked.
    Upload(Received),
}

fn invalid(why: &str) -> ApiError {
    ApiError::unprocessable("invalid-submission", why.to_string())
}

/// A name or model text: 1 to 100 printable characters.
fn check_text(field: &str, value: &str) -> Result<(), ApiError> {
    let n = value.chars().count();
    if n == 0 || n > 100 || value.chars().any(char::is_control) {
        return Err(ApiError::bad_request(format!(
            "{field} must be 1 to 100 printable characters"
        )));
    }
    Ok(())
}

impl Intake {
    /// Checks `req` (with the archive `upload`, when the request was a multipart upload)
    /// field by field; `default_set` stands for a set not named.
    pub(crate) fn check(
        req: NewSubmission,
        upload: Option<Received>,
        default_set: &str,
    ) -> Result<Self, ApiError> {
        check_text("name", &req.name)?;
        check_text("model", &req.model)?;
        let trials = req.trials.unwrap_or(1);
        if !(1..=MAX_TRIALS).contains(&trials) {
            return Err(ApiError::bad_request(format!(
                "trials must be between 1 and {MAX_TRIALS}"
            )));
        }
        let distractors = match req.distractors.as_deref() {
            None => None,
            Some(level) => Some(
                level
                    .parse::<mcpbench_tasks::Level>()
                    .map_err(|e| ApiError::bad_request(format!("distractors: {e}")))?
                    .to_string(),
            ),
        };
        if let Some(url) = &req.webhook_url
            && (url.is_empty() || url.len() > 2048)
        {
            return Err(ApiError::bad_request(
                "webhook_url must be a URL of 1 to 2048 bytes",
            ));
        }
        let mut about = req.about.unwrap_or_default().checked()?;
        let agent = agent(
            req.kind,
            upload,
            req.endpoint_url,
            req.image,
            req.model_endpoint,
            &mut about,
        )?;
        Ok(Self {
            set: requested_set("set", req.set.as_deref(), default_set)?,
            name: req.name,
            model: req.model,
            trials,
            distractors,
            about,
            agent,
            webhook_url: req.webhook_url,
        })
    }
}

/// The agent of a submission of `kind` from the fields given, each refused where it does not
/// belong.
fn agent(
    kind: Kind,
    upload: Option<Received>,
    endpoint_url: Option<String>,
    image: Option<String>,
    model_endpoint: Option<ModelRequest>,
    about: &mut submissions::About,
) -> Result<AgentIntake, ApiError> {
    if kind == Kind::Endpoint && model_endpoint.is_some() {
        return Err(invalid(
            "model_endpoint belongs to kind \"model\" (the standard track) or \"docker\" (an \
             image that calls its model)",
        ));
    }
    if kind != Kind::Docker && upload.is_some() {
        return Err(invalid("an uploaded image needs kind \"docker\""));
    }
    match kind {
        Kind::Model => {
            if endpoint_url.is_some() || image.is_some() {
                return Err(invalid(
                    "a model submission has model_endpoint only (no endpoint_url, no image)",
                ));
            }
            if about.scaffold.as_deref() == Some("own") {
                return Err(invalid(
                    "a model submission runs our standard scaffold; leave about.scaffold out \
                     or say \"standard\"",
                ));
            }
            let endpoint = model_endpoint.ok_or_else(|| {
                invalid(
                    "kind \"model\" needs model_endpoint: {\"base_url\", \"model\", \
                     \"api_key\"?, \"prices\"?}",
                )
            })?;
            about.scaffold = Some("standard".into());
            Ok(AgentIntake::Model { endpoint })
        }
        Kind::Endpoint => {
            if image.is_some() {
                return Err(invalid(
                    "image belongs to kind \"docker\"; an endpoint submission has endpoint_url \
                     only",
                ));
            }
            let url =
                endpoint_url.ok_or_else(|| invalid("kind \"endpoint\" needs endpoint_url"))?;
            Ok(AgentIntake::Endpoint { url })
        }
        Kind::Docker => {
            if endpoint_url.is_some() {
                return Err(invalid(
                    "endpoint_url belongs to kind \"endpoint\"; a docker submission has image",
                ));
            }
            if model_endpoint.as_ref().is_some_and(|m| m.prices.is_some()) {
                return Err(invalid(
                    "model_endpoint.prices belong to kind \"model\", whose agent is ours; an \
                     image reports its own cost as usage in its reply (docs/protocol.md, \
                     section 3)",
                ));
            }
            let image = match (upload, image) {
                (Some(_), Some(_)) => {
                    return Err(invalid(
                        "give the image either as a reference or as an upload, not both",
                    ));
                }
                (Some(received), None) => ImageSource::Upload(received),
                (None, Some(image)) => ImageSource::Reference(image),
                (None, None) => {
                    return Err(invalid(
                        "kind \"docker\" needs image (name@sha256:...) or an uploaded archive \
                         (multipart/form-data with the parts submission and image)",
                    ));
                }
            };
            Ok(AgentIntake::Docker {
                image,
                model: model_endpoint,
            })
        }
    }
}
