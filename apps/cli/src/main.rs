//! `mcpbench`: the command line of MCPBench.

mod admin;
mod admin_calendar;
mod admin_pack;
mod admin_set;
mod agent;
mod curve;
mod eval;
mod eval_image;
mod judging;
mod remote;
mod tasks;
mod up;
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
    Login(remote::LoginArgs),
    /// Vendors: submit an agent (an endpoint, an image archive or a pinned image reference).
    Submit(remote::SubmitArgs),
    /// Vendors: a submission's status, progress and scores (--watch follows it).
    Status(remote::StatusArgs),
    /// Vendors: a submission's runs, with the exact reason of each failure.
    Runs(remote::RunsArgs),
    /// Vendors: publish a submission's traces.
    Publish(remote::PublishArgs),
    /// Vendors: your submissions, newest first.
    List(remote::ListArgs),
    /// Vendors: cancel a queued or running submission.
    Cancel(remote::CancelArgs),
    /// Vendors: take a completed submission off the board for good (its record stays).
    Withdraw(remote::WithdrawArgs),
    /// Vendors: a new API key in place of the one kept here (the old one works for a grace
    /// period).
    RotateKey(remote::RotateKeyArgs),
    /// Vendors: forget the server and key kept on this machine.
    Logout(remote::LogoutArgs),
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
        Command::Login(args) => remote::login(args),
        Command::Submit(args) => remote::submit(args),
        Command::Status(args) => remote::status(args),
        Command::Runs(args) => remote::runs(args),
        Command::Publish(args) => remote::publish(args),
        Command::List(args) => remote::list(args),
        Command::Cancel(args) => remote::cancel(args),
        Command::Withdraw(args) => remote::withdraw(args),
        Command::RotateKey(args) => remote::rotate_key(args),
        Command::Logout(args) => remote::logout(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
