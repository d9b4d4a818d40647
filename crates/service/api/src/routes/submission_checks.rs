//! A new submission admitted: its intake (`crate::intake`, every field valid and of its kind)
//! checked against the world and the deployment. The endpoint and an image's registry are
//! checked against SSRF, a model's endpoint too and its key sealed, an uploaded archive checked
//! and stored; private sets are kept from hosted agents and models, images run only where a
//! worker has a Docker engine.

use crate::AppState;
use crate::error::ApiError;
use crate::intake::{AgentIntake, ImageSource};
use crate::routes::upload::{self, Accepted};
use mcpbench_db::{submissions, workers};
use mcpbench_egress::{check_resolved, check_url};

/// An agent admitted, holding what its row stores.
pub(super) enum Admitted {
    Endpoint(String),
    Model(submissions::ModelEndpoint),
    Docker {
        /// The image's id (an upload) or its pinned reference.
        image: String,
        /// The stored upload.
        archive: Option<Accepted>,
        model: Option<submissions::ModelEndpoint>,
    },
}

impl Admitted {
    /// The agent as the database takes it.
    pub(super) fn agent(&self) -> submissions::Agent<'_> {
        match self {
            Admitted::Endpoint(url) => submissions::Agent::Endpoint(url),
            Admitted::Model(model) => submissions::Agent::Model(model),
            Admitted::Docker {
                image,
                archive,
                model,
            } => submissions::Agent::Docker {
                image,
                archive: archive
                    .as_ref()
                    .map(|a| (a.key.as_str(), a.sha256.as_str())),
                model: model.as_ref(),
            },
        }
    }
}

/// Admits the agent of `vendor_id`'s submission to `set`, or says why not.
pub(super) async fn admit(
    state: &AppState,
    vendor_id: i64,
    set: &str,
    agent: AgentIntake,
) -> Result<Admitted, ApiError> {
    match agent {
        AgentIntake::Model { endpoint } => {
            // The vendor's model reads every goal our agent sends it, as a hosted agent does.
            refuse_hosted_on_private(state, set, Outside::Model).await?;
            let model = crate::model_track::checked(state, vendor_id, &endpoint).await?;
            Ok(Admitted::Model(model))
        }
        AgentIntake::Endpoint { url } => {
            refuse_hosted_on_private(state, set, Outside::Endpoint).await?;
            Ok(Admitted::Endpoint(checked_endpoint(state, &url).await?))
        }
        AgentIntake::Docker { image, model } => {
            // The model first: its refusals say more than "no Docker engine here".
            let model = match model {
                None => None,
                Some(model) => {
                    refuse_hosted_on_private(state, set, Outside::ImageModel).await?;
                    Some(crate::model_track::checked(state, vendor_id, &model).await?)
                }
            };
            require_docker(state).await?;
            let (image, archive) = match image {
                ImageSource::Upload(received) => {
                    // Checked, stripped of tags and stored only now that the rest is valid.
                    // The set is looked at first so that an archive is never kept for a set
                    // that takes nothing; `submissions::create` decides for good, under lock,
                    // with the quotas.
                    let info = mcpbench_db::sets::get(state.pool(), set).await?;
                    submissions::takes_submissions(set, info.map(|i| i.state))?;
                    let accepted = upload::accept(state, received).await?;
                    (accepted.image.id.clone(), Some(accepted))
                }
                ImageSource::Reference(image) => {
                    if !mcpbench_images::is_pinned_reference(&image) {
                        return Err(ApiError::unprocessable(
                            "unpinned-image",
                            "image must be a reference pinned by digest, name@sha256:<64 hex \
                             digits>, so that every run uses exactly the same bytes (a tag such \
                             as :latest can change between runs); `docker inspect --format \
                             '{{index .RepoDigests 0}}' IMAGE` prints it",
                        ));
                    }
                    check_registry(state, &image).await?;
                    (image, None)
                }
            };
            Ok(Admitted::Docker {
                image,
                archive,
                model,
            })
        }
    }
}

/// Who would see a private set's goals outside the sandbox, for [`refuse_hosted_on_private`].
#[derive(Clone, Copy)]
enum Outside {
    /// A hosted endpoint receives every goal it runs.
    Endpoint,
    /// The standard track's model reads every goal our agent sends it.
    Model,
    /// An image that names a model can send that model every goal it runs.
    ImageModel,
}

