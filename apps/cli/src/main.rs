//! `mcpbench`: the command line of MCPBench.

mod admin;
mod admin_set;
mod agent;
mod eval;
mod tasks;
mod up;
mod verify;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "mcpbench",
    version,
    about = "MCPBench: a benchmark of how well AI agents use MCP tools"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Generate, check and describe task sets.
    #[command(subcommand)]
    Tasks(tasks::TasksCommand),
    /// Run a task set against an agent and score it.
    Eval(eval::EvalArgs),
    /// Serve a reference agent.
    #[command(subcommand)]
    Agent(agent::AgentCommand),
    /// Run the whole service on this machine: API, worker, PostgreSQL, the dev set.
    Up(up::UpArgs),
    /// Operator commands: vendors, keys, sets.
    #[command(subcommand)]
    Admin(admin::AdminCommand),
    /// Check a retired set's reveal bundle against the commitment made at go-live.
    Verify(verify::VerifyArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Tasks(cmd) => tasks::run(cmd),
        Command::Eval(args) => eval::run(args),
        Command::Agent(cmd) => agent::run(cmd),
        Command::Up(args) => up::run(args),
        Command::Admin(cmd) => admin::run(cmd),
        Command::Verify(args) => verify::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
