//! Running a command and turning its failure into an [`Error::Command`].

use std::process::{Command, Output, Stdio};

use crate::Error;

/// How many lines of stderr / log an error keeps.
const TAIL_LINES: usize = 20;

/// A command line for messages: the program and its arguments, space separated.
pub(crate) fn describe(command: &Command) -> String {
    std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(|part| part.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs `command` to completion with stdin closed, capturing its output, whatever its status.
pub(crate) fn output(command: &mut Command) -> Result<Output, Error> {
    tracing::debug!(command = %describe(command), "running");
    command
        .stdin(Stdio::null())
        .output()
        .map_err(Error::io(format!("could not run `{}`", describe(command))))
}

/// Runs `command` and fails unless it exits successfully.
pub(crate) fn run(command: &mut Command) -> Result<Output, Error> {
    let output = output(command)?;
    if output.status.success() {
        Ok(output)
    } else {
        Err(failure(command, &output, None))
    }
}

/// The error for a command that ran and failed, with the tail of its stderr (or stdout when
/// stderr is empty) and, if given, of a log it wrote.
pub(crate) fn failure(command: &Command, output: &Output, log: Option<&str>) -> Error {
    let stderr = String::from_utf8_lossy(&output.stderr);
    let printed = if stderr.trim().is_empty() {
        String::from_utf8_lossy(&output.stdout)
    } else {
        stderr
    };
    let mut text = tail(&printed);
    if let Some(log) = log.filter(|log| !log.trim().is_empty()) {
        text.push_str("\n--- server log ---\n");
        text.push_str(&tail(log));
    }
    Error::Command {
        command: describe(command),
        status: output.status.to_string(),
        output: text,
    }
}

/// The last [`TAIL_LINES`] lines of `text`.
pub(crate) fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    lines[lines.len().saturating_sub(TAIL_LINES)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_the_last_lines() {
        let text: String = (0..30).map(|i| format!("line {i}\n")).collect();
        let kept = tail(&text);
        assert!(kept.starts_with("line 10\n"));
        assert!(kept.ends_with("line 29"));
    }

    #[test]
    fn failure_names_command_status_and_output() {
        let mut command = Command::new("sh");
        command.args(["-c", "echo boom >&2; exit 3"]);
        let error = run(&mut command).unwrap_err();
        let message = error.to_string();
        assert!(message.contains("sh -c"), "{message}");
        assert!(message.contains("exit status: 3"), "{message}");
        assert!(message.contains("boom"), "{message}");
    }
}
