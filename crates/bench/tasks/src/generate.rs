//! The seeded generator, over any templates ([`generate_from`]: the public pack's families
//! draw the public sets). Task `i` of a set draws from its own stream `Rng::new(seed, i)`, and
//! the plan of which template fills slot `i` is a pure function of `i` and earlier choices, so
//! a set regenerates bit for bit from `(seed, count, GENERATOR_VERSION)`.
//!
//! Goals are unique within a set as far as the templates allow, and no strategy without skill
//! passes a task (either makes the slot draw again, up to 50 times).
//!
//! A family that draws an attack (the security category) gives its task and the task's
//! attacked twin (`<id>-attacked`, [`crate::attack::plant_twin`]) right after it, so such a
//! set holds a twin beside `count` tasks.
//!
//! Balance: servers take turns (slot `i` is filed under server `i mod 10`); within a server,
//! its `k`-th task takes the category `MIX[k mod 5]` (a fifth single-tool, two fifths
//! composition, two fifths recovery) and a family its authors expect of the difficulty
//! `k mod 3`, so every fifteen tasks go through all fifteen pairs. A task's published
//! `difficulty` is then the computed one ([`crate::difficulty`], from version 12), which
//! splits a set in about thirds. Every composition slot and one recovery slot in two prefer a
//! template across servers, which puts about three fifths of a set on two or three servers;
//! those recovery slots prefer a long one (fanned-out work with a fault in the middle).
//! Among the templates that fit a slot, the least used so far wins, ties broken by the
//! slot's stream.

use crate::task::Task;
use mcpbench_sim::{Category, Difficulty, Rng};
use mcpbench_world::{AnyTemplate, SERVERS, qualified_tools};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Bumped whenever the same seed would give different tasks. From version 11 the public sets
/// are drawn from the public pack (`mcpbench_pack::generate_public`, families as data); the
/// templates in Rust drew the sets of version 10 and earlier (they left this crate with
/// version 14). Version 12
/// labels each task with its computed difficulty and draws postgres schemas per task; version
/// 13 draws whether a fallback's first choice is blocked (before, it always was); version 14
/// draws triage handles, the place of the wanted report and who-posted's wording and decoys;
/// version 15 gives each task of a family with an attack its attacked twin (the security
/// category), the tasks drawn otherwise as in version 14.
pub const GENERATOR_VERSION: &str = "15";

/// The id the public dev set is published under. A set id names one list of tasks for good:
/// when the generator's dev set changes, so does this id, and the results run on the old set
/// stay under the old id (the store refuses other tasks under an id that has runs).
pub const DEV_SET: &str = "dev-v2-12";

/// The id of dev sets whose manifest names none: benchmark version 1.
pub const DEV_SET_V1: &str = "dev";

/// The categories a server's tasks take in turn: one in five asks for a single call, two for
/// work across servers, two for recovering from an error on the way.
const MIX: [Category; 5] = [
    Category::SingleTool,
    Category::Composition,
    Category::Recovery,
    Category::Composition,
    Category::Recovery,
];

/// How often a slot may draw again to get a goal not yet in the set.
const MAX_REDRAWS: u64 = 50;

/// `manifest.json` of a generated set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The id the set is published under ([`DEV_SET_V1`] when absent).
    #[serde(default = "dev_set_v1")]
    pub set: String,
    pub seed: u64,
    pub generator_version: String,
    pub count: usize,
    /// The pack the set's families came from (`<name> sha256:<hex>`), when not the public
    /// generator's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pack: Option<String>,
    /// The ids of the set, in generation order.
    pub tasks: Vec<String>,
}

fn dev_set_v1() -> String {
    DEV_SET_V1.into()
}

