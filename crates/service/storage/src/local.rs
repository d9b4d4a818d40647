//! The local-directory backend: one file per key under a root directory.
//!
//! A put writes a temporary file beside its destination, flushes it to disk and renames it over
//! the destination, so a reader (or a restart after a crash) sees either the old trace or the new
//! one, never a part. Temporary names start with [`TEMP_PREFIX`], which holds a `~` that no valid
//! key may contain, so a temporary file is never mistaken for a trace. A crash between create and
//! rename can leave such a file behind; it is inert and safe to delete.
//!
//! File-system calls are blocking, so each operation runs on tokio's blocking pool.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::{MAX_TRACE_BYTES, StorageError};

/// Prefix of every temporary file this backend creates.
pub(crate) const TEMP_PREFIX: &str = ".tmp~";

#[derive(Debug)]
pub(crate) struct LocalStore {
    root: PathBuf,
}

impl LocalStore {
    /// Opens (creating if needed) the directory `root`.
    pub(crate) fn new(root: PathBuf) -> Result<Self, StorageError> {
        create_private_dir(&root)?;
        Ok(Self { root })
    }

    pub(crate) fn describe(&self) -> String {
        format!("directory {}", self.root.display())
    }

    /// `key` must have passed [`validate_key`](crate::validate_key): it is relative, has no `.`
    /// or `..` segment, and so names a path strictly inside the root.
    fn path_of(&self, key: &str) -> PathBuf {
        self.root.join(key)
    }

    pub(crate) async fn put(&self, key: &str, bytes: Vec<u8>) -> Result<(), StorageError> {
        let path = self.path_of(key);
        blocking(&self.root, move || write_atomically(&path, &bytes)).await
    }

    pub(crate) async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
        let path = self.path_of(key);
        let key = key.to_owned();
        blocking(&self.root, move || read_bounded(&key, &path)).await
    }

    pub(crate) async fn size(&self, key: &str) -> Result<Option<u64>, StorageError> {
        let path = self.path_of(key);
        blocking(&self.root, move || match fs::metadata(&path) {
            Ok(meta) => Ok(meta.is_file().then_some(meta.len())),
            Err(err)
                if matches!(
                    err.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                ) =>
            {
                Ok(None)
            }
            Err(err) => Err(StorageError::io("inspect", &path)(err)),
        })
        .await
    }

    pub(crate) async fn put_file(&self, key: &str, source: &Path) -> Result<(), StorageError> {
        let path = self.path_of(key);
        let source = source.to_owned();
        blocking(&self.root, move || {
            let dir = path
                .parent()
                .expect("a key under the root has a parent directory");
            create_private_dir(dir)?;
            let temp = temp_file_in(dir)?;
            fs::copy(&source, temp.path()).map_err(StorageError::io("copy", &source))?;
            // `fs::copy` gives the copy the source's mode: back to the store's own.
            #[cfg(unix)]
            fs::set_permissions(
                temp.path(),
                std::os::unix::fs::PermissionsExt::from_mode(0o600),
            )
            .map_err(StorageError::io("write", temp.path()))?;
            temp.as_file()
                .sync_all()
                .map_err(StorageError::io("write", temp.path()))?;
            temp.persist(&path)
                .map_err(|failed| StorageError::io("replace", &path)(failed.error))?;
            Ok(())
        })
        .await
    }

    pub(crate) async fn get_file(&self, key: &str, dest: &Path) -> Result<bool, StorageError> {
        let path = self.path_of(key);
        let dest = dest.to_owned();
        blocking(&self.root, move || match fs::copy(&path, &dest) {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound && !path.exists() => Ok(false),
            Err(e) => Err(StorageError::io("copy", &path)(e)),
        })
        .await
    }

    pub(crate) async fn check(&self) -> Result<(), StorageError> {
        let root = self.root.clone();
        blocking(&self.root, move || probe_writable(&root)).await
    }
}

/// Runs `work` on the blocking pool; a panic in it resumes here.
async fn blocking<T: Send + 'static>(
    root: &Path,
    work: impl FnOnce() -> Result<T, StorageError> + Send + 'static,
) -> Result<T, StorageError> {
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result,
        Err(join) if join.is_panic() => std::panic::resume_unwind(join.into_panic()),
        Err(_) => Err(StorageError::Io {
            operation: "finish a file operation in",
            path: root.to_owned(),
            source: io::Error::other("the runtime is shutting down"),
        }),
    }
}

/// A temporary file beside its destination, mode 0600 (tempfile's own): traces hold what
/// agents and tools said, and container logs whatever an image printed, which no other local
/// user should read (the service's processes run as one user).
fn temp_file_in(dir: &Path) -> Result<tempfile::NamedTempFile, StorageError> {
    tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(dir)
        .map_err(StorageError::io("create a temporary file in", dir))
}

/// Creates `dir` and its missing parents, each 0700.
fn create_private_dir(dir: &Path) -> Result<(), StorageError> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(dir)
        .map_err(StorageError::io("create directory", dir))
}

fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), StorageError> {
    let dir = path
        .parent()
        .expect("a key under the root has a parent directory");
    create_private_dir(dir)?;
    // Dropping `temp` on any early return deletes the temporary file.
    let mut temp = temp_file_in(dir)?;
    temp.write_all(bytes)
        .and_then(|()| temp.as_file().sync_all())
        .map_err(StorageError::io("write", temp.path()))?;
    temp.persist(path)
        .map_err(|failed| StorageError::io("replace", path)(failed.error))?;
    // Make the rename itself durable. Best effort: not every platform can open a directory.
    if let Ok(dir) = File::open(dir) {
        let _ = dir.sync_all();
    }
    Ok(())
}

fn read_bounded(key: &str, path: &Path) -> Result<Option<Vec<u8>>, StorageError> {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(err)
            if matches!(
                err.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(None);
        }
        Err(err) => return Err(StorageError::io("open", path)(err)),
    };
    let metadata = file.metadata().map_err(StorageError::io("inspect", path))?;
    if !metadata.is_file() {
        // `runs/<id>` is a directory of traces, not a trace: absent, as it is in S3.
        return Ok(None);
    }
    let too_large = || StorageError::TooLarge {
        key: key.to_owned(),
        limit: MAX_TRACE_BYTES,
    };
    if metadata.len() > MAX_TRACE_BYTES {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    // The file may grow while it is read: the bound holds regardless.
    file.take(MAX_TRACE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(StorageError::io("read", path))?;
    if bytes.len() as u64 > MAX_TRACE_BYTES {
        return Err(too_large());
    }
    Ok(Some(bytes))
}

/// Proves the root accepts a new file by creating (and deleting) a temporary one.
fn probe_writable(root: &Path) -> Result<(), StorageError> {
    let mut probe = temp_file_in(root)?;
    probe
        .write_all(b"ok")
        .map_err(StorageError::io("write", probe.path()))?;
    probe
        .close()
        .map_err(StorageError::io("delete a probe file in", root))
}
