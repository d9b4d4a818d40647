//! MCPBench tasks: the JSON format, loading with errors that name the file, the task and the
//! field, the seeded generator (over any templates: the public pack's families draw the public sets), and `check`, the proof that every
//! task is solvable and that wrong solutions fail.

pub mod attack;
mod check;
mod cores;
mod describe;
pub mod difficulty;
mod distractors;
mod generate;
mod habits;
mod heuristic_run;
mod load;
mod no_skill;
mod run;
mod schema;
mod shape;
mod similarity;
mod stats;
mod task;

pub use check::{CheckReport, ServerSummary, TaskVerdict, check_dir, check_tasks};
pub use describe::servers_markdown;
pub use distractors::{Extra, Level, NEAR_DUPLICATE, extra_tools, parse_levels, with_distractors};
pub use generate::{
    DEV_SET, DEV_SET_V1, GENERATOR_VERSION, GenerateError, MAX_GOAL_SIMILARITY, Manifest, Source,
    check_set_id, dress, generate_from, generated_set_id, task_file_bytes, write_generated,
};
pub use habits::unguarded_repeats;
pub use heuristic_run::{agent_passes, heuristic_passes, shown_tools};
pub use load::{LoadError, load_dir, load_task, parse_task};
pub use no_skill::{STRATEGIES, tricks_passing};
pub use run::{CUT, CallOutcome, MAX_ARGUMENT_BYTES, TaskRun, argument_bytes, cut};
pub use schema::task_schema;
pub use shape::{Shape, first_dependence, shape};
pub use similarity::{GoalIndex, closest_goal, goal_similarity};
pub use stats::{NoSkill, SetStats, Similarity, Spread, Target, stats, targets};
pub use task::{Task, TemplateRef};

pub use attack::{TWIN_SUFFIX, plant_twin, twin_problems};
pub use mcpbench_sim::{Call, Category, Difficulty, Fault, Pred, Step};
pub use mcpbench_world::{Atom, Attack, AttackKind, InitialState, SERVERS};
