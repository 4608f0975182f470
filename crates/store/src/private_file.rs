//! Files of the world directory that hold a secret are the server's alone: written mode 0600, and
//! made 0600 when found more open. They are the SQLite database (`sqlite_file`), the generated
//! token-signing secret and the layout seed (the server's `auth::secret`, `world_seed`). The world
//! directory itself stays traversable, as a local PostgreSQL run as the `postgres` user needs.

use std::path::Path;

/// Writes `contents` to `path`, creating it mode 0600 (and making an existing file 0600).
pub fn write(path: &Path, contents: &str) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(path)?;
        file.write_all(contents.as_bytes())?;
    }
    #[cfg(not(unix))]
    std::fs::write(path, contents)?;
    // `mode` applies only to a file created here.
    restrict(path)
}

/// An empty file at `path`, mode 0600, unless one is there.
pub fn create(path: &Path) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(err) => Err(err),
    }
}

/// Takes every permission but the owner's off `path` if it has more; nothing if it is missing.
pub fn restrict(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = match std::fs::metadata(path) {
            Ok(metadata) => metadata.permissions().mode(),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(err) => return Err(err),
        };
        if mode & 0o077 != 0 {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
            tracing::warn!(
                path = %path.display(),
                was = format!("{:o}", mode & 0o777),
                "a file holding a secret was readable by other users: made private (0600)"
            );
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn written_files_are_private_even_when_they_were_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secret");
        write(&path, "one").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        write(&path, "two").unwrap();
        assert_eq!(mode(&path), 0o600);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        restrict(&dir.path().join("missing")).unwrap();
        let empty = dir.path().join("empty");
        create(&empty).unwrap();
        assert_eq!(mode(&empty), 0o600);
        write(&empty, "kept").unwrap();
        create(&empty).unwrap();
        assert_eq!(
            std::fs::read_to_string(&empty).unwrap(),
            "kept",
            "create keeps a file"
        );
    }
}
