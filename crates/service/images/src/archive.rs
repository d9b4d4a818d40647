//! `docker save` archives: which image one holds, checked before it is accepted, and the
//! archive the worker makes for its own proxy image.
//!
//! An archive is a tar with `manifest.json` (a list of `{Config, RepoTags, Layers}`) and the
//! files it names. The image id is the SHA-256 of the config file, so checking that digest here
//! pins the submission to exactly these bytes: the engine checks every layer against the
//! config's `diff_ids` when it loads the archive.

use serde_json::Value;
use sha2::{Digest, Sha256};
use std::io::{Read, Seek, SeekFrom, Write};

/// Largest `manifest.json` or image config read (real ones are a few KiB).
const MAX_JSON_BYTES: u64 = 1 << 20;

/// The image an archive holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchiveImage {
    /// `sha256:<64 hex>`: the digest of the image's config, the id the engine gives it.
    pub id: String,
    pub os: String,
    pub architecture: String,
}

#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error("the archive is not a readable tar file ({0})")]
    Tar(String),
    #[error("the archive has no manifest.json; make it with `docker save IMAGE -o FILE`")]
    NoManifest,
    #[error("manifest.json {0}")]
    Manifest(String),
    #[error("the image config {0}")]
    Config(String),
    #[error(
        "the image is built for {0}; the workers run linux/amd64 (build with --platform linux/amd64)"
    )]
    Platform(String),
    #[error("the archive holds {0:?} twice; save it again with `docker save`")]
    Duplicate(String),
    #[error(
        "the image's WORKDIR {0:?} points into /proc, the shape of a container escape \
         (CVE-2024-21626); use an ordinary directory"
    )]
    UnsafeWorkdir(String),
}

