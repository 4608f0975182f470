//! The mark of a running world: `wayfarer.lock` in the world directory, held with an advisory
//! file lock (`flock`) for as long as a server runs on the directory. A server holds it shared
//! (several servers may share a directory's PostgreSQL, and a test may start one before the last
//! has quite finished); `wayfarer restore` needs it exclusive, so it is refused while any server
//! runs there, and a server cannot start while a restore is writing the database. The operating
//! system drops the lock with the process, so a server killed with `kill -9` leaves nothing to
//! clean up (a pid file would claim a dead server is running).

use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};

/// The lock file's name in the world directory.
pub const LOCK_FILE: &str = "wayfarer.lock";

/// A held lock; dropping it releases it.
#[derive(Debug)]
pub struct WorldLock {
    _file: File,
}

/// Why the lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum WorldLockError {
    /// `wayfarer restore`: a server holds the lock.
    #[error("a world is running on {0} (its {LOCK_FILE} is held): stop the server first")]
    Running(PathBuf),
    /// A server starting: a restore holds it.
    #[error(
        "a restore is writing the database of {0} (its {LOCK_FILE} is held): wait for it to finish"
    )]
    Restoring(PathBuf),
    #[error("cannot open {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl WorldLock {
    /// A server's hold on `world_dir` (shared): refused only while a restore runs.
    pub fn serve(world_dir: &Path) -> Result<WorldLock, WorldLockError> {
        let file = open(world_dir)?;
        match file.try_lock_shared() {
            Ok(()) => Ok(WorldLock { _file: file }),
            Err(TryLockError::WouldBlock) => Err(WorldLockError::Restoring(world_dir.into())),
            Err(TryLockError::Error(source)) => Err(WorldLockError::Io {
                path: world_dir.join(LOCK_FILE),
                source,
            }),
        }
    }

    /// A restore's hold on `world_dir` (exclusive): refused while any server runs on it.
    pub fn exclusive(world_dir: &Path) -> Result<WorldLock, WorldLockError> {
        let file = open(world_dir)?;
        match file.try_lock() {
            Ok(()) => Ok(WorldLock { _file: file }),
            Err(TryLockError::WouldBlock) => Err(WorldLockError::Running(world_dir.into())),
            Err(TryLockError::Error(source)) => Err(WorldLockError::Io {
                path: world_dir.join(LOCK_FILE),
                source,
            }),
        }
    }
}

fn open(world_dir: &Path) -> Result<File, WorldLockError> {
    let path = world_dir.join(LOCK_FILE);
    let failed = |source| WorldLockError::Io {
        path: path.clone(),
        source,
    };
    std::fs::create_dir_all(world_dir).map_err(failed)?;
    // Empty and private; the lock is on the open file, never on its contents.
    wayfarer_store::private_file::create(&path).map_err(failed)?;
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_share_the_lock_and_a_restore_excludes_them() {
        let dir = tempfile::tempdir().unwrap();
        let one = WorldLock::serve(dir.path()).unwrap();
        let two = WorldLock::serve(dir.path()).unwrap();
        assert!(matches!(
            WorldLock::exclusive(dir.path()),
            Err(WorldLockError::Running(_))
        ));
        drop(one);
        assert!(WorldLock::exclusive(dir.path()).is_err(), "one still runs");
        drop(two);
        let restore = WorldLock::exclusive(dir.path()).unwrap();
        assert!(matches!(
            WorldLock::serve(dir.path()),
            Err(WorldLockError::Restoring(_))
        ));
        drop(restore);
        WorldLock::serve(dir.path()).unwrap();
    }
}