impl Manifest {
    /// The manifest of the set in `dir`, if it has one.
    pub fn read(dir: &Path) -> std::io::Result<Option<Manifest>> {
        match std::fs::read_to_string(dir.join("manifest.json")) {
            Ok(text) => serde_json::from_str(&text)
                .map(Some)
                .map_err(std::io::Error::other),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// Goals closer than this (Jaccard similarity of word 3-shingles) to a goal to avoid count as
/// the same goal.
pub const MAX_GOAL_SIMILARITY: f64 = 0.9;

/// What a set is drawn from: the templates its slots take, and those that give its
/// distractor servers their worlds (the public templates, whatever the slots take).
#[derive(Clone, Copy)]
pub struct Source<'a> {
    pub templates: &'a [AnyTemplate],
    pub distractors: &'a [AnyTemplate],
}

impl<'a> Source<'a> {
    pub fn new(templates: &'a [AnyTemplate], distractors: &'a [AnyTemplate]) -> Self {
        Self {
            templates,
            distractors,
        }
    }
}

/// Why a set could not be generated: a template that failed every draw of a slot.
#[derive(Debug, thiserror::Error)]
#[error("slot {slot}: template {template} failed every draw; the last: {reason}")]
pub struct GenerateError {
    pub slot: usize,
    pub template: String,
    pub reason: String,
}

/// `count` tasks from `seed` over the templates of `source` (a pack's families), none of whose
/// goals repeats or comes nearer than [`MAX_GOAL_SIMILARITY`] to a goal of `avoid` (a private
/// month drawn apart from the public goals): a slot whose goal comes too near draws again, as a
/// repeated goal does. A family can fail to draw (a `require` that never holds), and a slot
/// whose every draw fails is an error naming its template.
pub fn generate_from(
    source: &Source,
    seed: u64,
    count: usize,
    avoid: &[String],
) -> Result<Vec<Task>, GenerateError> {
    let avoid = crate::similarity::GoalIndex::new(avoid);
    let all = source.templates;
    if all.is_empty() {
        return Err(GenerateError {
            slot: 0,
            template: "(none)".into(),
            reason: "there is no template to draw from".into(),
        });
    }
    let longs = long_templates(all);
    let width = count.saturating_sub(1).to_string().len().max(4);
    // First, in order (each slot's template depends on how often the earlier slots took
    // theirs), every slot's template and first draw: cheap, from the slot's own stream.
    let mut usage: BTreeMap<&str, usize> = BTreeMap::new();
    let slots: Vec<Slot> = (0..count)
        .map(|i| {
            let server = SERVERS[i % SERVERS.len()];
            let k = i / SERVERS.len();
            let category = MIX[k % MIX.len()];
            let difficulty = Difficulty::ALL[k % 3];
            let multi = category == Category::Composition
                || (category == Category::Recovery && k % MIX.len() == 4);
            // The recovery slots across servers take the long templates (a fault in the middle
            // of fanned-out work); composition slots take any template across servers.
            let long = multi && category == Category::Recovery;
            let mut rng = Rng::new(seed, i as u64);
            let wish = Wish {
                server,
                category,
                difficulty,
                multi,
                long,
            };
            let template = choose(all, &longs, &usage, &mut rng, wish);
            *usage.entry(template.id.as_str()).or_default() += 1;
            // A template that does not list the slot's server (a pack without one for it)
            // files the task under its own first server.
            let server = if template.servers.contains(&server) {
                server
            } else {
                template.servers[0]
            };
            let mut slot = Slot {
                i,
                server,
                category,
                template,
                width,
                first: None,
            };
            slot.first = Some(slot.draw(template, &mut rng));
            slot
        })
        .collect();
    // Then, on every core, each first draw dressed and tried against the strategies without
    // skill: the costly part (a world built per task), and the same whatever came before.
    let proved = crate::cores::on_all_cores(&slots, |slot| {
        let mut task = slot.first.clone().expect("drawn above").ok()?;
        slot.dress(&mut task, source.distractors, seed);
        let tricked = tricked(&task);
        Some((task, tricked))
    });
    // Last, in order again, the goals kept apart: a slot draws again from further streams of
    // its own while its goal came up before (or comes near a goal to avoid) or a strategy
    // without skill passes it (a number question whose answer the goal happens to state,
    // say): unique goals unless a template's space is too small for the set, and no task a
    // trick passes. After the last redraw the slot keeps what it drew.
    let mut goals = std::collections::BTreeSet::new();
    let repeats = |task: &Task, goals: &std::collections::BTreeSet<String>| {
        goals.contains(&task.goal) || avoid.near(&task.goal, MAX_GOAL_SIMILARITY)
    };
    let mut out = Vec::with_capacity(count);
    for (mut slot, proved) in slots.into_iter().zip(proved) {
        let mut first_proved = proved;
        let i = slot.i as u64;
        let mut drawn = slot.first.take().expect("drawn above");
        let mut retry = 0;
        let mut last_failure = None;
        let (mut task, taken) = loop {
            match drawn {
                Err(reason) => last_failure = Some(reason),
                Ok(mut task) => {
                    let repeated = repeats(&task, &goals);
                    if !repeated {
                        let passed_by_trick = match first_proved.take() {
                            Some((dressed, tricked)) if retry == 0 => {
                                task = dressed;
                                tricked
                            }
                            _ => {
                                slot.dress(&mut task, source.distractors, seed);
                                tricked(&task)
                            }
                        };
                        if !passed_by_trick {
                            break (task, false);
                        }
                    }
                    if retry == MAX_REDRAWS {
                        if repeated {
                            slot.dress(&mut task, source.distractors, seed);
                        }
                        break (task, true);
                    }
                }
            }
            if retry == MAX_REDRAWS {
                return Err(GenerateError {
                    slot: slot.i,
                    template: slot.template.id.clone(),
                    reason: last_failure.unwrap_or_default(),
                });
            }
            retry += 1;
            drawn = slot.draw(slot.template, &mut Rng::new(seed, i | (retry << 40)));
        };
        // A private month must not come near a public goal: when the slot's template has
        // no goal left that is far enough, another template that fits the slot is tried.
        // (Never with nothing to avoid, so `generate` is unchanged.)
        if !avoid.is_empty() && taken {
            let others = all.iter().filter(|t| {
                t.id != slot.template.id
                    && t.servers.contains(&slot.server)
                    && t.category == slot.category
            });
            for (k, other) in others.enumerate() {
                let Ok(mut candidate) =
                    slot.draw(other, &mut Rng::new(seed, i | ((k as u64 + 1) << 48)))
                else {
                    continue;
                };
                slot.dress(&mut candidate, source.distractors, seed);
                if !repeats(&candidate, &goals) && !tricked(&candidate) {
                    task = candidate;
                    break;
                }
            }
        }
        goals.insert(task.goal.clone());
        // The label is what the task asks, dressed as it is published (its tools shown, its
        // reference's hops), not what its family's authors expected.
        task.difficulty = crate::difficulty::computed(&task).difficulty;
        // A family's attack goes into a twin beside the task, dressed as it is, so that the
        // two differ only by what was planted (the security category's pairs).
        let twin = match task.unplanted.take() {
            Some(attack) => {
                Some(
                    crate::attack::plant_twin(&task, &attack).map_err(|reason| GenerateError {
                        slot: slot.i,
                        template: slot.template.id.clone(),
                        reason: format!("its attack: {reason}"),
                    })?,
                )
            }
            None => None,
        };
        out.push(task);
        out.extend(twin);
    }
    Ok(out)
}

/// One slot of a generated set: its place, its server and category, its template, and its
/// first draw.
struct Slot<'a> {
    i: usize,
    server: &'static str,
    category: Category,
    template: &'a AnyTemplate,
    /// The digits of a task id's number.
    width: usize,
    first: Option<Result<Task, String>>,
}

impl Slot<'_> {
    /// A task drawn bare from `template` (no distractors, no backgrounds), or why the draw
    /// failed.
    fn draw(&self, template: &AnyTemplate, rng: &mut Rng) -> Result<Task, String> {
        let name = template
            .id
            .split_once('.')
            .map_or(template.id.as_str(), |(_, s)| s)
            .replace(['_', '.'], "-");
        let id = format!(
            "{}-{name}-{:0width$}",
            mcpbench_world::short_name(self.server).unwrap_or("task"),
            self.i,
            width = self.width
        );
        let body = template.try_build(rng)?;
        Ok(Task::from_body(id, self.server, &template.id, body))
    }

