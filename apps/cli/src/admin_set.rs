//! `mcpbench admin set ...`: the life of a task set, against the service's database.

use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use mcpbench_config::CustodyArgs;
use mcpbench_db::PgPool;
use std::path::PathBuf;

#[derive(Args)]
pub struct Db {
    #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
    database_url: String,
}

impl Db {
    pub(crate) async fn connect(&self) -> anyhow::Result<PgPool> {
        let pool = mcpbench_db::connect(&self.database_url, 2)
            .await
            .context("connecting to the database")?;
        mcpbench_db::migrate(&pool).await.context("migrating")?;
        Ok(pool)
    }
}

#[derive(Subcommand)]
pub enum SetCommand {
    /// Create a draft set: generated from a new secret seed (--generate N), partly drawn from a
    /// private pool of task files (--generate N --pool DIR), or from task files (--from DIR).
    /// Private (sealed at rest) unless --public; a private set is named YYYY-MM.
    Create {
        id: String,
        /// Task files to store as the set, as they are.
        #[arg(
            long,
            conflicts_with_all = ["generate", "pool"],
            required_unless_present_any = ["generate", "pool"]
        )]
        from: Option<PathBuf>,
        /// How many tasks the month holds, generated from a new secret seed (but those drawn
        /// from --pool).
        #[arg(long)]
        generate: Option<usize>,
        /// A private pool of task files kept outside the repository: the month draws some of
        /// its tasks from it, each pool task into one month only.
        #[arg(long, requires = "generate")]
        pool: Option<PathBuf>,
        /// How many of the tasks come from --pool (default: a quarter, at least 1).
        #[arg(long, requires = "pool")]
        from_pool: Option<usize>,
        /// The share of the generated tasks drawn from the private families the deployment
        /// keeps (`admin pack add`): 0 to 1; 0.75 when absent and a family is live.
        #[arg(long, requires = "generate", conflicts_with = "pool")]
        pack_share: Option<f64>,
        #[arg(long)]
        public: bool,
        #[command(flatten)]
        db: Db,
        #[command(flatten)]
        custody: CustodyArgs,
    },
    /// Take a draft live; a private set is committed to and its signed checkpoint printed.
    Activate {
        id: String,
        #[command(flatten)]
        db: Db,
        #[command(flatten)]
        custody: CustodyArgs,
    },
    /// Build next month's draft from an active private set, replacing a share of its tasks.
    Rotate {
        from: String,
        /// The new draft's id (the next month, YYYY-MM).
        #[arg(long)]
        to: String,
        /// The share of tasks replaced by fresh ones.
        #[arg(long, default_value_t = 0.25)]
        replace: f64,
        /// The share of the fresh tasks drawn from the private families the deployment keeps:
        /// 0 to 1; 0.75 when absent and a family is live.
        #[arg(long)]
        pack_share: Option<f64>,
        #[command(flatten)]
        db: Db,
        #[command(flatten)]
        custody: CustodyArgs,
    },
    /// Retire an active set; a committed one is revealed as Historical-YYYY-MM.
    Retire {
        id: String,
        #[command(flatten)]
        db: Db,
        #[command(flatten)]
        custody: CustodyArgs,
    },
    /// Delete a draft (tasks retired sets withheld only because it held them are revealed).
    Delete {
        id: String,
        #[command(flatten)]
        db: Db,
        #[command(flatten)]
        custody: CustodyArgs,
    },
    /// List the sets.
    List {
        #[command(flatten)]
        db: Db,
    },
    /// Run the anomaly detector over a set's completed submissions and print its flags.
    Analyze {
        id: String,
        #[command(flatten)]
        db: Db,
    },
    /// List the tasks of a set that were sent to vendors' own machines (hosted endpoints and
    /// standard-track models), in it or in an earlier month: which vendor, first when. The next
    /// rotation from the set replaces them first.
    Exposures {
        id: String,
        #[command(flatten)]
        db: Db,
    },
    /// Write a retired set's reveal bundle to stdout.
    Bundle {
        id: String,
        #[command(flatten)]
        db: Db,
    },
    /// Turn the months as MCPBENCH_CALENDAR says, once, now (the API does it by itself every
    /// minute): draft the month due, activate it, retire the last one, release what retired
    /// months withheld. With --dry-run, print the plan and change nothing.
    Calendar(crate::admin_calendar::CalendarCommand),
    /// Queue the baselines a live set lacks (the workers queue them by themselves on every
    /// live set; this queues again one that failed): `--agents` as MCPBENCH_BASELINES takes.
    Baselines {
        id: String,
        #[arg(long, default_value = "all", value_parser = mcpbench_config::baselines)]
        agents: mcpbench_config::Baselines,
        #[command(flatten)]
        db: Db,
    },
}

pub(crate) fn custody(args: &CustodyArgs) -> anyhow::Result<mcpbench_sets::Custody> {
    mcpbench_sets::Custody::from_args(args).map_err(anyhow::Error::msg)
}

