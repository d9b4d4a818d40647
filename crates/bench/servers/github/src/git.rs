//! The version-control core: content hashes, file trees, commits, ancestry and the file-level
//! three-way merge that decides whether a pull request can be merged.
//!
//! A sha is 40 hex digits derived from content alone (three FNV-1a lanes over the same bytes),
//! so the same commit made twice on the same parent has the same sha, as in git.

use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Path -> file content. Directories are implicit.
pub(crate) type Tree = BTreeMap<String, String>;

/// One commit of a repository.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Commit {
    pub parents: Vec<String>,
    pub message: String,
    pub author: String,
    pub tree: Tree,
    /// Creation order within the repository; lists show the newest first.
    pub seq: u64,
}

/// A 40-hex-digit digest of the parts (each part is length-prefixed, so boundaries count).
pub(crate) fn digest(parts: &[&str]) -> String {
    const OFFSETS: [u64; 3] = [
        0xcbf2_9ce4_8422_2325,
        0x8422_2325_cbf2_9ce4,
        0x9e37_79b9_7f4a_7c15,
    ];
    let mut out = String::with_capacity(48);
    for offset in OFFSETS {
        let mut h = offset;
        for part in parts {
            for b in (part.len() as u64)
                .to_le_bytes()
                .iter()
                .chain(part.as_bytes())
            {
                h = (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        out.push_str(&format!("{h:016x}"));
    }
    out.truncate(40);
    out
}

/// The sha of a file's content (a blob).
pub(crate) fn blob_sha(content: &str) -> String {
    digest(&["blob", content])
}

/// The sha of a commit: its parents, message, author and every file.
pub(crate) fn commit_sha(parents: &[String], message: &str, author: &str, tree: &Tree) -> String {
    let mut parts: Vec<String> = vec![
        "commit".into(),
        parents.join(","),
        message.into(),
        author.into(),
    ];
    for (path, content) in tree {
        parts.push(format!("{path}\0{}", blob_sha(content)));
    }
    let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
    digest(&refs)
}

/// Checks a file path inside a repository: relative, `/`-separated, no empty, `.` or `..`
/// parts.
pub(crate) fn check_path(path: &str) -> Result<(), String> {
    if path.is_empty() {
        return Err("the path is empty".into());
    }
    if path.starts_with('/') || path.ends_with('/') {
        return Err(format!(
            "path {path:?} must be relative to the repository root, without leading or trailing /"
        ));
    }
    if path
        .split('/')
        .any(|p| p.is_empty() || p == "." || p == "..")
    {
        return Err(format!("path {path:?} has an empty, . or .. segment"));
    }
    Ok(())
}

/// Checks a branch name the way git does for the common cases.
pub(crate) fn check_branch_name(name: &str) -> Result<(), String> {
    let bad = name.is_empty()
        || name.starts_with(['/', '-', '.'])
        || name.ends_with(['/', '.'])
        || name.ends_with(".lock")
        || name.contains("..")
        || name.contains("//")
        || name.contains("@{")
        || name
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || "~^:?*[\\".contains(c));
    if bad {
        Err(format!("{name:?} is not a valid branch name"))
    } else {
        Ok(())
    }
}

/// Whether `path` is a directory of the tree (some file lies below it).
pub(crate) fn is_dir(tree: &Tree, path: &str) -> bool {
    let prefix = format!("{path}/");
    tree.range(prefix.clone()..)
        .next()
        .is_some_and(|(p, _)| p.starts_with(&prefix))
}

/// Puts a file into the tree, refusing to turn a directory into a file or a file into a
/// directory.
pub(crate) fn put(tree: &mut Tree, path: &str, content: String) -> Result<(), String> {
    check_path(path)?;
    if is_dir(tree, path) {
        return Err(format!("{path} is a directory; a file cannot replace it"));
    }
    let mut at = path;
    while let Some(i) = at.rfind('/') {
        at = &at[..i];
        if tree.contains_key(at) {
            return Err(format!(
                "{at} is a file, so {path} cannot be created below it"
            ));
        }
    }
    tree.insert(path.to_string(), content);
    Ok(())
}

/// Every ancestor of `sha` within `commits`, `sha` included.
pub(crate) fn ancestors(commits: &BTreeMap<String, Commit>, sha: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![sha.to_string()];
    while let Some(s) = stack.pop() {
        if let Some(c) = commits.get(&s) {
            stack.extend(c.parents.iter().filter(|p| !seen.contains(*p)).cloned());
        }
        seen.insert(s);
    }
    seen
}

/// The newest common ancestor of two commits.
pub(crate) fn merge_base(commits: &BTreeMap<String, Commit>, a: &str, b: &str) -> Option<String> {
    let left = ancestors(commits, a);
    let right = ancestors(commits, b);
    left.intersection(&right)
        .filter_map(|s| commits.get(s).map(|c| (c.seq, s)))
        .max()
        .map(|(_, s)| s.clone())
}

/// The file-level three-way merge of `ours` and `theirs` since `base`: a path changed on one
/// side only takes that side, a path changed on both sides to different contents conflicts.
pub(crate) fn three_way(base: &Tree, ours: &Tree, theirs: &Tree) -> Result<Tree, Vec<String>> {
    let paths: BTreeSet<&String> = base
        .keys()
        .chain(ours.keys())
        .chain(theirs.keys())
        .collect();
    let mut merged = Tree::new();
    let mut conflicts = Vec::new();
    for path in paths {
        let (o, a, b) = (base.get(path), ours.get(path), theirs.get(path));
        let pick = if a == b || o == b {
            a
        } else if o == a {
            b
        } else {
            conflicts.push(path.clone());
            continue;
        };
        if let Some(content) = pick {
            merged.insert(path.clone(), content.clone());
        }
    }
    if conflicts.is_empty() {
        Ok(merged)
    } else {
        Err(conflicts)
    }
}

/// Paths that differ between two trees, with how they changed from `old` to `new`.
pub(crate) fn diff<'a>(old: &'a Tree, new: &'a Tree) -> Vec<(&'a str, &'static str)> {
    let paths: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    paths
        .into_iter()
        .filter_map(|p| match (old.get(p), new.get(p)) {
            (None, Some(_)) => Some((p.as_str(), "added")),
            (Some(_), None) => Some((p.as_str(), "removed")),
            (Some(a), Some(b)) if a != b => Some((p.as_str(), "modified")),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_stable_and_sensitive() {
        assert_eq!(digest(&["a"]).len(), 40);
        assert_eq!(digest(&["a", "b"]), digest(&["a", "b"]));
        assert_ne!(digest(&["ab", ""]), digest(&["a", "b"]));
        assert_ne!(blob_sha("x"), blob_sha("y"));
    }

    #[test]
    fn three_way_merges_disjoint_changes_and_flags_clashes() {
        let t = |pairs: &[(&str, &str)]| -> Tree {
            pairs
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        let base = t(&[("a", "1"), ("b", "1")]);
        let ours = t(&[("a", "2"), ("b", "1")]);
        let theirs = t(&[("a", "1"), ("b", "3"), ("c", "new")]);
        assert_eq!(
            three_way(&base, &ours, &theirs),
            Ok(t(&[("a", "2"), ("b", "3"), ("c", "new")]))
        );
        let clash = t(&[("a", "9"), ("b", "1")]);
        assert_eq!(three_way(&base, &ours, &clash), Err(vec!["a".to_string()]));
    }

    #[test]
    fn paths_and_branch_names_are_checked() {
        assert!(check_path("src/lib.rs").is_ok());
        assert!(
            check_path("/src").is_err()
                && check_path("a//b").is_err()
                && check_path("a/../b").is_err()
        );
        assert!(check_branch_name("feature/login-42").is_ok());
        assert!(check_branch_name("bad name").is_err() && check_branch_name("a..b").is_err());
        let mut tree = Tree::new();
        put(&mut tree, "docs/a.md", "x".into()).unwrap();
        assert!(put(&mut tree, "docs", "y".into()).is_err());
        assert!(put(&mut tree, "docs/a.md/b", "y".into()).is_err());
    }
}
