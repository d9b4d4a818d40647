//! `mcpbench verify BUNDLE|URL [--checkpoint FILE] [--key FILE]`: checks offline that every
//! revealed task of a retired set (and every withheld commitment) matches the commitment made
//! when the set went live (docs/attestations.md). Exit 0: it does; 1: it does not (the first mismatch is named);
//! 2: the command could not run (a file or URL could not be read).

use anyhow::{Context, bail};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// A bundle this large is not one of ours (5000 tasks of a few KiB each fit well below it).
const MAX_BUNDLE_BYTES: u64 = 256 << 20;

#[derive(Args)]
pub struct VerifyArgs {
    /// The bundle: a file, or the URL of `GET /sets/{id}/bundle`.
    source: String,
    /// The checkpoint saved when the set went live; the bundle's must be the same.
    #[arg(long)]
    checkpoint: Option<PathBuf>,
    /// The service's verifier key (`GET /.well-known/mcpbench-checkpoint-key`). Without it the
    /// bundle's own key is used, which proves nothing about who signed.
    #[arg(long)]
    key: Option<PathBuf>,
}

fn read_text(path: &PathBuf, what: &str) -> anyhow::Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("reading the {what} {}", path.display()))
}

fn fetch(url: &str) -> anyhow::Result<Vec<u8>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
            .context("building the HTTP client")?;
        let mut response = client
            .get(url)
            .send()
            .await
            .with_context(|| format!("fetching {url}"))?;
        if !response.status().is_success() {
            bail!("{url} answered {}", response.status());
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .with_context(|| format!("reading {url}"))?
        {
            body.extend_from_slice(&chunk);
            if body.len() as u64 > MAX_BUNDLE_BYTES {
                bail!(
                    "{url} is larger than {} MiB; not a bundle",
                    MAX_BUNDLE_BYTES >> 20
                );
            }
        }
        Ok(body)
    })
}

pub fn run(args: VerifyArgs) -> anyhow::Result<ExitCode> {
    let read = || -> anyhow::Result<_> {
        let bytes = if args.source.starts_with("http://") || args.source.starts_with("https://") {
            fetch(&args.source)?
        } else {
            let meta = std::fs::metadata(&args.source)
                .with_context(|| format!("reading the bundle {}", args.source))?;
            if meta.len() > MAX_BUNDLE_BYTES {
                bail!(
                    "{} is larger than {} MiB; not a bundle",
                    args.source,
                    MAX_BUNDLE_BYTES >> 20
                );
            }
            std::fs::read(&args.source)
                .with_context(|| format!("reading the bundle {}", args.source))?
        };
        let checkpoint = args
            .checkpoint
            .as_ref()
            .map(|p| read_text(p, "checkpoint"))
            .transpose()?;
        let key = args.key.as_ref().map(|p| read_text(p, "key")).transpose()?;
        Ok((bytes, checkpoint, key))
    };
    let (bytes, checkpoint, key) = match read() {
        Ok(inputs) => inputs,
        Err(e) => {
            eprintln!("error: {e:#}");
            return Ok(ExitCode::from(2));
        }
    };
    match mcpbench_attest::verify(&bytes, checkpoint.as_deref(), key.as_deref()) {
        Ok(v) => {
            if v.key_from_bundle {
                eprintln!(
                    "warning: no --key given; the bundle's own key was used, which proves nothing \
                     about who signed. Compare its fingerprint with the one the service publishes: \
                     {}",
                    v.fingerprint
                );
            }
            println!(
                "ok: set {} ({}): {} tasks match the commitment {}, signed by key {}",
                v.set,
                v.tag,
                v.tasks,
                hex::encode(v.root),
                v.fingerprint
            );
            if !v.withheld.is_empty() {
                let places: Vec<String> = v.withheld.iter().map(usize::to_string).collect();
                println!(
                    "withheld: {} of {} tasks are shown by their commitment alone while a live \
                     set holds them (places {}); they are revealed when it retires",
                    v.withheld.len(),
                    v.tasks,
                    places.join(", ")
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(rejected) => {
            eprintln!("error: {rejected}");
            Ok(ExitCode::from(1))
        }
    }
}