/// Reads the image out of a `docker save` archive: exactly one image, its config present and
/// matching its digest, built for linux/amd64.
pub fn inspect_archive<R: Read + Seek>(mut file: R) -> Result<ArchiveImage, ArchiveError> {
    let manifest =
        read_entry(&mut file, |p| p == "manifest.json")?.ok_or(ArchiveError::NoManifest)?;
    let manifest: Value = serde_json::from_slice(&manifest)
        .map_err(|e| ArchiveError::Manifest(format!("is not JSON: {e}")))?;
    let entries = manifest
        .as_array()
        .ok_or_else(|| ArchiveError::Manifest("is not a list".into()))?;
    let [entry] = entries.as_slice() else {
        return Err(ArchiveError::Manifest(format!(
            "lists {} images; save exactly one",
            entries.len()
        )));
    };
    let config_path = entry
        .get("Config")
        .and_then(Value::as_str)
        .ok_or_else(|| ArchiveError::Manifest("has no Config".into()))?
        .to_string();
    file.seek(SeekFrom::Start(0))
        .map_err(|e| ArchiveError::Tar(e.to_string()))?;
    let config = read_entry(&mut file, |p| p == config_path)?
        .ok_or_else(|| ArchiveError::Config(format!("{config_path:?} is missing")))?;
    let digest = hex::encode(Sha256::digest(&config));
    // `<hex>.json` (classic layout) or `blobs/sha256/<hex>` (OCI layout): the name is the digest.
    let named = config_path
        .trim_end_matches(".json")
        .rsplit('/')
        .next()
        .unwrap_or_default();
    if named.len() == 64 && named != digest {
        return Err(ArchiveError::Config(format!(
            "{config_path:?} does not match its digest"
        )));
    }
    let config: Value = serde_json::from_slice(&config)
        .map_err(|e| ArchiveError::Config(format!("is not JSON: {e}")))?;
    let field = |name: &str| {
        config
            .get(name)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let (os, architecture) = (field("os"), field("architecture"));
    if os != "linux" || architecture != "amd64" {
        return Err(ArchiveError::Platform(format!("{os}/{architecture}")));
    }
    let workdir = config
        .pointer("/config/WorkingDir")
        .and_then(Value::as_str)
        .unwrap_or("");
    if crate::unsafe_workdir(workdir) {
        return Err(ArchiveError::UnsafeWorkdir(workdir.into()));
    }
    Ok(ArchiveImage {
        id: format!("sha256:{digest}"),
        os,
        architecture,
    })
}

/// Files of an archive that make `docker load` tag what it loads: a vendor's archive must not
/// name (and so replace) any image on our engine, ours included. `manifest.json` keeps its
/// entries with `RepoTags` emptied.
const TAGGING_FILES: [&str; 3] = ["repositories", "index.json", "oci-layout"];

/// Copies an archive without anything that would tag images on load, refusing one that holds a
/// path twice (the engine reads the last copy, a check may have read the first).
pub fn untagged_copy<R: Read, W: Write>(input: R, output: W) -> Result<(), ArchiveError> {
    let tar_err = |e: std::io::Error| ArchiveError::Tar(e.to_string());
    let mut archive = tar::Archive::new(input);
    let mut out = tar::Builder::new(output);
    let mut seen = std::collections::HashSet::new();
    for entry in archive.entries().map_err(tar_err)? {
        let mut entry = entry.map_err(tar_err)?;
        let path = entry.path().map_err(tar_err)?.to_string_lossy().to_string();
        // The engine cleans every name (`manifest.json/` and `./x//manifest.json` are
        // `manifest.json` to it), so names are compared and written clean.
        let name = clean_name(&path)
            .ok_or_else(|| ArchiveError::Tar(format!("the path {path:?} leaves the archive")))?;
        if !seen.insert(name.clone()) {
            return Err(ArchiveError::Duplicate(name));
        }
        if TAGGING_FILES.contains(&name.as_str()) {
            continue;
        }
        let mut header = entry.header().clone();
        if name == "manifest.json" {
            if entry.size() > MAX_JSON_BYTES {
                return Err(ArchiveError::Manifest("is larger than 1 MiB".into()));
            }
            let mut bytes = Vec::new();
            (&mut entry)
                .take(MAX_JSON_BYTES)
                .read_to_end(&mut bytes)
                .map_err(tar_err)?;
            let mut manifest: Value = serde_json::from_slice(&bytes)
                .map_err(|e| ArchiveError::Manifest(format!("is not JSON: {e}")))?;
            for image in manifest.as_array_mut().into_iter().flatten() {
                if let Some(image) = image.as_object_mut() {
                    image.insert("RepoTags".into(), Value::Null);
                }
            }
            let bytes =
                serde_json::to_vec(&manifest).map_err(|e| ArchiveError::Manifest(e.to_string()))?;
            header.set_size(bytes.len() as u64);
            out.append_data(&mut header, &name, bytes.as_slice())
                .map_err(tar_err)?;
        } else if let Some(target) = entry.link_name().map_err(tar_err)? {
            // `append_link` keeps targets longer than the header's 100 bytes whole.
            let target = target.into_owned();
            out.append_link(&mut header, &name, target)
                .map_err(tar_err)?;
        } else {
            out.append_data(&mut header, &name, &mut entry)
                .map_err(tar_err)?;
        }
    }
    out.into_inner()
        .map_err(tar_err)?
        .flush()
        .map_err(tar_err)?;
    Ok(())
}

/// A path as the engine reads it: no empty or `.` parts, no trailing `/`; `None` when it
/// climbs out with `..` or is empty.
fn clean_name(path: &str) -> Option<String> {
    let mut parts = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => return None,
            p => parts.push(p),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// The bytes of the first entry whose path satisfies `want`, at most [`MAX_JSON_BYTES`].
fn read_entry<R: Read>(
    file: R,
    want: impl Fn(&str) -> bool,
) -> Result<Option<Vec<u8>>, ArchiveError> {
    let tar_err = |e: std::io::Error| ArchiveError::Tar(e.to_string());
    let mut archive = tar::Archive::new(file);
    for entry in archive.entries().map_err(tar_err)? {
        let entry = entry.map_err(tar_err)?;
        let path = entry.path().map_err(tar_err)?;
        let path = path.to_string_lossy();
        if !clean_name(&path).is_some_and(|name| want(&name)) {
            continue;
        }
        if entry.size() > MAX_JSON_BYTES {
            return Err(ArchiveError::Tar(format!("{path} is larger than 1 MiB")));
        }
        let mut bytes = Vec::new();
        entry
            .take(MAX_JSON_BYTES)
            .read_to_end(&mut bytes)
            .map_err(tar_err)?;
        return Ok(Some(bytes));
    }
    Ok(None)
}

/// A one-layer `docker save` archive holding `files` (path, mode, bytes) with `entrypoint`,
/// made byte for byte the same every time, so the image id is stable. Returns the id too.
pub fn build_archive(
    files: &[(&str, u32, &[u8])],
    entrypoint: &[&str],
    tag: &str,
) -> std::io::Result<(String, Vec<u8>)> {
    let mut layer = tar::Builder::new(Vec::new());
    for (path, mode, bytes) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(*mode);
        header.set_mtime(0);
        header.set_uid(0);
        header.set_gid(0);
        header.set_entry_type(tar::EntryType::Regular);
        layer.append_data(&mut header, path, *bytes)?;
    }
    let layer = layer.into_inner()?;
    let layer_digest = hex::encode(Sha256::digest(&layer));
    let config = serde_json::json!({
        "architecture": "amd64",
        "os": "linux",
        "config": { "Entrypoint": entrypoint },
        "rootfs": { "type": "layers", "diff_ids": [format!("sha256:{layer_digest}")] },
    });
    let config = serde_json::to_vec(&config)?;
    let config_digest = hex::encode(Sha256::digest(&config));
    let manifest = serde_json::to_vec(&serde_json::json!([{
        "Config": format!("{config_digest}.json"),
        "RepoTags": [tag],
        "Layers": [format!("{layer_digest}/layer.tar")],
    }]))?;
    let mut out = tar::Builder::new(Vec::new());
    for (path, bytes) in [
        (format!("{layer_digest}/layer.tar"), layer.as_slice()),
        (format!("{config_digest}.json"), config.as_slice()),
        ("manifest.json".to_string(), manifest.as_slice()),
    ] {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_mtime(0);
        header.set_entry_type(tar::EntryType::Regular);
        out.append_data(&mut header, path, bytes)?;
    }
    Ok((format!("sha256:{config_digest}"), out.into_inner()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn a_built_archive_reads_back_with_its_id() {
        let (id, bytes) = build_archive(&[("hello", 0o755, b"#!")], &["/hello"], "t:1").unwrap();
        let image = inspect_archive(Cursor::new(&bytes)).unwrap();
        assert_eq!(image.id, id);
        let (again, _) = build_archive(&[("hello", 0o755, b"#!")], &["/hello"], "t:1").unwrap();
        assert_eq!(again, id, "the same files give the same id");
    }

    #[test]
    fn damaged_archives_are_refused_with_a_reason() {
        let (_, good) = build_archive(&[("hello", 0o755, b"#!")], &["/hello"], "t:1").unwrap();
        let err = |bytes: Vec<u8>| inspect_archive(Cursor::new(bytes)).unwrap_err().to_string();
        let garbage = err(b"not a tar at all, just some text".repeat(40));
        assert!(garbage.starts_with("the archive"), "{garbage}");
        assert!(err(Vec::new()).contains("manifest.json"));
        // The config's bytes changed after its name was fixed: the digest no longer matches.
        let mut tampered = good.clone();
        let at = find(&tampered, b"\"amd64\"").unwrap();
        tampered[at + 1] = b'b';
        let message = err(tampered);
        assert!(message.contains("does not match its digest"), "{message}");
        // Two images in one archive.
        let two = with_manifest(&good, br#"[{"Config":"a.json"},{"Config":"b.json"}]"#);
        assert!(err(two).contains("lists 2 images"));
        let missing = with_manifest(&good, br#"[{"Config":"nowhere.json"}]"#);
        assert!(err(missing).contains("is missing"));
        assert!(err(with_manifest(&good, b"{]")).contains("not JSON"));
    }

    #[test]
    fn an_escape_workdir_is_refused() {
        let message = inspect_archive(Cursor::new(one_config(
            br#"{"os":"linux","architecture":"amd64","config":{"WorkingDir":"/proc/self/fd/8"}}"#,
        )))
        .unwrap_err()
        .to_string();
        assert!(message.contains("CVE-2024-21626"), "{message}");
    }

    #[test]
    fn other_platforms_are_named() {
        let message = inspect_archive(Cursor::new(one_config(
            br#"{"os":"linux","architecture":"arm64"}"#,
        )))
        .unwrap_err()
        .to_string();
        assert!(message.contains("linux/arm64"), "{message}");
    }

    /// An archive whose manifest names one config (no layers).
    fn one_config(config: &[u8]) -> Vec<u8> {
        let mut out = tar::Builder::new(Vec::new());
        for (path, bytes) in [
            ("c.json", config),
            (
                "manifest.json",
                br#"[{"Config":"c.json","Layers":[]}]"#.as_slice(),
            ),
        ] {
            let mut header = tar::Header::new_gnu();
            header.set_size(bytes.len() as u64);
            header.set_mode(0o644);
            out.append_data(&mut header, path, bytes).unwrap();
        }
        out.into_inner().unwrap()
    }

    #[test]
    fn a_copy_tags_nothing_and_duplicates_are_refused() {
        let (id, good) = build_archive(
            &[("hello", 0o755, b"#!")],
            &["/hello"],
            "mcpbench-worker:local",
        )
        .unwrap();
        assert!(find(&good, b"mcpbench-worker:local").is_some());
        let mut copy = Vec::new();
        untagged_copy(Cursor::new(&good), &mut copy).unwrap();
        assert!(
            find(&copy, b"mcpbench-worker:local").is_none(),
            "the tag is gone"
        );
        assert_eq!(
            inspect_archive(Cursor::new(&copy)).unwrap().id,
            id,
            "the image is the same"
        );
        // A second manifest.json after the first: the engine would read the second.
        let mut out = copied_with(&good, |_, bytes| bytes);
        let mut header = tar::Header::new_gnu();
        header.set_size(2);
        header.set_mode(0o644);
        out.append_data(&mut header, "manifest.json", b"[]".as_slice())
            .unwrap();
        let twice = out.into_inner().unwrap();
        let err = untagged_copy(Cursor::new(&twice), Vec::new()).unwrap_err();
        assert!(err.to_string().contains("twice"), "{err}");
        // The same under spellings the engine cleans to the same name.
        for spelling in ["manifest.json/", "./manifest.json", ".//manifest.json"] {
            let mut out = copied_with(&good, |_, bytes| bytes);
            let tagged = br#"[{"Config":"x.json","RepoTags":["mcpbench-worker:local"]}]"#;
            let mut header = tar::Header::new_gnu();
            header.set_size(tagged.len() as u64);
            header.set_mode(0o644);
            // The raw name in the header (the builder's path setters would clean it).
            header.as_gnu_mut().unwrap().name[..spelling.len()]
                .copy_from_slice(spelling.as_bytes());
            header.set_cksum();
            out.append(&header, tagged.as_slice()).unwrap();
            let archive = out.into_inner().unwrap();
            let err = untagged_copy(Cursor::new(&archive), Vec::new()).unwrap_err();
            assert!(err.to_string().contains("twice"), "{spelling}: {err}");
        }
    }

    fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
        haystack.windows(needle.len()).position(|w| w == needle)
    }

    /// `archive` with its manifest.json replaced.
    fn with_manifest(archive: &[u8], manifest: &[u8]) -> Vec<u8> {
        copied_with(archive, |path, bytes| {
            if path == "manifest.json" {
                manifest.to_vec()
            } else {
                bytes
            }
        })
        .into_inner()
        .unwrap()
    }

    /// A builder holding every entry of `archive`, each as `change` returns it.
    fn copied_with(
        archive: &[u8],
        change: impl Fn(&str, Vec<u8>) -> Vec<u8>,
    ) -> tar::Builder<Vec<u8>> {
        let mut out = tar::Builder::new(Vec::new());
        let mut input = tar::Archive::new(Cursor::new(archive));
        for entry in input.entries().unwrap() {
            let mut entry = entry.unwrap();
            let path = entry.path().unwrap().to_string_lossy().to_string();
            let mut bytes = Vec::new();
            entry.read_to_end(&mut bytes).unwrap();
            let bytes = change(&path, bytes);
            let mut header = tar::Header::new_gnu();
            header.set_size(bytes.len() as u64);
            header.set_mode(0o644);
            out.append_data(&mut header, &path, bytes.as_slice())
                .unwrap();
        }
        out
    }
}
