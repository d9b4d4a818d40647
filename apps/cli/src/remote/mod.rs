//! The commands a vendor runs against a remote server: `login`, `submit`, `status`, `runs`,
//! `publish` (`verify` is its own command). Exit status: 0 done; 1 the API refused or the
//! submission did not complete (failed, cancelled); 2 the command could not run (not logged
//! in, the server unreachable, a file unreadable).

mod client;
mod manage;
mod print;

pub use manage::{
    CancelArgs, ListArgs, LogoutArgs, RotateKeyArgs, WithdrawArgs, cancel, list, logout,
    rotate_key, withdraw,
};

use anyhow::{Context, bail};
use clap::Args;
use client::{Client, Credentials, Refused, normalize_server};
use print::{coverage, print_submission, progress_line, run_time};
use serde_json::{Value, json};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Args)]
pub struct LoginArgs {
    /// The MCPBench API, e.g. https://mcpbench.example or http://127.0.0.1:8080.
    #[arg(long, env = "MCPBENCH_SERVER")]
    server: String,
    /// Your API key; read from stdin when neither this nor MCPBENCH_API_KEY is given.
    #[arg(long, env = "MCPBENCH_API_KEY", hide_env_values = true)]
    api_key: Option<String>,
}

#[derive(Args)]
pub struct SubmitArgs {
    /// A name for this submission.
    #[arg(long)]
    name: String,
    /// The model behind the agent.
    #[arg(long)]
    model: String,
    /// Your agent's URL (it speaks mcpbench/1).
    #[arg(long, group = "agent", required = true)]
    endpoint: Option<String>,
    /// A `docker save` archive of your agent's image, uploaded.
    #[arg(long, group = "agent")]
    image_archive: Option<PathBuf>,
    /// Your agent's image in a registry, pinned by digest (`name@sha256:...`).
    #[arg(long, group = "agent")]
    image: Option<String>,
    /// Submit a model instead (the standard track): its OpenAI-compatible API's base URL
    /// (`https://api.example.com/v1`). MCPBench's own agent drives it. With --image or
    /// --image-archive: the model your image calls, through the sandbox's relay, which adds
    /// --model-api-key (the image gets OPENAI_BASE_URL and MCPBENCH_MODEL).
    #[arg(
        long,
        conflicts_with = "endpoint",
        requires = "model_id",
        value_name = "BASE_URL"
    )]
    model_endpoint: Option<String>,
    /// The model's name at --model-endpoint.
    #[arg(long)]
    model_id: Option<String>,
    /// The model's API key, sealed by the service and never shown again.
    #[arg(long, env = "MCPBENCH_MODEL_API_KEY", hide_env_values = true)]
    model_api_key: Option<String>,
    /// The model's prices in US dollars per million tokens, in and out (`0.40,1.60`), for
    /// the board's cost per task.
    #[arg(long, value_name = "IN,OUT", value_parser = prices)]
    model_prices: Option<(f64, f64)>,
    /// The set to run against (the deployment's default set when absent).
    #[arg(long)]
    set: Option<String>,
    /// Runs per task (1 to 10).
    #[arg(long)]
    trials: Option<u32>,
    /// Run the set at this level of extra tools (0 to 1000, or `all`); never ranked. For the
    /// whole curve, submit once per level.
    #[arg(long, value_name = "LEVEL")]
    distractors: Option<String>,
    /// POST here when the submission ends (completed or failed), signed as requests to the
    /// agent are, with the same secret (docs/protocol.md, section 10).
    #[arg(long, value_name = "URL")]
    webhook: Option<String>,
    #[command(flatten)]
    about: AboutArgs,
    /// Stay and show progress until it finishes (the exit status is then the outcome's).
    #[arg(long)]
    watch: bool,
}

/// What the submission says of its model and agent, shown on the board (each optional).
#[derive(Args)]
struct AboutArgs {
    /// The organisation that made the model (`Acme AI`).
    #[arg(long)]
    organisation: Option<String>,
    /// The model's exact version or snapshot (`2025-06-01`).
    #[arg(long)]
    model_version: Option<String>,
    /// Whether the model's weights are `open` or `closed`.
    #[arg(long, value_parser = ["open", "closed"])]
    weights: Option<String>,
    /// The agent framework (`LangGraph 0.2`, `openai-agents`, `none`).
    #[arg(long)]
    framework: Option<String>,
    /// `standard` (MCPBench's agent or the Python template unchanged) or `own`.
    #[arg(long, value_parser = ["standard", "own"])]
    scaffold: Option<String>,
}

