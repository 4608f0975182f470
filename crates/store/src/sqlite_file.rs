//! The SQLite database file is the server's alone: every account, character and ban is in it, so
//! it is created mode 0600 (SQLite would create it 0644, readable by every user of the machine),
//! and a file found more open is closed to 0600, with its `-wal` and `-shm` files. SQLite creates
//! those with the main file's mode, so a private database keeps them private.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use sqlx::sqlite::SqliteConnectOptions;

use crate::{private_file, StoreError};

/// Creates the database file of a `sqlite:` URL private when missing, or makes it and its `-wal`
/// and `-shm` files private when they are more open. Nothing for an in-memory database.
pub(crate) fn make_private(url: &str) -> Result<(), StoreError> {
    let Some(path) = file_of(url) else {
        return Ok(());
    };
    let failed = |file: &Path| {
        let path = file.display().to_string();
        move |source| StoreError::File { path, source }
    };
    // SQLite takes an empty file for a new database.
    private_file::create(&path).map_err(failed(&path))?;
    for file in [
        path.clone(),
        suffixed(&path, "-wal"),
        suffixed(&path, "-shm"),
    ] {
        private_file::restrict(&file).map_err(failed(&file))?;
    }
    Ok(())
}

/// The file a `sqlite:` URL names, as sqlx reads it; `None` for an in-memory database.
fn file_of(url: &str) -> Option<PathBuf> {
    if url.contains(":memory:") || url.contains("mode=memory") {
        return None;
    }
    let options = SqliteConnectOptions::from_str(url).ok()?;
    let path = options.get_filename();
    (!path.as_os_str().is_empty()).then(|| path.to_path_buf())
}

fn suffixed(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_missing_file_is_created_private_and_an_open_one_is_closed() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("world.db");
        make_private(&format!("sqlite://{}?mode=rwc", db.display())).unwrap();
        assert_eq!(mode(&db), 0o600);
        assert_eq!(std::fs::metadata(&db).unwrap().len(), 0);

        let wal = suffixed(&db, "-wal");
        std::fs::write(&wal, b"x").unwrap();
        for file in [&db, &wal] {
            std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
        make_private(&format!("sqlite:{}", db.display())).unwrap();
        assert_eq!(mode(&db), 0o600);
        assert_eq!(mode(&wal), 0o600);
        assert!(
            !suffixed(&db, "-shm").exists(),
            "nothing is created but the database"
        );
    }

    #[test]
    fn in_memory_databases_have_no_file() {
        assert_eq!(file_of("sqlite::memory:"), None);
        assert_eq!(file_of("sqlite://?mode=memory"), None);
        assert_eq!(
            file_of("sqlite:///tmp/a%3Fb.db?mode=rwc"),
            Some(PathBuf::from("/tmp/a?b.db"))
        );
    }
}
