//! The vendor's side of the API: where it is, the stored API key, tokens, and requests whose
//! failures become sentences (the API's problem `detail`, or why the server could not be
//! reached).

use anyhow::{Context, anyhow, bail};
use reqwest::{Method, RequestBuilder, StatusCode};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

/// What `mcpbench login` keeps: the server and the API key (tokens are fetched per command).
#[derive(Serialize, Deserialize)]
pub struct Credentials {
    pub server: String,
    pub api_key: String,
}

/// An error of the API, as the user should read it; `status` picks the exit code.
#[derive(Debug)]
pub struct Refused {
    pub status: StatusCode,
    pub detail: String,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.detail, self.status)
    }
}

impl std::error::Error for Refused {}

/// `$MCPBENCH_CONFIG_DIR`, else `$XDG_CONFIG_HOME/mcpbench`, else `~/.config/mcpbench`.
pub fn config_dir() -> anyhow::Result<PathBuf> {
    if let Some(dir) = std::env::var_os("MCPBENCH_CONFIG_DIR") {
        return Ok(dir.into());
    }
    if let Some(dir) = std::env::var_os("XDG_CONFIG_HOME") {
        return Ok(PathBuf::from(dir).join("mcpbench"));
    }
    let home = std::env::var_os("HOME").ok_or_else(|| anyhow!("HOME is not set"))?;
    Ok(PathBuf::from(home).join(".config/mcpbench"))
}

pub fn credentials_path() -> anyhow::Result<PathBuf> {
    Ok(config_dir()?.join("credentials.json"))
}

impl Credentials {
    pub fn load() -> anyhow::Result<Self> {
        let path = credentials_path()?;
        let text = std::fs::read_to_string(&path).map_err(|_| {
            anyhow!(
                "not logged in ({} is missing): run `mcpbench login --server URL`",
                path.display()
            )
        })?;
        serde_json::from_str(&text)
            .with_context(|| format!("{} is damaged; run `mcpbench login` again", path.display()))
    }

    /// Writes the file readable by this user only.
    pub fn save(&self) -> anyhow::Result<PathBuf> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let path = credentials_path()?;
        std::fs::create_dir_all(path.parent().expect("a parent"))?;
        let tmp = path.with_extension("json.tmp");
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)
            .with_context(|| format!("writing {}", tmp.display()))?;
        f.write_all(serde_json::to_string_pretty(self)?.as_bytes())?;
        std::fs::rename(&tmp, &path)?;
        Ok(path)
    }
}

pub struct Client {
    http: reqwest::Client,
    server: String,
    token: String,
}

/// The server URL without a trailing slash; only http and https.
pub fn normalize_server(server: &str) -> anyhow::Result<String> {
    let url = url::Url::parse(server).with_context(|| format!("{server:?} is not a URL"))?;
    if !matches!(url.scheme(), "http" | "https") {
        bail!(
            "the server URL must be http or https, not {:?}",
            url.scheme()
        );
    }
    Ok(server.trim_end_matches('/').to_string())
}

fn http() -> anyhow::Result<reqwest::Client> {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .connect_timeout(Duration::from_secs(10))
        .build()
        .context("building the HTTP client")
}

/// The API's answer as JSON, or its refusal.
async fn answer(server: &str, r: reqwest::Result<reqwest::Response>) -> anyhow::Result<Value> {
    let r = r.map_err(|e| anyhow!("cannot reach {server}: {}", root_cause(&e)))?;
    let status = r.status();
    let text = r.text().await.context("reading the answer")?;
    if status.is_success() {
        return Ok(serde_json::from_str(&text).unwrap_or(Value::Null));
    }
    let detail = serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|v| v["detail"].as_str().map(String::from))
        .unwrap_or_else(|| format!("the server answered {status}"));
    Err(Refused { status, detail }.into())
}

fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = e;
    while let Some(next) = cause.source() {
        cause = next;
    }
    cause.to_string()
}

impl Client {
    /// Exchanges the API key for a token (valid an hour; each command gets its own).
    pub async fn connect(server: &str, api_key: &str) -> anyhow::Result<Self> {
        let http = http()?;
        let r = http
            .post(format!("{server}/auth/token"))
            .json(&serde_json::json!({ "api_key": api_key }))
            .send()
            .await;
        let body = answer(server, r).await?;
        let token = body["access_token"]
            .as_str()
            .ok_or_else(|| anyhow!("{server} gave no token; is it an MCPBench API?"))?
            .to_string();
        Ok(Self {
            http,
            server: server.into(),
            token,
        })
    }

    pub async fn from_credentials() -> anyhow::Result<Self> {
        let c = Credentials::load()?;
        Self::connect(&c.server, &c.api_key).await
    }

    pub fn server(&self) -> &str {
        &self.server
    }

    fn request(&self, method: Method, path: &str) -> RequestBuilder {
        self.http
            .request(method, format!("{}{path}", self.server))
            .bearer_auth(&self.token)
    }

    pub async fn get(&self, path: &str) -> anyhow::Result<Value> {
        answer(&self.server, self.request(Method::GET, path).send().await).await
    }

    pub async fn post(&self, path: &str, body: &Value) -> anyhow::Result<Value> {
        let r = self.request(Method::POST, path).json(body).send().await;
        answer(&self.server, r).await
    }

    /// `POST /submissions` with an image archive, streamed from disk.
    pub async fn upload(
        &self,
        submission: &Value,
        archive: &std::path::Path,
    ) -> anyhow::Result<Value> {
        let file = tokio::fs::File::open(archive)
            .await
            .with_context(|| format!("opening {}", archive.display()))?;
        let len = file.metadata().await?.len();
        let stream = tokio_util::io::ReaderStream::new(file);
        let image =
            reqwest::multipart::Part::stream_with_length(reqwest::Body::wrap_stream(stream), len)
                .file_name("image.tar")
                .mime_str("application/x-tar")?;
        let form = reqwest::multipart::Form::new()
            .part(
                "submission",
                reqwest::multipart::Part::text(submission.to_string())
                    .mime_str("application/json")?,
            )
            .part("image", image);
        let r = self
            .request(Method::POST, "/submissions")
            .timeout(Duration::from_secs(3600))
            .multipart(form)
            .send()
            .await;
        answer(&self.server, r).await
    }
}
