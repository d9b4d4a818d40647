//! `mcpbench tasks ...`

use anyhow::{Context, bail};
use clap::Subcommand;
use mcpbench_pack::{
    Pack, PackReport, check_families, draw_tasks, generate_public, public_templates,
};
use mcpbench_tasks::{
    CheckReport, SetStats, Source, Task, check_dir, check_set_id, generate_from, generated_set_id,
    load_dir, servers_markdown, stats, targets, task_schema, write_generated,
};
use std::path::Path;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Seeds stay within +-2^53 so that they survive canonical JSON.
const MAX_SEED: u64 = 1 << 53;

#[derive(Subcommand)]
pub enum TasksCommand {
    /// Generate a task set from a seed (the same seed always gives the same files).
    Generate {
        #[arg(long)]
        seed: u64,
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 200)]
        count: usize,
        /// The set id written into manifest.json, which `admin load-set` publishes the set
        /// under (default `generated-<seed>`; the dev set is generated with `--set dev-v2`).
        #[arg(long)]
        set: Option<String>,
        /// Draw every task from the families of this pack (docs/packs.md) instead of the
        /// public generator's templates.
        #[arg(long)]
        pack: Option<PathBuf>,
    },
    /// Prove every task of a directory valid, or with --pack every family of a pack over many
    /// draws; exits 1 naming each invalid task or family.
    Check {
        /// A directory of task files (not with --pack).
        #[arg(required_unless_present = "pack", conflicts_with = "pack")]
        dir: Option<PathBuf>,
        /// A pack: each family is drawn --draws times and every draw proven.
        #[arg(long)]
        pack: Option<PathBuf>,
        /// Draws per family (with --pack).
        #[arg(long, default_value_t = 40, requires = "pack", value_parser = clap::value_parser!(u32).range(1..=10_000))]
        draws: u32,
        /// The seed the draws come from (with --pack).
        #[arg(long, default_value_t = 1, requires = "pack")]
        seed: u64,
        /// Only this family of the pack (with --pack).
        #[arg(long, requires = "pack")]
        family: Option<String>,
        /// Also write every draw, dressed as it was proven, as a task file in this directory
        /// (`<family>-<draw>.json`), to read or check a failing draw (with --pack).
        #[arg(long, requires = "pack")]
        write: Option<PathBuf>,
        /// Print the report as JSON on stdout.
        #[arg(long)]
        json: bool,
    },
    /// How demanding a set is: reference lengths, servers, tools shown, goals that give the
    /// answer away, no-skill passes, each beside the target a set worth ranking on meets.
    Stats {
        dir: PathBuf,
        /// Compare goals with another set (a private month against the public dev set).
        #[arg(long)]
        against: Option<PathBuf>,
        /// Print the figures as JSON on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Print the JSON Schema of the task format.
    Schema,
    /// Print every server's tools and predicates as Markdown (docs/servers.md).
    Servers,
}

