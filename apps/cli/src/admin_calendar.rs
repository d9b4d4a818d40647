//! `mcpbench admin set calendar`: the calendar's turn of the months, once, now or at a time
//! given; with `--dry-run`, only what it would do.

use crate::admin_set::{Db, custody};
use clap::Args;
use mcpbench_config::{CalendarArgs, CustodyArgs};
use mcpbench_sets::calendar::{Calendar, Tick, plan_at, tick};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

#[derive(Args)]
pub struct CalendarCommand {
    /// Print the steps due and change nothing.
    #[arg(long)]
    dry_run: bool,
    /// The time to plan for (RFC 3339, such as 2027-01-01T06:00:00Z) instead of now: what a
    /// month's turn will do, asked ahead with --dry-run.
    #[arg(long, value_parser = instant)]
    at: Option<OffsetDateTime>,
    #[command(flatten)]
    calendar: CalendarArgs,
    #[command(flatten)]
    db: Db,
    #[command(flatten)]
    custody: CustodyArgs,
}

fn instant(text: &str) -> Result<OffsetDateTime, String> {
    OffsetDateTime::parse(text, &Rfc3339).map_err(|_| {
        format!("--at must be an RFC 3339 time such as 2027-01-01T06:00:00Z, not {text:?}")
    })
}

pub async fn run(cmd: CalendarCommand) -> anyhow::Result<()> {
    let Some(calendar) = Calendar::from_args(&cmd.calendar) else {
        anyhow::bail!("MCPBENCH_CALENDAR is off: give it (or --calendar monthly:DAY:HOUR)");
    };
    let now = cmd.at.unwrap_or_else(OffsetDateTime::now_utc);
    let pool = cmd.db.connect().await?;
    if cmd.dry_run {
        let plan = plan_at(&pool, &calendar, now).await?;
        println!("due: {} ({})", plan.month, calendar.schedule);
        if plan.steps.is_empty() {
            println!("nothing to do");
        }
        for step in &plan.steps {
            println!("would {step}");
        }
        return Ok(());
    }
    let custody = custody(&cmd.custody)?;
    match tick(&pool, &custody, &calendar, now).await? {
        Tick::Busy => anyhow::bail!("another process holds the calendar; nothing was done"),
        Tick::Ran { month, done } => {
            println!("due: {month} ({})", calendar.schedule);
            if done.is_empty() {
                println!("nothing to do");
            }
            for d in &done {
                match &d.failed {
                    None => println!("done: {}", d.step),
                    Some(why) => anyhow::bail!("failed: {}: {why}", d.step),
                }
            }
        }
    }
    Ok(())
}
