//! `mcpbench admin pack ...`: the private packs a deployment keeps (docs/packs.md).

use crate::admin_set::{Db, custody};
use clap::Subcommand;
use mcpbench_config::CustodyArgs;
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum PackCommand {
    /// Prove every family of the pack in DIR over many draws, then store the pack sealed at
    /// rest (its files in clear nowhere, only their hashes); print its name and hash.
    Add {
        dir: PathBuf,
        /// Draws per family in the proof.
        #[arg(long, default_value_t = mcpbench_sets::ADD_DRAWS as u32,
              value_parser = clap::value_parser!(u32).range(1..=10_000))]
        draws: u32,
        #[command(flatten)]
        db: Db,
        #[command(flatten)]
        custody: CustodyArgs,
    },
    /// List the stored packs: name, hash, families, retired families.
    List {
        #[command(flatten)]
        db: Db,
    },
    /// Retire a family: no month draws from it again, and its file is published in clear (with
    /// the pack's pack.json and lib.jq once every family of the pack is retired).
    Retire {
        pack: String,
        family: String,
        #[command(flatten)]
        db: Db,
        #[command(flatten)]
        custody: CustodyArgs,
    },
}

pub async fn run(cmd: PackCommand) -> anyhow::Result<()> {
    match cmd {
        PackCommand::Add {
            dir,
            draws,
            db,
            custody: keys,
        } => {
            let custody = custody(&keys)?;
            let pool = db.connect().await?;
            let p = mcpbench_sets::add_pack(&pool, &custody, &dir, draws as usize).await?;
            eprintln!(
                "pack {:?} stored sealed: {} families, each proven over {draws} draws",
                p.name, p.families
            );
            println!("{} sha256:{}", p.name, p.sha256);
        }
        PackCommand::List { db } => {
            let pool = db.connect().await?;
            for p in mcpbench_sets::list_packs(&pool).await? {
                println!(
                    "{:<24} sha256:{} families {:>4} retired {:>4} added {}",
                    p.name,
                    p.sha256,
                    p.families,
                    p.retired,
                    p.added_at.date()
                );
            }
        }
        PackCommand::Retire {
            pack,
            family,
            db,
            custody: keys,
        } => {
            let custody = custody(&keys)?;
            let pool = db.connect().await?;
            mcpbench_sets::retire_family(&pool, &custody, &pack, &family).await?;
            eprintln!("family {family} of pack {pack} is retired and its file published");
        }
    }
    Ok(())
}