    /// Dresses a drawn task with its distractor servers and backgrounds, from a stream of the
    /// slot's own, the same for every redraw.
    fn dress(&self, task: &mut Task, all: &[AnyTemplate], seed: u64) {
        widen(task, all, &mut Rng::new(seed, self.i as u64 | (1 << 56)));
    }
}

/// Whether a strategy without skill passes the task.
fn tricked(task: &Task) -> bool {
    !crate::no_skill::tricks_passing(task).is_empty()
}

/// Dresses a bare task as the generator does, from `rng`: its distractor servers (worlds drawn
/// by `distractors`' templates of each) and every server's background. For proving a family
/// over many draws in the worlds its tasks will meet.
pub fn dress(task: &mut Task, distractors: &[AnyTemplate], rng: &mut Rng) {
    widen(task, distractors, rng);
}

/// The tool surface a real agent faces: every tool of the task's servers, and one to three
/// servers the task does not need, each with its whole catalogue and a world drawn by one of
/// its own templates (so it looks like any other server's); and worlds at a real scale, each
/// server given the background history it furnishes. Drawn from a stream of its own,
/// after the task, so the choice of templates and goals is the same as without it.
fn widen(task: &mut Task, all: &[AnyTemplate], rng: &mut Rng) {
    let spare: Vec<&str> = SERVERS
        .iter()
        .copied()
        .filter(|s| !task.servers.iter().any(|x| x == s))
        .collect();
    let count = (1 + rng.below(3) as usize).min(spare.len());
    let mut distractors = rng.sample(&spare, count);
    distractors.sort_by_key(|s| SERVERS.iter().position(|x| x == s));
    for server in &distractors {
        let own: Vec<&AnyTemplate> = all.iter().filter(|t| t.servers == [*server]).collect();
        // The public families give every server one of its own; a distractor world is drawn
        // by them whatever the slots take. A family's draw can fail (a `require` that does
        // not hold), and then the next pick draws again.
        let body = (0..MAX_REDRAWS)
            .find_map(|_| rng.pick(&own).try_build(rng).ok())
            .unwrap_or_else(|| panic!("no family of {server} drew a world in {MAX_REDRAWS} tries"));
        task.initial_state.take_server(server, body.initial_state);
    }
    task.distractor_servers = distractors.iter().map(|s| s.to_string()).collect();
    // Then every server's history beside the task (a mailbox's months of mail, ...).
    task.initial_state.furnish(rng);
    task.available_tools = qualified_tools(task.offered_servers().iter().map(String::as_str));
}