/// A hosted agent, or a model, would receive every goal of the set it runs: on a private set,
/// that is the month's sealed tasks, outside any sandbox. Refused unless the deployment allows
/// it.
async fn refuse_hosted_on_private(
    state: &AppState,
    set: &str,
    outside: Outside,
) -> Result<(), ApiError> {
    if state.config().hosted_private_sets {
        return Ok(());
    }
    let why = match outside {
        Outside::Endpoint => "a hosted endpoint receives every goal it runs",
        Outside::Model => "your model reads every goal our agent sends it",
        Outside::ImageModel => "an image that names a model can send that model every goal it runs",
    };
    match mcpbench_db::sets::get(state.pool(), set).await? {
        Some(info) if !info.public => Err(ApiError::unprocessable(
            "hosted-private-set",
            format!(
                "set {set:?} is private and this deployment runs private sets on Docker images \
                 only, without a model of their own: {why}, so it would see the set's sealed \
                 tasks; submit your agent as an image (kind \"docker\", no model_endpoint), \
                 which runs sandboxed with no way out, or run against a public set"
            ),
        )),
        _ => Ok(()),
    }
}

/// The endpoint of an endpoint submission, checked against SSRF (text and resolution).
async fn checked_endpoint(state: &AppState, url: &str) -> Result<String, ApiError> {
    let policy = state.config().egress;
    let parsed = check_url(url, &policy)
        .map_err(|r| ApiError::unprocessable("unsafe-endpoint", r.to_string()))?;
    check_resolved(&parsed, &policy)
        .await
        .map_err(|r| ApiError::unprocessable("unsafe-endpoint", r.to_string()))?;
    Ok(parsed.to_string())
}

/// A completion webhook's URL, checked as an endpoint is (text and resolution); the worker's
/// client checks it again at every attempt.
pub(super) async fn checked_webhook(state: &AppState, url: &str) -> Result<String, ApiError> {
    let policy = state.config().egress;
    let refused = |r: mcpbench_egress::Refusal| {
        ApiError::unprocessable("unsafe-webhook", format!("webhook_url is refused: {r}"))
    };
    let parsed = check_url(url, &policy).map_err(refused)?;
    check_resolved(&parsed, &policy).await.map_err(refused)?;
    Ok(parsed.to_string())
}

/// The registry of a pinned reference goes through the same checks as an endpoint: the engine
/// connects to it on our side, so it must not point into our networks.
async fn check_registry(state: &AppState, image: &str) -> Result<(), ApiError> {
    let name = image.split('@').next().unwrap_or_default();
    let first = name.split('/').next().unwrap_or_default();
    // Docker's rule: the first component names a registry when it has a dot or a port, or is
    // `localhost`; otherwise the image is on Docker Hub.
    let registry = if name.contains('/')
        && (first.contains('.') || first.contains(':') || first == "localhost")
    {
        first
    } else {
        "registry-1.docker.io"
    };
    let policy = state.config().egress;
    let refused = |r: mcpbench_egress::Refusal| {
        ApiError::unprocessable(
            "unsafe-registry",
            format!("the image's registry {registry:?} is refused: {r}"),
        )
    };
    let url = check_url(&format!("https://{registry}/"), &policy).map_err(refused)?;
    check_resolved(&url, &policy).await.map_err(refused)?;
    Ok(())
}

/// How recently a worker with a Docker engine must have reported for `docker` submissions.
const DOCKER_WORKER_SILENCE: std::time::Duration = std::time::Duration::from_secs(90);

/// Refuses `docker` submissions when no worker here can run images.
pub(super) async fn require_docker(state: &AppState) -> Result<(), ApiError> {
    if workers::docker_available(state.pool(), DOCKER_WORKER_SILENCE).await? {
        return Ok(());
    }
    Err(ApiError::unprocessable(
        "docker-unavailable",
        "this deployment cannot run Docker images right now: no worker with a Docker engine \
         has reported in the last 90 s; submit kind \"endpoint\" with the URL of your agent, \
         or try again later",
    ))
}
