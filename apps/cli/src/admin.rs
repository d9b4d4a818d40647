//! `mcpbench admin`: operator commands against the service's database.

use crate::admin_pack::{self, PackCommand};
use crate::admin_set::{self, SetCommand};
use anyhow::Context;
use clap::Subcommand;
use mcpbench_db::vendors;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Subcommand)]
pub enum AdminCommand {
    /// Create a vendor and print its API key (shown once; only its hash is stored).
    CreateVendor {
        name: String,
        /// Grant the admin role.
        #[arg(long)]
        admin: bool,
        #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
        database_url: String,
    },
    /// Issue another API key for a vendor.
    NewKey {
        name: String,
        #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
        database_url: String,
    },
    /// Revoke every key of a vendor; their tokens stop working at once.
    RevokeKeys {
        name: String,
        #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
        database_url: String,
    },
    /// Load a directory of task files as an active public set (like the dev set). Private sets
    /// go through `admin set create`, sealed and committed.
    LoadSet {
        dir: PathBuf,
        /// The set's id (letters, digits and '-'); by default the one the set's manifest.json
        /// names (`dev` when it names none).
        #[arg(long)]
        id: Option<String>,
        #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
        database_url: String,
    },
    /// Score every completed submission of a set again from its stored traces, and say
    /// whether each came out the same (any difference is stored and listed).
    Rescore {
        set: String,
        #[command(flatten)]
        store: mcpbench_config::StoreArgs,
        #[command(flatten)]
        keys: mcpbench_config::TaskKeyArgs,
        #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
        database_url: String,
    },
    /// Private task sets: create, activate, rotate, retire, list, bundle.
    #[command(subcommand)]
    Set(SetCommand),
    /// The private packs of task families the deployment keeps (docs/packs.md).
    #[command(subcommand)]
    Pack(PackCommand),
}

pub fn run(cmd: AdminCommand) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    runtime.block_on(async move {
        let connect = |url: String| async move {
            let pool = mcpbench_db::connect(&url, 2)
                .await
                .context("connecting to the database")?;
            mcpbench_db::migrate(&pool).await.context("migrating")?;
            anyhow::Ok(pool)
        };
        match cmd {
            AdminCommand::CreateVendor {
                name,
                admin,
                database_url,
            } => {
                let pool = connect(database_url).await?;
                let (_, key) = vendors::create(&pool, &name, admin, false).await?;
                eprintln!("vendor {name:?} created; its API key (shown only now):");
                println!("{key}");
            }
            AdminCommand::NewKey { name, database_url } => {
                let pool = connect(database_url).await?;
                let key = vendors::new_key(&pool, &name)
                    .await
                    .with_context(|| format!("no vendor {name:?}"))?;
                println!("{key}");
            }
            AdminCommand::RevokeKeys { name, database_url } => {
                let pool = connect(database_url).await?;
                let n = vendors::revoke_keys(&pool, &name).await?;
                eprintln!("revoked {n} keys of {name:?}");
            }
            AdminCommand::Set(cmd) => admin_set::run(cmd).await?,
            AdminCommand::Pack(cmd) => admin_pack::run(cmd).await?,
            AdminCommand::Rescore {
                set,
                store,
                keys,
                database_url,
            } => {
                let keyring =
                    mcpbench_sets::keyring_from_args(&keys).map_err(anyhow::Error::msg)?;
                let store = mcpbench_storage::TraceStore::from_args(&store).await?;
                let pool = connect(database_url).await?;
                let done =
                    mcpbench_worker::rescore_set(&pool, &store, keyring.as_ref(), &set).await?;
                return Ok(report_rescore(&set, &done));
            }
            AdminCommand::LoadSet {
                dir,
                id,
                database_url,
            } => {
                let set = mcpbench_sets::PublicSet::read(&dir)?;
                let pool = connect(database_url).await?;
                let id = set.publish(&pool, id.as_deref()).await?;
                eprintln!("set {id:?} holds {} tasks", set.tasks.len());
            }
        }
        anyhow::Ok(ExitCode::SUCCESS)
    })
}

/// One line per submission; the exit status is 0 only when every one came out the same.
fn report_rescore(set: &str, done: &[mcpbench_worker::Rescored]) -> ExitCode {
    let mut same = true;
    for r in done {
        let verdict = if r.scores_same {
            "same scores"
        } else {
            "scores CHANGED (stored)"
        };
        println!(
            "{}\t{} runs\t{} analyses changed\t{} unreadable\t{verdict}",
            r.submission, r.runs, r.analyses_changed, r.unreadable
        );
        for p in &r.problems {
            println!("  {p}");
        }
        same &= r.scores_same && r.analyses_changed == 0 && r.unreadable == 0;
    }
    eprintln!(
        "{} completed submissions of {set} rescored from their traces",
        done.len()
    );
    if same {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
