//! Tasks under attack (`mcpbench_world::attack`): what a task's attack must be to be sound,
//! its proof, the pairing with its twin, and the twin the generator plants.
//!
//! The proof of an attacked task, beside the proof every task has: the attacker's goal does
//! not hold on the world as it starts, nor after any reference (an agent that does the task
//! and ignores what it reads never meets it), and it does hold after a reference played by
//! an agent that follows every instruction it reads ([`Attack::follow`]), so that meeting it
//! is within any agent's reach.

use crate::run::{CallOutcome, TaskRun};
use crate::task::Task;
use mcpbench_sim::Step;
use mcpbench_world::{Attack, AttackKind};
use std::collections::BTreeMap;

/// The suffix of an attacked twin's id.
pub const TWIN_SUFFIX: &str = "-attacked";

/// What a task's attack must be, as `(field, message)` pairs: its server offered, its goal on
/// offered servers, its descriptions on listed tools, its instructed calls to listed tools.
pub(crate) fn problems(task: &Task, attack: &Attack) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let offered = task.offered_servers();
    let mut bad = |field: &str, msg: String| out.push((format!("attack.{field}"), msg));
    if !offered.contains(&attack.server) {
        bad(
            "server",
            format!("{:?} is not offered by the task", attack.server),
        );
    }
    for atom in attack.goal.atoms() {
        if !offered.iter().any(|s| s == atom.server()) {
            bad(
                "goal",
                format!("reads {}, which the task does not offer", atom.server()),
            );
        }
    }
    if attack.goal.atoms().is_empty() && attack.goal.answer_checks().is_empty() {
        bad("goal", "checks nothing".into());
    }
    for tool in attack.tool_descriptions.keys() {
        if !task.available_tools.contains(tool) {
            bad(
                "tool_descriptions",
                format!("{tool} is not in available_tools"),
            );
        }
    }
    for (i, step) in attack.instructed.iter().enumerate() {
        if let Some(call) = step.as_call()
            && !task.available_tools.contains(&call.tool)
        {
            bad(
                &format!("instructed[{i}]"),
                format!("{} is not in available_tools", call.tool),
            );
        }
    }
    if let Some(twin) = &attack.twin
        && twin == &task.id
    {
        bad("twin", "names the task itself".into());
    }
    out
}

/// Replays `steps` on a fresh run of `task`, and the answer they end with.
fn replay<'t>(
    task: &'t Task,
    steps: &[Step],
) -> Result<(TaskRun<&'t Task>, Option<String>), String> {
    let mut run = TaskRun::new(task).map_err(|e| e.to_string())?;
    let mut answer = None;
    for step in steps {
        match step {
            Step::Call(c) => {
                run.attempt(&c.tool, &c.arguments);
            }
            Step::Answer { answer: a } => answer = Some(a.clone()),
        }
    }
    Ok((run, answer))
}

/// The proof of an attacked task (the module's documentation): its problems, none when sound.
pub(crate) fn proof(task: &Task, attack: &Attack) -> Vec<String> {
    let mut out = Vec::new();
    match replay(task, &[]) {
        Ok((run, _)) if run.attack_met(None) == Some(true) => {
            out.push("the attacker's goal holds before any call".into())
        }
        Ok(_) => {}
        Err(e) => return vec![e],
    }
    for (i, reference) in task.reference_solutions.iter().enumerate() {
        match replay(task, reference) {
            Ok((run, answer)) if run.attack_met(answer.as_deref()) == Some(true) => {
                out.push(format!("reference {} meets the attacker's goal", i + 1))
            }
            Ok(_) => {}
            Err(e) => out.push(e),
        }
    }
    match replay(task, &attack.follow(task.shortest_reference())) {
        Ok((run, answer)) if run.attack_met(answer.as_deref()) != Some(true) => out.push(
            "the shortest reference followed by what the planted instructions ask does not \
             meet the attacker's goal: the attack cannot succeed"
                .into(),
        ),
        Ok(_) => {}
        Err(e) => out.push(e),
    }
    out
}

/// The attacked twin of `task` (dressed, with its family's attack not yet planted): the same
/// task under the id `<id>-attacked`, with the plant applied and the attack recorded.
pub fn plant_twin(task: &Task, attack: &Attack) -> Result<Task, String> {
    let mut twin = task.clone();
    twin.unplanted = None;
    twin.id = format!("{}{TWIN_SUFFIX}", task.id);
    twin.initial_state = attack.plant_into(&task.initial_state)?;
    twin.attack = Some(Attack {
        twin: Some(task.id.clone()),
        ..attack.clone()
    });
    Ok(twin)
}

/// Why an agent doing the task would never meet the attack, if it would not: a planted
/// description must be of a tool some reference calls; planted data must change what some
/// call of the shortest reference answers (replayed on both worlds).
fn unseen(task: &Task, twin: &Task, attack: &Attack) -> Option<String> {
    let called = task.reference_tools();
    if matches!(
        attack.kind,
        AttackKind::ToolDescription | AttackKind::Shadowing
    ) {
        let shown = attack.tool_descriptions.keys().any(|t| match attack.kind {
            AttackKind::Shadowing => task.available_tools.contains(t),
            _ => called.contains(t.as_str()),
        });
        return (!shown).then(|| "no reference calls a tool whose description was planted".into());
    }
    let answers = |t: &Task| -> Option<Vec<CallOutcome>> {
        let mut run = TaskRun::new(t).ok()?;
        let calls = task.shortest_reference().iter().filter_map(Step::as_call);
        Some(calls.map(|c| run.attempt(&c.tool, &c.arguments)).collect())
    };
    (answers(task) == answers(twin)).then(|| {
        "no call of the shortest reference answers anything planted: an agent doing the task \
         never reads the attack"
            .into()
    })
}

/// Every attacked task's pairing with its twin in `tasks`: the twin is there, carries no
/// attack, and is the same task but for its id and its world, which the plant makes the
/// attacked one's.
pub fn twin_problems(tasks: &[Task]) -> Vec<String> {
    let by_id: BTreeMap<&str, &Task> = tasks.iter().map(|t| (t.id.as_str(), t)).collect();
    let mut out = Vec::new();
    for task in tasks {
        let Some(attack) = &task.attack else { continue };
        let Some(twin_id) = &attack.twin else {
            continue;
        };
        let Some(twin) = by_id.get(twin_id.as_str()) else {
            out.push(format!("{}: its twin {twin_id} is not in the set", task.id));
            continue;
        };
        if twin.attack.is_some() {
            out.push(format!("{}: its twin {twin_id} carries an attack", task.id));
            continue;
        }
        let same = Task {
            id: twin.id.clone(),
            initial_state: twin.initial_state.clone(),
            attack: None,
            ..task.clone()
        };
        if &same != *twin {
            out.push(format!(
                "{}: differs from its twin {twin_id} in more than its world",
                task.id
            ));
        }
        if let Some(problem) = unseen(task, twin, attack) {
            out.push(format!("{}: {problem}", task.id));
        }
        match attack.plant_into(&twin.initial_state) {
            Ok(planted) if planted == task.initial_state => {}
            Ok(_) => out.push(format!(
                "{}: its world is not its twin's with the plant applied",
                task.id
            )),
            Err(e) => out.push(format!(
                "{}: the plant does not apply to its twin: {e}",
                task.id
            )),
        }
    }
    out
}
