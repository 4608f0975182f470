//! A database that hangs or goes away on the test's command.

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// A TCP proxy in front of a database that a test can freeze (bytes stop flowing both ways, as with a
/// hung server) or cut (every connection dropped, new ones refused), the fault hook of fault tests.
pub struct FaultProxy {
    pub port: u16,
    mode: watch::Sender<Mode>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Flowing,
    Frozen,
    Cut,
}

impl FaultProxy {
    /// A proxy forwarding to `upstream` (`host:port`).
    pub async fn start(upstream: String) -> FaultProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (mode, watcher) = watch::channel(Mode::Flowing);
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                if *watcher.borrow() == Mode::Cut {
                    drop(client);
                    continue;
                }
                let Ok(server) = TcpStream::connect(&upstream).await else {
                    continue;
                };
                let (cr, cw) = client.into_split();
                let (sr, sw) = server.into_split();
                tokio::spawn(pump(cr, sw, watcher.clone()));
                tokio::spawn(pump(sr, cw, watcher.clone()));
            }
        });
        FaultProxy { port, mode }
    }

    /// Stops all traffic without closing anything: the database "hangs".
    pub fn freeze(&self) {
        self.mode.send_replace(Mode::Frozen);
    }

    /// Lets traffic flow again.
    pub fn unfreeze(&self) {
        self.mode.send_replace(Mode::Flowing);
    }

    /// Drops every connection and refuses new ones: the database "goes away".
    pub fn cut(&self) {
        self.mode.send_replace(Mode::Cut);
    }
}

async fn pump(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    mut mode: watch::Receiver<Mode>,
) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = tokio::select! {
            read = from.read(&mut buf) => match read {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            },
            _ = mode.wait_for(|m| *m == Mode::Cut) => return,
        };
        // Hold the bytes while frozen; give up when cut.
        match mode.wait_for(|m| *m != Mode::Frozen).await.map(|m| *m) {
            Ok(Mode::Flowing) => {}
            _ => return,
        }
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}
