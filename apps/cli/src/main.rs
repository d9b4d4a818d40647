//! `mcpbench`: the command line of MCPBench.

mod admin;
mod admin_pack;
mod admin_set;
mod agent;
mod curve;
mod eval;
mod judging;
mod tasks;
mod up;
mod vendor;
mod verify;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// mimalloc rather than the system's allocator: drawing a month from a pack runs jq, which
/// allocates and frees in every step (glibc's malloc took a third of `tasks generate --pack`),
/// and `mcpbench up` runs a worker, which builds and drops a world for every run.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    /// Vendors: keep the server and your API key for the commands below.
    Login(vendor::LoginArgs),
    /// Vendors: submit an agent (an endpoint, an image archive or a pinned image reference).
    Submit(vendor::SubmitArgs),
    /// Vendors: a submission's status, progress and scores (--watch follows it).
    Status(vendor::StatusArgs),
    /// Vendors: a submission's runs, with the exact reason of each failure.
    Runs(vendor::RunsArgs),
    /// Vendors: publish a submission's traces.
    Publish(vendor::PublishArgs),
    /// Vendors: your submissions, newest first.
    List(vendor::ListArgs),
    /// Vendors: cancel a queued or running submission.
    Cancel(vendor::CancelArgs),
    /// Vendors: forget the server and key kept on this machine.
    Logout(vendor::LogoutArgs),
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
        Command::Login(args) => vendor::login(args),
        Command::Submit(args) => vendor::submit(args),
        Command::Status(args) => vendor::status(args),
        Command::Runs(args) => vendor::runs(args),
        Command::Publish(args) => vendor::publish(args),
        Command::List(args) => vendor::list(args),
        Command::Cancel(args) => vendor::cancel(args),
        Command::Logout(args) => vendor::logout(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