/// A slot's wishes for its template.
#[derive(Clone, Copy)]
struct Wish<'a> {
    server: &'a str,
    category: Category,
    difficulty: Difficulty,
    /// A template across servers.
    multi: bool,
    /// A long template: one whose sample reference is at least [`LONG_CALLS`] calls.
    long: bool,
}

/// A reference this long or longer makes a template long.
const LONG_CALLS: usize = 5;

/// The ids of the templates whose task from a fixed stream has a shortest reference of
/// [`LONG_CALLS`] calls or more: a property of the template (its fan-out), not of a draw.
fn long_templates(all: &[AnyTemplate]) -> std::collections::BTreeSet<&str> {
    all.iter()
        .filter(|t| {
            let Ok(body) = t.try_build(&mut Rng::new(0, 0)) else {
                return false;
            };
            let calls =
                |r: &Vec<mcpbench_sim::Step>| r.iter().filter(|s| s.as_call().is_some()).count();
            body.reference_solutions
                .iter()
                .map(calls)
                .min()
                .unwrap_or(0)
                >= LONG_CALLS
        })
        .map(|t| t.id.as_str())
        .collect()
}

fn choose<'a>(
    all: &'a [AnyTemplate],
    long: &std::collections::BTreeSet<&str>,
    usage: &BTreeMap<&str, usize>,
    rng: &mut Rng,
    wish: Wish,
) -> &'a AnyTemplate {
    let Wish {
        server,
        category,
        difficulty,
        multi,
        long: want_long,
    } = wish;
    let fits: Vec<&AnyTemplate> = all
        .iter()
        .filter(|t| t.servers.contains(&server) && t.category == category)
        .collect();
    let mixed = |t: &AnyTemplate| {
        t.is_multi_server() == multi && (!want_long || long.contains(t.id.as_str()))
    };
    // Relax the wishes one at a time: all, then the length, then the server mix, then the
    // difficulty.
    let wishes: [&dyn Fn(&AnyTemplate) -> bool; 5] = [
        &|t| mixed(t) && t.difficulty == difficulty,
        &|t| mixed(t),
        &|t| t.is_multi_server() == multi,
        &|t| t.difficulty == difficulty,
        &|_| true,
    ];
    // The public templates fit every slot; a pack may have none for a server or a category,
    // and then the slot takes one of the server's, or any at all.
    let pool = wishes
        .iter()
        .map(|w| fits.iter().copied().filter(|t| w(t)).collect::<Vec<_>>())
        .find(|p| !p.is_empty())
        .or_else(|| {
            let own: Vec<&AnyTemplate> =
                all.iter().filter(|t| t.servers.contains(&server)).collect();
            (!own.is_empty()).then_some(own)
        })
        .unwrap_or_else(|| all.iter().collect());
    let least = pool
        .iter()
        .map(|t| usage.get(t.id.as_str()).copied().unwrap_or(0))
        .min()
        .unwrap_or(0);
    let tied: Vec<&AnyTemplate> = pool
        .into_iter()
        .filter(|t| usage.get(t.id.as_str()).copied().unwrap_or(0) == least)
        .collect();
    tied[rng.below(tied.len() as u64) as usize]
}

