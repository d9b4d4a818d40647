//! What a new submission must be, kind by kind: its texts, its endpoint or image registry
//! (checked against SSRF), its model (the standard track's, or one an image calls), and
//! whether the deployment runs it at all (private sets kept from hosted agents, images only
//! where a worker has a Docker engine).

use crate::AppState;
use crate::error::ApiError;
use crate::routes::submissions::NewSubmission;
use mcpbench_db::{submissions, workers};
use mcpbench_egress::{check_resolved, check_url};

pub(super) fn check_text(field: &str, value: &str) -> Result<(), ApiError> {
    let n = value.chars().count();
    if n == 0 || n > 100 || value.chars().any(char::is_control) {
        return Err(ApiError::bad_request(format!(
            "{field} must be 1 to 100 printable characters"
        )));
    }
    Ok(())
}

/// Who would see a private set's goals outside the sandbox, for [`refuse_hosted_on_private`].
#[derive(Clone, Copy)]
pub(super) enum Outside {
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
pub(super) async fn refuse_hosted_on_private(
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

/// The model an image calls, when its submission names one (docs/protocol.md, section 6): the
/// worker relays the image's chat-completions requests to it, adding the key, so it is checked
/// and sealed as the standard track's, and held to the hosted agents' rule on private sets.
/// Its prices are refused: an image reports its own cost (`usage` in its reply).
pub(super) async fn image_model(
    state: &AppState,
    vendor_id: i64,
    req: &NewSubmission,
    set: &str,
) -> Result<Option<submissions::ModelEndpoint>, ApiError> {
    let Some(model) = req.model_endpoint.as_ref() else {
        return Ok(None);
    };
    if model.prices.is_some() {
        return Err(ApiError::unprocessable(
            "invalid-submission",
            "model_endpoint.prices belong to kind \"model\", whose agent is ours; an image \
             reports its own cost as usage in its reply (docs/protocol.md, section 3)",
        ));
    }
    refuse_hosted_on_private(state, set, Outside::ImageModel).await?;
    crate::model_track::checked(state, vendor_id, model)
        .await
        .map(Some)
}

/// The model of a standard-track submission (checked, its key sealed); its `about` says the
/// scaffold is the standard one, which it is.
pub(super) async fn checked_model(
    state: &AppState,
    vendor_id: i64,
    req: &NewSubmission,
    about: &mut submissions::About,
) -> Result<submissions::ModelEndpoint, ApiError> {
    if req.endpoint_url.is_some() || req.image.is_some() {
        return Err(ApiError::unprocessable(
            "invalid-submission",
            "a model submission has model_endpoint only (no endpoint_url, no image)",
        ));
    }
    if about.scaffold.as_deref() == Some("own") {
        return Err(ApiError::unprocessable(
            "invalid-submission",
            "a model submission runs our standard scaffold; leave about.scaffold out or say \
             \"standard\"",
        ));
    }
    let model = req.model_endpoint.as_ref().ok_or_else(|| {
        ApiError::unprocessable(
            "invalid-submission",
            "kind \"model\" needs model_endpoint: {\"base_url\", \"model\", \"api_key\"?, \
             \"prices\"?}",
        )
    })?;
    about.scaffold = Some("standard".into());
    crate::model_track::checked(state, vendor_id, model).await
}

/// The endpoint of an endpoint submission, checked against SSRF (text and resolution).
pub(super) async fn checked_endpoint(
    state: &AppState,
    req: &NewSubmission,
) -> Result<String, ApiError> {
    if req.image.is_some() {
        return Err(ApiError::unprocessable(
            "invalid-submission",
            "image belongs to kind \"docker\"; an endpoint submission has endpoint_url only",
        ));
    }
    let url = req.endpoint_url.as_deref().ok_or_else(|| {
        ApiError::unprocessable("invalid-submission", "kind \"endpoint\" needs endpoint_url")
    })?;
    let policy = state.config().egress;
    let parsed = check_url(url, &policy)
        .map_err(|r| ApiError::unprocessable("unsafe-endpoint", r.to_string()))?;
    check_resolved(&parsed, &policy)
        .await
        .map_err(|r| ApiError::unprocessable("unsafe-endpoint", r.to_string()))?;
    Ok(parsed.to_string())
}

/// The registry of a pinned reference goes through the same checks as an endpoint: the engine
/// connects to it on our side, so it must not point into our networks.
pub(super) async fn check_registry(state: &AppState, image: &str) -> Result<(), ApiError> {
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