impl AboutArgs {
    /// The `about` object of a submission; `None` when nothing is said.
    fn json(&self) -> Option<Value> {
        let fields = [
            ("organisation", &self.organisation),
            ("model_version", &self.model_version),
            ("weights", &self.weights),
            ("framework", &self.framework),
            ("scaffold", &self.scaffold),
        ];
        let about: serde_json::Map<String, Value> = fields
            .into_iter()
            .filter_map(|(k, v)| Some((k.to_string(), json!(v.as_ref()?))))
            .collect();
        (!about.is_empty()).then_some(Value::Object(about))
    }
}

#[derive(Args)]
pub struct StatusArgs {
    /// The submission's id.
    id: uuid::Uuid,
    /// Stay and show progress until it finishes.
    #[arg(long)]
    watch: bool,
    /// Print the submission as the API gives it (JSON).
    #[arg(long, conflicts_with = "watch")]
    json: bool,
}

#[derive(Args)]
pub struct RunsArgs {
    /// The submission's id.
    id: uuid::Uuid,
    /// Only the runs that did not pass.
    #[arg(long)]
    failed: bool,
    /// Print the runs as one JSON array, as the API gives them.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct PublishArgs {
    /// The submission's id.
    id: uuid::Uuid,
}

/// Runs `f` on a small runtime and maps its error to the exit status.
pub(crate) fn run(
    f: impl std::future::Future<Output = anyhow::Result<ExitCode>>,
) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    Ok(match runtime.block_on(f) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            if e.downcast_ref::<Refused>().is_some() {
                ExitCode::from(1)
            } else {
                ExitCode::from(2)
            }
        }
    })
}

pub fn login(args: LoginArgs) -> anyhow::Result<ExitCode> {
    run(async move {
        let server = normalize_server(&args.server)?;
        let api_key = match args.api_key {
            Some(k) => k,
            None => {
                // A prompt is for a person; a key piped in needs none.
                if std::io::stdin().is_terminal() {
                    eprint!("API key: ");
                }
                let mut line = String::new();
                std::io::stdin()
                    .read_line(&mut line)
                    .context("reading the API key")?;
                line.trim().to_string()
            }
        };
        if api_key.is_empty() {
            bail!("no API key given");
        }
        Client::connect(&server, &api_key).await?;
        let path = Credentials {
            server: server.clone(),
            api_key,
        }
        .save()?;
        println!("logged in to {server} (key kept in {})", path.display());
        Ok(ExitCode::SUCCESS)
    })
}

/// `IN,OUT`: two prices in US dollars per million tokens.
fn prices(text: &str) -> Result<(f64, f64), String> {
    let parse = |v: &str| {
        v.trim()
            .parse::<f64>()
            .ok()
            .filter(|p| p.is_finite() && *p >= 0.0)
    };
    match text.split_once(',') {
        Some((i, o)) => parse(i).zip(parse(o)),
        None => None,
    }
    .ok_or_else(|| "give two prices per million tokens, in and out: 0.40,1.60".into())
}

pub fn submit(args: SubmitArgs) -> anyhow::Result<ExitCode> {
    run(async move {
        let client = Client::from_credentials().await?;
        let image = args.image.is_some() || args.image_archive.is_some();
        let kind = match (&args.endpoint, image, &args.model_endpoint) {
            (Some(_), _, _) => "endpoint",
            (None, true, _) => "docker",
            (None, false, Some(_)) => "model",
            (None, false, None) => {
                anyhow::bail!("give --endpoint, --image, --image-archive or --model-endpoint")
            }
        };
        let mut body = json!({"name": args.name, "model": args.model, "kind": kind});
        if let Some(base_url) = &args.model_endpoint {
            let mut model = json!({"base_url": base_url, "model": args.model_id});
            if let Some(key) = &args.model_api_key {
                model["api_key"] = json!(key);
            }
            if let Some((input, output)) = args.model_prices {
                model["prices"] = json!({"input_per_mtok": input, "output_per_mtok": output});
            }
            body["model_endpoint"] = model;
        }
        if let Some(url) = &args.endpoint {
            body["endpoint_url"] = json!(url);
        }
        if let Some(image) = &args.image {
            body["image"] = json!(image);
        }
        if let Some(set) = &args.set {
            body["set"] = json!(set);
        }
        if let Some(trials) = args.trials {
            body["trials"] = json!(trials);
        }
        if let Some(level) = &args.distractors {
            body["distractors"] = json!(level);
        }
        if let Some(url) = &args.webhook {
            body["webhook_url"] = json!(url);
        }
        if let Some(about) = args.about.json() {
            body["about"] = about;
        }
        let created = match &args.image_archive {
            Some(archive) => {
                eprintln!("uploading {} ...", archive.display());
                client.upload(&body, archive).await?
            }
            None => client.post("/submissions", &body).await?,
        };
        let id = created["id"].as_str().unwrap_or_default().to_string();
        println!(
            "submission {id} is {}",
            created["status"].as_str().unwrap_or("queued")
        );
        println!(
            "signing secret (requests to your agent are signed with it; shown once): {}",
            created["signing_secret"].as_str().unwrap_or_default()
        );
        println!(
            "in a browser (signed in with your API key): {}/web/submissions/{id}",
            client.server()
        );
        if !args.watch {
            println!("follow it with: mcpbench status {id} --watch");
            return Ok(ExitCode::SUCCESS);
        }
        watch(&client, &id).await
    })
}

