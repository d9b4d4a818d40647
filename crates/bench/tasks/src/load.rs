//! Reading task files. Every error names the file, the task and the field.

use crate::task::Task;
use serde_json::Value;
use std::fmt;
use std::path::{Path, PathBuf};

/// The largest task file accepted; the dev set's largest is a few KiB.
pub const MAX_TASK_BYTES: u64 = 1 << 20;
/// Integers beyond +-2^53 do not survive canonical JSON (RFC 8785 numbers are doubles).
const MAX_SAFE_INTEGER: i128 = 1 << 53;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    pub file: PathBuf,
    /// The task's id, when the file got far enough to have one.
    pub task: Option<String>,
    /// Where in the task, as a path (`success_predicate.all[1]`); empty for the whole file.
    pub field: String,
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(id) = &self.task {
            write!(f, ": task {id}")?;
        }
        if !self.field.is_empty() {
            write!(f, ": field {}", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for LoadError {}

/// Loads one task file and checks that its name is `<id>.json`.
pub fn load_task(path: &Path) -> Result<Task, Vec<LoadError>> {
    let err = |field: &str, message: String| LoadError {
        file: path.to_path_buf(),
        task: None,
        field: field.into(),
        message,
    };
    let size = std::fs::metadata(path)
        .map_err(|e| vec![err("", format!("cannot read: {e}"))])?
        .len();
    if size > MAX_TASK_BYTES {
        return Err(vec![err(
            "",
            format!("file is {size} bytes; a task may have at most {MAX_TASK_BYTES}"),
        )]);
    }
    let text =
        std::fs::read_to_string(path).map_err(|e| vec![err("", format!("cannot read: {e}"))])?;
    let task = parse_task(&text, path)?;
    let expected = format!("{}.json", task.id);
    if path.file_name().and_then(|n| n.to_str()) != Some(expected.as_str()) {
        return Err(vec![LoadError {
            task: Some(task.id.clone()),
            ..err("id", format!("the file must be named {expected}"))
        }]);
    }
    Ok(task)
}

/// Parses and validates one task; `origin` names it in errors.
pub fn parse_task(text: &str, origin: &Path) -> Result<Task, Vec<LoadError>> {
    let err = |task: Option<String>, field: String, message: String| LoadError {
        file: origin.to_path_buf(),
        task,
        field,
        message,
    };
    let value: Value = serde_json::from_str(text)
        .map_err(|e| vec![err(None, String::new(), format!("not valid JSON: {e}"))])?;
    let id = value.get("id").and_then(Value::as_str).map(str::to_string);
    if let Some(at) = unsafe_integer(&value, String::new()) {
        return Err(vec![err(
            id,
            at,
            "integer outside +-2^53, which canonical JSON cannot represent".into(),
        )]);
    }
    let task: Task = serde_path_to_error::deserialize(value).map_err(|e| {
        let field = e.path().to_string();
        vec![err(
            id.clone(),
            if field == "." { String::new() } else { field },
            e.into_inner().to_string(),
        )]
    })?;
    let problems = task.validate();
    if !problems.is_empty() {
        return Err(problems
            .into_iter()
            .map(|(f, m)| err(Some(task.id.clone()), f, m))
            .collect());
    }
    Ok(task)
}

fn unsafe_integer(v: &Value, at: String) -> Option<String> {
    match v {
        Value::Number(n) => {
            let big = n.as_i64().map(i128::from).or(n.as_u64().map(i128::from));
            big.filter(|i| i.abs() > MAX_SAFE_INTEGER).map(|_| at)
        }
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, x)| unsafe_integer(x, format!("{at}[{i}]"))),
        Value::Object(map) => map.iter().find_map(|(k, x)| {
            unsafe_integer(
                x,
                if at.is_empty() {
                    k.clone()
                } else {
                    format!("{at}.{k}")
                },
            )
        }),
        _ => None,
    }
}

/// The task files of a directory: every `*.json` but `manifest.json`, sorted by name.
pub fn task_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter(|p| p.file_name().is_some_and(|n| n != "manifest.json"))
        .collect();
    files.sort();
    Ok(files)
}

/// Loads every task of a directory; all errors of all files, or all tasks. Ids must be unique.
pub fn load_dir(dir: &Path) -> Result<Vec<Task>, Vec<LoadError>> {
    let files = task_files(dir).map_err(|e| {
        vec![LoadError {
            file: dir.to_path_buf(),
            task: None,
            field: String::new(),
            message: format!("cannot list: {e}"),
        }]
    })?;
    let (mut tasks, mut errors) = (Vec::new(), Vec::new());
    for f in files {
        match load_task(&f) {
            Ok(t) => tasks.push(t),
            Err(mut e) => errors.append(&mut e),
        }
    }
    if errors.is_empty() {
        Ok(tasks)
    } else {
        Err(errors)
    }
}