pub fn run(cmd: TasksCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        TasksCommand::Generate {
            seed,
            out,
            count,
            set,
            pack,
        } => {
            if seed > MAX_SEED {
                bail!(
                    "--seed must be at most 2^53 ({MAX_SEED}) so that it survives canonical JSON"
                );
            }
            if count == 0 || count > 100_000 {
                bail!("--count must be between 1 and 100000");
            }
            let set = set.unwrap_or_else(|| generated_set_id(seed));
            check_set_id(&set).map_err(anyhow::Error::msg)?;
            let started = Instant::now();
            let m = match pack {
                None => write_generated(
                    &out,
                    &set,
                    seed,
                    count,
                    |seed, count| generate_public(seed, count, &[]),
                    None,
                ),
                Some(dir) => {
                    let pack = read_pack(&dir)?;
                    let families = pack.templates();
                    let public = public_templates();
                    write_generated(
                        &out,
                        &set,
                        seed,
                        count,
                        |seed, count| {
                            generate_from(&Source::new(&families, public), seed, count, &[])
                        },
                        Some(pack.label()),
                    )
                }
            }
            .with_context(|| format!("writing the set to {}", out.display()))?;
            eprintln!(
                "wrote {} tasks and manifest.json (set {}) to {} in {:.2?}",
                m.count,
                m.set,
                out.display(),
                started.elapsed()
            );
            Ok(ExitCode::SUCCESS)
        }
        TasksCommand::Check {
            pack: Some(pack),
            draws,
            seed,
            family,
            write,
            json,
            ..
        } => {
            let started = Instant::now();
            let pack = read_pack(&pack)?;
            let wanted = |id: &str| family.as_deref().is_none_or(|f| f == id);
            if !pack.families.iter().any(|f| wanted(&f.family.id)) {
                bail!("the pack has no family {:?}", family.unwrap_or_default());
            }
            if let Some(out) = &write {
                write_draws(&pack, draws as usize, seed, &wanted, out)?;
            }
            let report = check_families(&pack, draws as usize, seed, wanted);
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print_pack_report(&report);
                println!("checked in {:.2?}", started.elapsed());
            }
            Ok(if report.ok() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        TasksCommand::Check { dir, json, .. } => {
            let dir = dir.expect("clap requires a directory without --pack");
            if !dir.is_dir() {
                bail!("{} is not a directory", dir.display());
            }
            let started = Instant::now();
            let report = check_dir(&dir);
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print_report(&report);
                println!("checked in {:.2?}", started.elapsed());
            }
            Ok(if report.ok() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        TasksCommand::Stats { dir, against, json } => {
            let tasks = load(&dir)?;
            let other = against.as_deref().map(load).transpose()?;
            let s = stats(&tasks, other.as_deref()).with_script(&tasks, mcpbench_script::passes);
            if json {
                println!("{}", serde_json::to_string_pretty(&s)?);
            } else {
                print_stats(&s);
            }
            Ok(ExitCode::SUCCESS)
        }
        TasksCommand::Servers => {
            print!("{}", servers_markdown());
            Ok(ExitCode::SUCCESS)
        }
        TasksCommand::Schema => {
            println!("{}", serde_json::to_string_pretty(&task_schema())?);
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Writes every draw of the wanted families, dressed, as task files in `out`.
fn write_draws(
    pack: &Pack,
    draws: usize,
    seed: u64,
    wanted: &dyn Fn(&str) -> bool,
    out: &Path,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let public = public_templates();
    for f in pack.families.iter().filter(|f| wanted(&f.family.id)) {
        let (tasks, failures) = draw_tasks(f, draws, seed, public);
        for t in &tasks {
            let path = out.join(format!("{}.json", t.id));
            std::fs::write(&path, mcpbench_tasks::task_file_bytes(t))
                .with_context(|| format!("writing {}", path.display()))?;
        }
        for failure in failures {
            eprintln!("{}: {failure}", f.family.id);
        }
    }
    Ok(())
}

/// Reads and compiles a pack, or says every problem found.
fn read_pack(dir: &Path) -> anyhow::Result<Pack> {
    if !dir.is_dir() {
        bail!("{} is not a directory", dir.display());
    }
    Pack::read(dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))
}

fn print_pack_report(r: &PackReport) {
    println!("pack {} sha256:{}", r.pack, r.sha256);
    println!(
        "{:<32} {:<28} {:>6} {:>6} {:>6} {:>16} {:>6}",
        "family", "servers", "draws", "drawn", "valid", "mutants killed", "goals"
    );
    for f in &r.families {
        println!(
            "{:<32} {:<28} {:>6} {:>6} {:>6} {:>9}/{:<6} {:>6}",
            f.family,
            f.servers.join("+"),
            f.draws,
            f.drawn,
            f.valid,
            f.killed,
            f.mutants,
            f.distinct_goals
        );
    }
    for f in r.families.iter().filter(|f| !f.ok()) {
        for p in &f.problems {
            println!("FAIL {}: {p}", f.family);
        }
        if f.problem_count > f.problems.len() {
            println!(
                "FAIL {}: ... and {} more",
                f.family,
                f.problem_count - f.problems.len()
            );
        }
    }
    let bad = r.families.iter().filter(|f| !f.ok()).count();
    if bad == 0 {
        println!("\nall {} families valid over every draw", r.families.len());
    } else {
        println!(
            "\n{bad} famil{} with problems; the pack is not valid",
            if bad == 1 { "y" } else { "ies" }
        );
    }
}

fn print_report(r: &CheckReport) {
    println!(
        "{:<12} {:>6} {:>6} {:>16}",
        "server", "tasks", "valid", "mutants killed"
    );
    for s in &r.by_server {
        println!(
            "{:<12} {:>6} {:>6} {:>9}/{:<6}",
            s.server, s.tasks, s.valid, s.killed, s.mutants
        );
    }
    let rate = r
        .kill_rate
        .map_or("n/a".into(), |k| format!("{:.1}%", k * 100.0));
    println!(
        "{:<12} {:>6} {:>6} {:>9}/{:<6} kill rate {rate}",
        "total", r.tasks, r.valid, r.killed, r.mutants
    );
    let survivors: Vec<(&str, &String)> = r
        .verdicts
        .iter()
        .flat_map(|v| v.survivors.iter().map(move |s| (v.id.as_str(), s)))
        .collect();
    if !survivors.is_empty() {
        println!("\nsurviving mutants ({}):", survivors.len());
        for (id, s) in survivors {
            println!("  {id}: {s}");
        }
    }
    for e in &r.load_errors {
        println!("FAIL {e}");
    }
    for v in r.verdicts.iter().filter(|v| !v.problems.is_empty()) {
        for p in &v.problems {
            println!("FAIL {}: {p}", v.id);
        }
    }
    if r.ok() {
        println!("\nall {} tasks valid", r.tasks);
    } else {
        let bad =
            r.load_errors.len() + r.verdicts.iter().filter(|v| !v.problems.is_empty()).count();
        println!("\n{bad} problem(s); the set is not valid");
    }
}

fn load(dir: &Path) -> anyhow::Result<Vec<Task>> {
    if !dir.is_dir() {
        bail!("{} is not a directory", dir.display());
    }
    load_dir(dir).map_err(|errors| {
        let shown: Vec<String> = errors.iter().take(10).map(ToString::to_string).collect();
        anyhow::anyhow!(
            "{} does not load ({} errors; `mcpbench tasks check` names them all):\n{}",
            dir.display(),
            errors.len(),
            shown.join("\n")
        )
    })
}

fn print_stats(s: &SetStats) {
    println!("{} tasks", s.tasks);
    if !s.attacked.is_empty() {
        let kinds: Vec<String> = (s.attacked.iter())
            .map(|(kind, n)| format!("{kind} {n}"))
            .collect();
        println!(
            "and {} attacked twins, measured apart (security): {}",
            s.attacked.values().sum::<usize>(),
            kinds.join(", ")
        );
    }
    println!("{:<40} {:>22}  target", "figure", "this set");
    for t in targets(s) {
        println!(
            "{:<40} {:>22}  {} {}",
            t.figure,
            t.value,
            t.target,
            if t.met { "ok" } else { "MISSED" }
        );
    }
    println!();
    println!(
        "reference calls: min {}, p25 {}, median {}, p75 {}, max {}",
        s.reference_calls.min,
        s.reference_calls.p25,
        s.reference_calls.median,
        s.reference_calls.p75,
        s.reference_calls.max
    );
    let split: Vec<String> = s
        .by_difficulty
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    let computed: Vec<String> = s
        .by_computed_difficulty
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    println!(
        "difficulty declared: {}; computed: {} ({} of {} agree)",
        split.join(", "),
        computed.join(", "),
        s.difficulty_agrees,
        s.tasks
    );
    for n in &s.no_skill {
        println!(
            "no skill: {:<48} passes {:>3}  {}",
            n.strategy,
            n.passes,
            n.examples.join(" ")
        );
    }
    println!(
        "heuristic agent: passes {} of {} ({:.0}%)  {}",
        s.heuristic_passes.len(),
        s.tasks,
        s.heuristic_pass_rate * 100.0,
        s.heuristic_passes[..s.heuristic_passes.len().min(10)].join(" ")
    );
    let repeats = &s.unguarded_repeats;
    println!(
        "writes made twice unnoticed: {} of {}  {}",
        repeats.len(),
        s.tasks,
        repeats[..repeats.len().min(10)].join(" ")
    );
    if let (Some(rate), Some(passes)) = (s.script_pass_rate, &s.script_passes) {
        println!(
            "script baseline: passes {} of {} ({:.0}%)  {}",
            passes.len(),
            s.tasks,
            rate * 100.0,
            passes[..passes.len().min(10)].join(" ")
        );
    }
    if let Some(sim) = &s.similarity
        && let Some((here, there)) = &sim.closest
    {
        println!("closest goals: {here} ~ {there} ({:.2})", sim.max);
    }
}