pub fn status(args: StatusArgs) -> anyhow::Result<ExitCode> {
    run(async move {
        let client = Client::from_credentials().await?;
        let id = args.id.to_string();
        if args.watch {
            return watch(&client, &id).await;
        }
        let s = client.get(&format!("/submissions/{id}")).await?;
        if args.json {
            println!("{}", serde_json::to_string_pretty(&s)?);
        } else {
            print_submission(&s, client.server());
        }
        Ok(outcome(&s))
    })
}

/// 0 when completed (or still going), 1 when it failed or was cancelled.
fn outcome(s: &Value) -> ExitCode {
    match s["status"].as_str() {
        Some("failed" | "cancelled") => ExitCode::from(1),
        _ => ExitCode::SUCCESS,
    }
}

fn finished(s: &Value) -> bool {
    !matches!(s["status"].as_str(), Some("queued" | "running"))
}

/// Polls until the submission finishes, drawing a progress bar on a terminal (a line per
/// change otherwise).
async fn watch(client: &Client, id: &str) -> anyhow::Result<ExitCode> {
    let tty = std::io::stderr().is_terminal();
    let mut last = None;
    loop {
        let s = client.get(&format!("/submissions/{id}")).await?;
        let (done, total) = (
            s["progress"]["done"].as_i64().unwrap_or(0),
            s["progress"]["total"].as_i64().unwrap_or(0),
        );
        let status = s["status"].as_str().unwrap_or("?").to_string();
        if last != Some((done, status.clone())) {
            let line = progress_line(done, total, &status);
            if tty {
                eprint!("\r{line}");
            } else {
                eprintln!("{line}");
            }
            std::io::stderr().flush().ok();
            last = Some((done, status));
        }
        if finished(&s) {
            if tty {
                eprintln!();
            }
            print_submission(&s, client.server());
            return Ok(outcome(&s));
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

pub fn runs(args: RunsArgs) -> anyhow::Result<ExitCode> {
    run(async move {
        let client = Client::from_credentials().await?;
        let mut after: Option<String> = None;
        let mut shown = 0usize;
        let mut collected: Vec<Value> = Vec::new();
        loop {
            let mut path = format!("/submissions/{}/runs?limit=100", args.id);
            if let Some(a) = &after {
                path.push_str(&format!("&after={a}"));
            }
            let page = client.get(&path).await?;
            for r in page["runs"].as_array().into_iter().flatten() {
                if args.failed && r["passed"] == json!(true) {
                    continue;
                }
                shown += 1;
                if args.json {
                    collected.push(r.clone());
                    continue;
                }
                let analysis = &r["analysis"];
                let failure = &analysis["failure"];
                println!(
                    "{}\t{}#{}\t{}\t{}\t{} calls\t{}\tcoverage {}{}{}{}",
                    r["id"].as_str().unwrap_or_default(),
                    r["task_id"].as_str().unwrap_or_default(),
                    r["trial"],
                    if r["passed"] == json!(true) {
                        "pass"
                    } else {
                        "FAIL"
                    },
                    r["reason"].as_str().unwrap_or_default(),
                    r["tool_calls"],
                    run_time(r),
                    coverage(analysis),
                    failure["group"]
                        .as_str()
                        .map(|g| format!("\t{g}"))
                        .unwrap_or_default(),
                    failure["evidence"]
                        .as_str()
                        .map(|e| format!(": {e}"))
                        .unwrap_or_default(),
                    r["detail"]
                        .as_str()
                        .map(|d| format!("\t{d}"))
                        .unwrap_or_default()
                );
            }
            match page["next_after"].as_str() {
                Some(next) => after = Some(next.to_string()),
                None => break,
            }
        }
        if args.json {
            println!("{}", serde_json::to_string_pretty(&collected)?);
        }
        eprintln!(
            "{shown} runs; a trace in a browser: {0}/web/runs/<run id> (as JSON: {0}/runs/<run id>)",
            client.server()
        );
        Ok(ExitCode::SUCCESS)
    })
}

pub fn publish(args: PublishArgs) -> anyhow::Result<ExitCode> {
    run(async move {
        let client = Client::from_credentials().await?;
        client
            .post(&format!("/submissions/{}/publish", args.id), &json!({}))
            .await?;
        println!(
            "the traces of {} are published (open to everyone once their set is public or retired)",
            args.id
        );
        Ok(ExitCode::SUCCESS)
    })
}