pub async fn run(cmd: SetCommand) -> anyhow::Result<()> {
    match cmd {
        SetCommand::Create {
            id,
            from,
            generate,
            pool: pool_dir,
            from_pool,
            pack_share,
            public,
            db,
            custody: keys,
        } => {
            let custody = custody(&keys)?;
            let pool = db.connect().await?;
            match (from, generate) {
                (Some(dir), None) => {
                    let tasks = mcpbench_tasks::load_dir(&dir).map_err(|errors| {
                        let lines: Vec<String> =
                            errors.iter().take(10).map(ToString::to_string).collect();
                        anyhow::anyhow!("the tasks do not load:\n{}", lines.join("\n"))
                    })?;
                    mcpbench_sets::create(&pool, &custody, &id, &tasks, public).await?;
                    eprintln!("draft set {id:?} holds {} tasks", tasks.len());
                }
                (None, Some(count)) => {
                    if public {
                        bail!("generated sets are private; load public tasks with --from");
                    }
                    match pool_dir {
                        None => {
                            let private = mcpbench_sets::generate_draft(
                                &pool, &custody, &id, count, pack_share,
                            )
                            .await?;
                            eprintln!(
                                "draft set {id:?} holds {count} fresh tasks, {private} of them \
                                 from private families, each proven valid"
                            );
                            if private == 0 {
                                eprintln!(
                                    "warning: every task comes from the public generator, which \
                                     a script written against it can pass; add a pack of \
                                     private families (`mcpbench admin pack add DIR`)"
                                );
                            }
                        }
                        Some(dir) => {
                            let plan = mcpbench_sets::pool_draft(
                                &pool, &custody, &id, count, &dir, from_pool,
                            )
                            .await?;
                            eprintln!(
                                "draft set {id:?} holds {} fresh tasks and {} drawn from the pool \
                                 ({} were usable), each proven valid",
                                plan.generated, plan.drawn, plan.counts.usable
                            );
                        }
                    }
                }
                _ => bail!("give --from DIR or --generate N"),
            }
        }
        SetCommand::Activate {
            id,
            db,
            custody: keys,
        } => {
            let custody = custody(&keys)?;
            let pool = db.connect().await?;
            match mcpbench_sets::activate(&pool, &custody, &id).await? {
                Some(checkpoint) => {
                    eprintln!("set {id:?} is live; its signed checkpoint (keep it):");
                    print!("{checkpoint}");
                }
                None => eprintln!("public set {id:?} is live"),
            }
        }
        SetCommand::Rotate {
            from,
            to,
            replace,
            pack_share,
            db,
            custody: keys,
        } => {
            let custody = custody(&keys)?;
            let pool = db.connect().await?;
            let r = mcpbench_sets::rotate(&pool, &custody, &from, &to, replace, pack_share).await?;
            eprintln!(
                "draft set {to:?}: {} tasks kept from {from:?}, {} fresh ({} of them exposed, \
                 replaced first)",
                r.kept, r.replaced, r.exposed_replaced
            );
        }
        SetCommand::Retire {
            id,
            db,
            custody: keys,
        } => {
            let custody = custody(&keys)?;
            let pool = db.connect().await?;
            mcpbench_sets::retire(&pool, &custody, &id).await?;
            eprintln!("set {id:?} is retired");
        }
        SetCommand::Delete {
            id,
            db,
            custody: keys,
        } => {
            let custody = custody(&keys)?;
            let pool = db.connect().await?;
            mcpbench_sets::delete(&pool, &custody, &id).await?;
            eprintln!("draft {id:?} deleted");
        }
        SetCommand::List { db } => {
            let pool = db.connect().await?;
            for s in mcpbench_db::sets::list(&pool, 500).await? {
                println!(
                    "{}\t{}\t{}\t{} tasks\t{}",
                    s.id,
                    s.state,
                    if s.public { "public" } else { "private" },
                    s.tasks,
                    s.tag.unwrap_or_default()
                );
            }
        }
        SetCommand::Analyze { id, db } => {
            let pool = db.connect().await?;
            let flags = mcpbench_sets::analyze(&pool, &id).await?;
            for f in &flags {
                let on = match (&f.submission_id, &f.task_id) {
                    (Some(s), _) => format!("submission {s}"),
                    (None, Some(t)) => format!("task {t}"),
                    (None, None) => String::new(),
                };
                println!("{}\t{on}\t{}", f.kind, f.summary);
            }
            eprintln!("{} flags on set {id:?}", flags.len());
        }
        SetCommand::Exposures { id, db } => {
            let pool = db.connect().await?;
            let ids = mcpbench_db::exposures::exposed_ids(&pool, &id).await?;
            for e in mcpbench_db::exposures::held_by(&pool, &id).await? {
                println!("{}\t{}\t{}\t{}", e.task_id, e.vendor, e.set_id, e.first_at);
            }
            eprintln!(
                "{} tasks of set {id:?} exposed; a rotation from it replaces them first",
                ids.len()
            );
        }
        SetCommand::Calendar(cmd) => crate::admin_calendar::run(cmd).await?,
        SetCommand::Baselines { id, agents, db } => {
            let pool = db.connect().await?;
            let plan = mcpbench_worker::Baselines::agents(&agents.0);
            let queued = mcpbench_worker::queue_baselines(&pool, None, &id, &plan).await?;
            for (agent, submission) in &queued {
                println!("{agent}\t{submission}");
            }
            eprintln!("{} baselines queued on set {id:?}", queued.len());
        }
        SetCommand::Bundle { id, db } => {
            let pool = db.connect().await?;
            let bytes = mcpbench_sets::reveal_bundle(&pool, &id).await?;
            use std::io::Write;
            std::io::stdout().write_all(&bytes)?;
        }
    }
    Ok(())
}
