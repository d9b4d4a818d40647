//! How the binaries listen: one accept queue for every listener an agent or a client reaches.

use std::net::SocketAddr;
use tokio::net::{TcpListener, TcpSocket};

/// Loopback, on a port of the system's choosing: where local gateways and agents listen.
pub const LOOPBACK: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), 0);

/// The accept queue a listener asks for. The kernel caps it at `net.core.somaxconn` (4096 by
/// default since Linux 5.4).
pub const BACKLOG: u32 = 4096;

/// Listens on `addr` with an accept queue of [`BACKLOG`]; call it inside a Tokio runtime.
///
/// `std::net::TcpListener::bind` and `tokio::net::TcpListener::bind` ask for 128. When more
/// clients connect at once than the process has accepted yet (a month's agents opening their
/// sessions, a crawler, a reconnecting worker pool), the kernel drops the handshakes past the
/// queue and the clients send them again only after a second, then three more: a stall that
/// no request timing shows.
pub fn bind(addr: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = match addr {
        SocketAddr::V4(_) => TcpSocket::new_v4()?,
        SocketAddr::V6(_) => TcpSocket::new_v6()?,
    };
    // As `TcpListener::bind` does: a restarted process can bind again at once.
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(BACKLOG)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Three hundred clients connect at once to a listener that accepts none of them yet: every
    /// handshake completes. On loopback the kernel answers a handshake within the `connect`
    /// call itself unless the queue is full, when it drops it and the client waits a second
    /// before trying again; so the deadline below only separates "answered" from "dropped".
    #[tokio::test]
    async fn a_burst_of_clients_all_get_through_the_handshake() {
        const CLIENTS: usize = 300;
        let listener = bind(LOOPBACK).unwrap();
        let addr = listener.local_addr().unwrap();
        let mut connecting = tokio::task::JoinSet::new();
        for _ in 0..CLIENTS {
            connecting.spawn(async move {
                tokio::time::timeout(
                    Duration::from_millis(900),
                    tokio::net::TcpStream::connect(addr),
                )
                .await
                .ok()
                .and_then(Result::ok)
            });
        }
        let mut held = Vec::new();
        while let Some(stream) = connecting.join_next().await {
            held.extend(stream.unwrap());
        }
        assert_eq!(
            held.len(),
            CLIENTS,
            "{} of {CLIENTS} handshakes were dropped: the accept queue is too short",
            CLIENTS - held.len()
        );
        // They are all there to be accepted.
        for _ in 0..CLIENTS {
            listener.accept().await.unwrap();
        }
    }
}