/// The bytes of a task file: pretty JSON and a final newline.
pub fn task_file_bytes(task: &Task) -> String {
    let mut text = serde_json::to_string_pretty(task).expect("tasks serialize");
    text.push('\n');
    text
}

/// Whether `id` can name a set: 1 to 40 ASCII letters, digits and `-` (the store's rule; the
/// id goes into URLs and file names).
pub fn check_set_id(id: &str) -> Result<(), String> {
    let ok_char = |c: char| c.is_ascii_alphanumeric() || c == '-';
    if (1..=40).contains(&id.len()) && id.chars().all(ok_char) {
        Ok(())
    } else {
        Err(format!(
            "set id {id:?} must be 1 to 40 ASCII letters, digits or '-'"
        ))
    }
}

/// The set id a generated set gets when none is asked for: never the dev set's, so that a
/// set generated for a try is not published over the dev set by mistake.
pub fn generated_set_id(seed: u64) -> String {
    format!("generated-{seed}")
}

/// Writes a set drawn by `draw` (from a pack) to `dir` under the set id `set`: one `<id>.json`
/// per task and `manifest.json`, which records `pack`. A directory holding an earlier
/// generated set has that set's files replaced; any other task-like file there is left alone
/// and makes this refuse, so nothing hand-written is lost.
pub fn write_generated(
    dir: &Path,
    set: &str,
    seed: u64,
    count: usize,
    draw: impl FnOnce(u64, usize) -> Result<Vec<Task>, GenerateError>,
    pack: Option<String>,
) -> std::io::Result<Manifest> {
    check_set_id(set).map_err(std::io::Error::other)?;
    std::fs::create_dir_all(dir)?;
    let manifest_path = dir.join("manifest.json");
    let old: Vec<String> = Manifest::read(dir)?.map(|m| m.tasks).unwrap_or_default();
    for f in crate::load::task_files(dir)? {
        let stem = f
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        if !old.contains(&stem) {
            return Err(std::io::Error::other(format!(
                "{} is not part of a generated set; refusing to write a set beside it",
                f.display()
            )));
        }
    }
    let tasks = draw(seed, count).map_err(std::io::Error::other)?;
    for id in &old {
        std::fs::remove_file(dir.join(format!("{id}.json"))).or_else(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Ok(())
            } else {
                Err(e)
            }
        })?;
    }
    for t in &tasks {
        std::fs::write(dir.join(format!("{}.json", t.id)), task_file_bytes(t))?;
    }
    let manifest = Manifest {
        set: set.into(),
        seed,
        generator_version: GENERATOR_VERSION.into(),
        count,
        pack,
        tasks: tasks.iter().map(|t| t.id.clone()).collect(),
    };
    let mut text = serde_json::to_string_pretty(&manifest).map_err(std::io::Error::other)?;
    text.push('\n');
    std::fs::write(manifest_path, text)?;
    Ok(manifest)
}
