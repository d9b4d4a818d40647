//! `mcpbench list`, `cancel`, `withdraw`, `rotate-key` and `logout`: a vendor's submissions,
//! stopping one, taking a completed one off the board, a new key for the one kept on this
//! machine, forgetting it.

use super::client::{Client, Credentials, credentials_path};
use super::run;
use clap::Args;
use serde_json::{Value, json};
use std::process::ExitCode;

#[derive(Args)]
pub struct ListArgs {
    /// The most submissions shown, newest first.
    #[arg(long, default_value_t = 20)]
    limit: usize,
    /// Print them as one JSON array.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct CancelArgs {
    /// The submission's id.
    id: uuid::Uuid,
}

#[derive(Args)]
pub struct WithdrawArgs {
    /// The submission's id.
    id: uuid::Uuid,
}

#[derive(Args)]
pub struct LogoutArgs {}

pub fn list(args: ListArgs) -> anyhow::Result<ExitCode> {
    run(async move {
        let client = Client::from_credentials().await?;
        let mut all: Vec<Value> = Vec::new();
        let mut before: Option<String> = None;
        while all.len() < args.limit {
            let page_size = (args.limit - all.len()).min(100);
            let mut path = format!("/submissions?limit={page_size}");
            if let Some(b) = &before {
                path.push_str(&format!("&before={}", urlencode(b)));
            }
            let page = client.get(&path).await?;
            all.extend(
                page["submissions"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .cloned(),
            );
            match page["next_before"].as_str() {
                Some(b) => before = Some(b.to_string()),
                None => break,
            }
        }
        all.truncate(args.limit);
        if args.json {
            println!("{}", serde_json::to_string_pretty(&all)?);
            return Ok(ExitCode::SUCCESS);
        }
        for s in &all {
            let rate = s["scores"]["success_rate"]
                .as_f64()
                .map_or("-".into(), |r| format!("{r:.3}"));
            println!(
                "{}\t{}\t{}\t{}\t{}\t{}/{}\t{rate}",
                s["id"].as_str().unwrap_or_default(),
                s["name"].as_str().unwrap_or_default(),
                s["model"].as_str().unwrap_or_default(),
                s["set"].as_str().unwrap_or_default(),
                s["status"].as_str().unwrap_or_default(),
                s["progress"]["done"],
                s["progress"]["total"],
            );
        }
        eprintln!("{} submissions", all.len());
        Ok(ExitCode::SUCCESS)
    })
}

pub fn withdraw(args: WithdrawArgs) -> anyhow::Result<ExitCode> {
    run(async move {
        let client = Client::from_credentials().await?;
        let s = client
            .post(&format!("/submissions/{}/withdraw", args.id), &json!({}))
            .await?;
        println!(
            "{} is off the board since {}, for good; its record stays",
            args.id,
            s["withdrawn_at"].as_str().unwrap_or("now")
        );
        Ok(ExitCode::SUCCESS)
    })
}

pub fn cancel(args: CancelArgs) -> anyhow::Result<ExitCode> {
    run(async move {
        let client = Client::from_credentials().await?;
        let s = client
            .post(&format!("/submissions/{}/cancel", args.id), &json!({}))
            .await?;
        println!(
            "{} is {}: its queued runs are dropped, running ones stop at their next heartbeat",
            args.id,
            s["status"].as_str().unwrap_or("cancelled")
        );
        Ok(ExitCode::SUCCESS)
    })
}

#[derive(Args)]
pub struct RotateKeyArgs {}

/// A new API key in place of the one kept on this machine; the old one keeps working for the
/// deployment's grace period, so other machines holding it can move over.
pub fn rotate_key(_: RotateKeyArgs) -> anyhow::Result<ExitCode> {
    run(async move {
        let mut credentials = Credentials::load()?;
        let client = Client::connect(&credentials.server, &credentials.api_key).await?;
        let rotated = client.post("/auth/keys/rotate", &json!({})).await?;
        let key = rotated["api_key"]
            .as_str()
            .ok_or_else(|| anyhow::anyhow!("the server gave no new key"))?;
        credentials.api_key = key.to_string();
        let path = credentials.save()?;
        println!(
            "a new API key is kept in {} (0600); the old one works until {}, then stops",
            path.display(),
            rotated["old_keys_end_at"]
                .as_str()
                .unwrap_or("the grace ends")
        );
        Ok(ExitCode::SUCCESS)
    })
}

pub fn logout(_: LogoutArgs) -> anyhow::Result<ExitCode> {
    let path = credentials_path()?;
    match std::fs::remove_file(&path) {
        Ok(()) => println!(
            "logged out: {} removed (the key itself stays valid until revoked)",
            path.display()
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => println!("not logged in"),
        Err(e) => return Err(anyhow::anyhow!("removing {}: {e}", path.display())),
    }
    Ok(ExitCode::SUCCESS)
}

/// The few characters of an RFC 3339 time that a query string must escape.
fn urlencode(text: &str) -> String {
    text.replace('+', "%2B").replace(':', "%3A")
}
