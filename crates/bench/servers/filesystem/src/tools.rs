//! The tools, modelled on the reference filesystem MCP server. `read_file` is the deprecated
//! twin of `read_text_file` and `list_directory_with_sizes` the richer twin of
//! `list_directory`: near-duplicates an agent must choose between, as in the real server.

use crate::state::{FILES, Filesystem, file_name, join, normal, parent};
use mcpbench_sim::{Tool, ToolBox, ToolError, Usage};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::LazyLock;

type Out = Result<Value, ToolError>;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PathArg {
    /// Absolute path, like /home/user/notes.txt.
    #[schemars(length(min = 1, max = 4096))]
    path: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ReadText {
    /// Absolute path of the file.
    #[schemars(length(min = 1, max = 4096))]
    path: String,
    /// Return only the first N lines.
    #[schemars(range(min = 1, max = 100000))]
    head: Option<u32>,
    /// Return only the last N lines.
    #[schemars(range(min = 1, max = 100000))]
    tail: Option<u32>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ReadMany {
    /// Absolute paths of the files to read.
    #[schemars(length(min = 1, max = 50), inner(length(min = 1, max = 4096)))]
    paths: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Write {
    /// Absolute path of the file; its directory must exist.
    #[schemars(length(min = 1, max = 4096))]
    path: String,
    /// The complete new content.
    #[schemars(length(max = 1000000))]
    content: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Edit {
    /// Text to find; must occur exactly once in the file.
    #[schemars(length(min = 1, max = 1000000))]
    old_text: String,
    /// Text to put in its place.
    #[schemars(length(max = 1000000))]
    new_text: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct EditFile {
    /// Absolute path of the file to edit.
    #[schemars(length(min = 1, max = 4096))]
    path: String,
    /// Replacements applied in order.
    #[schemars(length(min = 1, max = 50))]
    edits: Vec<Edit>,
    /// Show the result without writing it.
    #[serde(default)]
    dry_run: bool,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum SortBy {
    Name,
    Size,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ListSized {
    /// Absolute path of the directory.
    #[schemars(length(min = 1, max = 4096))]
    path: String,
    /// Order of the entries (default: name).
    sort_by: Option<SortBy>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Move {
    /// Absolute path of the file or directory to move.
    #[schemars(length(min = 1, max = 4096))]
    source: String,
    /// Absolute path it should have afterwards; must not exist yet.
    #[schemars(length(min = 1, max = 4096))]
    destination: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Search {
    /// Directory to search below.
    #[schemars(length(min = 1, max = 4096))]
    path: String,
    /// Glob on file names (`*.log`, `report-??.md`) or a plain substring.
    #[schemars(length(min = 1, max = 200))]
    pattern: String,
    /// Globs of names to leave out.
    #[serde(default)]
    #[schemars(length(max = 20), inner(length(max = 200)))]
    exclude_patterns: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct TreeArgs {
    /// Directory whose tree to show.
    #[schemars(length(min = 1, max = 4096))]
    path: String,
    /// Globs of names to leave out, with everything below them (`node_modules`, `*.log`).
    #[serde(default)]
    #[schemars(length(max = 20), inner(length(max = 200)))]
    exclude_patterns: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

fn read_text_file(fs: &Filesystem, a: ReadText) -> Out {
    if a.head.is_some() && a.tail.is_some() {
        return Err(ToolError::invalid("give head or tail, not both"));
    }
    let content = fs.read(&a.path)?;
    let lines: Vec<&str> = content.lines().collect();
    let text = match (a.head, a.tail) {
        (Some(n), _) => lines
            .iter()
            .take(n as usize)
            .copied()
            .collect::<Vec<_>>()
            .join("\n"),
        (_, Some(n)) => lines[lines.len().saturating_sub(n as usize)..].join("\n"),
        _ => content.clone(),
    };
    Ok(Value::String(text))
}

fn read_file(fs: &Filesystem, a: PathArg) -> Out {
    fs.read(&a.path).map(|c| Value::String(c.clone()))
}

fn read_multiple_files(fs: &Filesystem, a: ReadMany) -> Out {
    // One answer shows at most as much as a run's files hold, however often a path repeats.
    let mut shown = 0;
    let parts: Vec<String> = a
        .paths
        .iter()
        .map(|p| match fs.read(p) {
            Ok(c) if shown + c.len() > FILES.bytes => format!(
                "{p}: Error - not shown: one answer shows at most {} MiB of content; read this \
                 file on its own",
                FILES.bytes >> 20
            ),
            Ok(c) => {
                shown += c.len();
                format!("{p}:\n{c}")
            }
            Err(e) => format!("{p}: Error - {e}"),
        })
        .collect();
    Ok(Value::String(parts.join("\n---\n")))
}

fn write_file(fs: &mut Filesystem, a: Write) -> Out {
    let path = fs.new_file_slot(&a.path)?.to_string();
    fs.put_file(&path, a.content)?;
    Ok(Value::String(format!("Successfully wrote to {path}")))
}

fn edit_file(fs: &mut Filesystem, a: EditFile) -> Out {
    let path = normal(&a.path).map_err(ToolError::invalid)?.to_string();
    let mut text = fs.read(&path)?.clone();
    for (i, e) in a.edits.iter().enumerate() {
        match text.matches(e.old_text.as_str()).count() {
            0 => {
                return Err(ToolError::not_found(format!(
                    "edit {i}: oldText not found in {path}"
                )));
            }
            1 => text = text.replacen(&e.old_text, &e.new_text, 1),
            n => {
                return Err(ToolError::conflict(format!(
                    "edit {i}: oldText occurs {n} times in {path}; make it unique"
                )));
            }
        }
    }
    if a.dry_run {
        return Ok(json!({ "path": path, "dryRun": true, "newContent": text }));
    }
    fs.writable(&path)?;
    fs.put_file(&path, text)?;
    Ok(Value::String(format!(
        "Applied {} edit(s) to {path}",
        a.edits.len()
    )))
}

fn create_directory(fs: &mut Filesystem, a: PathArg) -> Out {
    fs.mkdir_p(&a.path)?;
    Ok(Value::String(format!(
        "Successfully created directory {}",
        a.path
    )))
}

fn list_directory(fs: &Filesystem, a: PathArg) -> Out {
    let lines: Vec<String> = fs
        .children(&a.path)?
        .into_iter()
        .map(|(name, dir)| format!("{} {name}", if dir { "[DIR]" } else { "[FILE]" }))
        .collect();
    Ok(Value::String(lines.join("\n")))
}

fn list_directory_with_sizes(fs: &Filesystem, a: ListSized) -> Out {
    let mut entries: Vec<(String, bool, usize)> = fs
        .children(&a.path)?
        .into_iter()
        .map(|(name, dir)| {
            let size = if dir {
                0
            } else {
                fs.files[&join(&a.path, &name)].len()
            };
            (name, dir, size)
        })
        .collect();
    if matches!(a.sort_by, Some(SortBy::Size)) {
        entries.sort_by(|x, y| y.2.cmp(&x.2).then_with(|| x.0.cmp(&y.0)));
    }
    let total: usize = entries.iter().map(|e| e.2).sum();
    let mut lines: Vec<String> = entries
        .iter()
        .map(|(n, d, s)| {
            if *d {
                format!("[DIR]  {n}")
            } else {
                format!("[FILE] {n} ({s} bytes)")
            }
        })
        .collect();
    lines.push(format!("Total: {} entries, {total} bytes", entries.len()));
    Ok(Value::String(lines.join("\n")))
}

fn tree(fs: &Filesystem, dir: &str, exclude: &[String]) -> Result<Value, ToolError> {
    let mut out = Vec::new();
    for (name, is_dir) in fs.children(dir)? {
        if exclude.iter().any(|x| glob(x, &name)) {
            continue;
        }
        let path = join(dir, &name);
        if is_dir {
            let children = tree(fs, &path, exclude)?;
            out.push(json!({ "name": name, "type": "directory", "children": children }));
        } else {
            out.push(json!({ "name": name, "type": "file" }));
        }
    }
    Ok(Value::Array(out))
}

fn directory_tree(fs: &Filesystem, a: TreeArgs) -> Out {
    tree(fs, &a.path, &a.exclude_patterns)
}

fn move_file(fs: &mut Filesystem, a: Move) -> Out {
    let src = normal(&a.source).map_err(ToolError::invalid)?.to_string();
    let dst = normal(&a.destination)
        .map_err(ToolError::invalid)?
        .to_string();
    if fs.files.contains_key(&dst) || fs.is_dir(&dst) {
        return Err(ToolError::conflict(format!(
            "destination {dst} already exists"
        )));
    }
    if !fs.files.contains_key(&src) && !fs.is_dir(&src) {
        return Err(ToolError::not_found(format!(
            "no such file or directory: {src}"
        )));
    }
    if src == "/" || dst.starts_with(&format!("{src}/")) {
        return Err(ToolError::invalid(format!("cannot move {src} into itself")));
    }
    fs.movable(&src)?;
    fs.new_file_slot(&dst)?;
    if fs.files.contains_key(&src) {
        // Only the path changes: its length, once.
        let (before, after) = (Usage::bytes(src.len()), Usage::bytes(dst.len()));
        fs.ledger.admit_change(before, after)?;
        let content = fs.files.remove(&src).expect("checked");
        fs.files.insert(dst.clone(), content);
        fs.ledger.change(before, after);
    } else {
        let prefix = format!("{src}/");
        let moved = |p: &String| p == &src || p.starts_with(&prefix);
        let rename = |p: &String| format!("{dst}{}", &p[src.len()..]);
        let dirs: Vec<String> = fs.dirs.iter().filter(|p| moved(p)).cloned().collect();
        let files: Vec<String> = fs.files.keys().filter(|p| moved(p)).cloned().collect();
        // Every entry below keeps its full path: each swaps the prefix `src` for `dst`.
        let entries = dirs.len() + files.len();
        let before = Usage::bytes(entries * src.len());
        let after = Usage::bytes(entries * dst.len());
        fs.ledger.admit_change(before, after)?;
        for d in dirs {
            fs.dirs.remove(&d);
            fs.dirs.insert(rename(&d));
        }
        for f in files {
            let c = fs.files.remove(&f).expect("listed");
            fs.files.insert(rename(&f), c);
        }
        fs.ledger.change(before, after);
    }
    Ok(Value::String(format!("Successfully moved {src} to {dst}")))
}

fn delete_file(fs: &mut Filesystem, a: PathArg) -> Out {
    let path = normal(&a.path).map_err(ToolError::invalid)?.to_string();
    if fs.is_dir(&path) {
        return Err(ToolError::invalid(format!(
            "{path} is a directory; only files can be deleted"
        )));
    }
    if !fs.files.contains_key(&path) {
        return Err(ToolError::not_found(format!("no such file: {path}")));
    }
    fs.writable(&path)?;
    fs.remove_file(&path);
    Ok(Value::String(format!("Deleted {path}")))
}

/// `*` and `?` globbing on one name; a pattern without wildcards matches as a substring.
pub(crate) fn glob(pattern: &str, name: &str) -> bool {
    if !pattern.contains(['*', '?']) {
        return name.contains(pattern);
    }
    fn go(p: &[char], n: &[char]) -> bool {
        match (p.first(), n.first()) {
            (None, None) => true,
            (Some('*'), _) => go(&p[1..], n) || (!n.is_empty() && go(p, &n[1..])),
            (Some('?'), Some(_)) => go(&p[1..], &n[1..]),
            (Some(a), Some(b)) if a == b => go(&p[1..], &n[1..]),
            _ => false,
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    go(&p, &n)
}

fn search_files(fs: &Filesystem, a: Search) -> Out {
    let root = normal(&a.path).map_err(ToolError::invalid)?;
    if !fs.is_dir(root) {
        return Err(ToolError::not_found(format!("no such directory: {root}")));
    }
    let under = |p: &String| root == "/" || p.starts_with(&format!("{root}/"));
    let hits: Vec<&String> = fs
        .dirs
        .iter()
        .filter(|p| p.as_str() != root)
        .chain(fs.files.keys())
        .filter(|p| under(p))
        .filter(|p| glob(&a.pattern, file_name(p)))
        .filter(|p| !a.exclude_patterns.iter().any(|x| glob(x, file_name(p))))
        .collect();
    let mut hits: Vec<&String> = hits;
    hits.sort();
    if hits.is_empty() {
        return Ok(Value::String("No matches found".into()));
    }
    Ok(Value::String(
        hits.iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
    ))
}

fn get_file_info(fs: &Filesystem, a: PathArg) -> Out {
    let path = normal(&a.path).map_err(ToolError::invalid)?;
    let read_only = fs.writable(path).is_err();
    if fs.is_dir(path) {
        let n = fs.children(path)?.len();
        return Ok(
            json!({ "path": path, "type": "directory", "entries": n, "readOnly": read_only }),
        );
    }
    let content = fs.read(path)?;
    Ok(json!({
        "path": path, "type": "file", "size": content.len(),
        "lines": content.lines().count(), "parent": parent(path), "readOnly": read_only,
    }))
}

fn list_allowed_directories(_: &Filesystem, _: NoArgs) -> Out {
    Ok(Value::String("Allowed directories:\n/".into()))
}

pub(crate) static TOOLS: LazyLock<ToolBox<Filesystem>> = LazyLock::new(|| {
    ToolBox::new(vec![
        Tool::read(
            "read_text_file",
            "Read the complete contents of a text file. Use head or tail to read only the first or last N lines.",
            read_text_file,
        ),
        Tool::read(
            "read_file",
            "Read the complete contents of a file as text. Deprecated: use read_text_file.",
            read_file,
        ),
        Tool::read(
            "read_multiple_files",
            "Read several files at once. Each file's content is prefixed with its path; a file that cannot be read shows its error and does not stop the others.",
            read_multiple_files,
        ),
        Tool::write(
            "write_file",
            "Create a new file or completely overwrite an existing one. The parent directory must exist. A run's filesystem holds at most 5,000 files and directories and 8 MiB in all.",
            write_file,
        ),
        Tool::write(
            "edit_file",
            "Make exact text replacements in a file. Each oldText must occur exactly once. With dryRun, returns the new content without writing. A run's filesystem holds at most 5,000 files and directories and 8 MiB in all.",
            edit_file,
        ),
        Tool::write(
            "create_directory",
            "Create a directory, with any missing parents. Succeeds silently if it already exists. A run's filesystem holds at most 5,000 files and directories and 8 MiB in all.",
            create_directory,
        ),
        Tool::read(
            "list_directory",
            "List the entries directly inside a directory, each marked [FILE] or [DIR].",
            list_directory,
        ),
        Tool::read(
            "list_directory_with_sizes",
            "List the entries of a directory with file sizes and a total, sorted by name or size.",
            list_directory_with_sizes,
        ),
        Tool::read(
            "directory_tree",
            "Get a recursive tree of a directory as JSON, each entry with name, type and children. The whole tree below the path comes in one answer; leave subtrees out with excludePatterns, or list one directory at a time.",
            directory_tree,
        ),
        Tool::write(
            "move_file",
            "Move or rename a file or directory. Fails if the destination exists.",
            move_file,
        ),
        Tool::write(
            "delete_file",
            "Delete one file. Directories cannot be deleted.",
            delete_file,
        ),
        Tool::read(
            "search_files",
            "Recursively find files and directories below a path whose names match a glob (*.log) or contain a substring.",
            search_files,
        ),
        Tool::read(
            "get_file_info",
            "Get metadata of a file or directory: type, size in bytes, line count, whether it is read-only.",
            get_file_info,
        ),
        Tool::read(
            "list_allowed_directories",
            "List the directories this server may access.",
            list_allowed_directories,
        ),
    ])
});
