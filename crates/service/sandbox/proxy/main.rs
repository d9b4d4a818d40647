//! The sandbox's network proxy: the only way in or out of a pod.
//!
//! It runs in the pod's proxy container, which has no network but loopback and shares that
//! loopback with the agent's container. Two directions, each through a Unix socket in a
//! directory that only the proxy container mounts:
//!
//! - MCP: it listens on `127.0.0.1:MCP_PORT` and carries each connection to `DIR/mcp.sock`,
//!   where the worker forwards it to its MCP gateway. This is the agent's only way out, unless:
//! - Model (only when a fourth argument names `MODEL_PORT`): it listens on
//!   `127.0.0.1:MODEL_PORT` and carries each connection to `DIR/model.sock`, where the worker
//!   relays chat-completions requests to the vendor's model (its key added by the worker).
//! - Agent: it listens on `DIR/agent.sock` and carries each connection to
//!   `127.0.0.1:AGENT_PORT`, first answering one byte: `+` when the agent accepted the
//!   connection, `-` when it did not (nothing listens yet), so the worker can wait for
//!   readiness without guessing.
//!
//! Standard library only, linked statically, so it runs in an image with nothing else in it.
//! Built by the sandbox crate's build script; not a workspace member.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Connections carried at once; past it new ones are closed (an agent that opens thousands
/// only hurts its own run). Each takes two threads: the container's pids limit allows them.
const MAX_CONNECTIONS: usize = 128;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if !(4..=5).contains(&args.len()) {
        eprintln!("usage: mcpbench-sandbox-proxy DIR MCP_PORT AGENT_PORT [MODEL_PORT]");
        std::process::exit(2);
    }
    let dir = Path::new(&args[1]).to_path_buf();
    let port = |s: &str| -> u16 {
        s.parse().unwrap_or_else(|_| {
            eprintln!("not a port: {s}");
            std::process::exit(2)
        })
    };
    let (mcp_port, agent_port) = (port(&args[2]), port(&args[3]));
    let open = Arc::new(AtomicUsize::new(0));

    carry_out(mcp_port, dir.join("mcp.sock"), open.clone(), "MCP");
    if let Some(model_port) = args.get(4) {
        carry_out(port(model_port), dir.join("model.sock"), open.clone(), "model");
    }

    let agent_sock = dir.join("agent.sock");
    let _ = std::fs::remove_file(&agent_sock);
    let agent = UnixListener::bind(&agent_sock).unwrap_or_else(|e| fatal("binding agent.sock", e));
    let target = SocketAddr::from((Ipv4Addr::LOCALHOST, agent_port));
    println!("ready");
    for conn in agent.incoming() {
        let Ok(mut unix) = conn else {
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        let Some(slot) = Slot::take(&open) else { continue };
        let _ = std::thread::Builder::new().spawn(move || {
            let _slot = slot;
            match TcpStream::connect_timeout(&target, Duration::from_secs(2)) {
                Ok(tcp) => {
                    let _ = tcp.set_nodelay(true);
                    if unix.write_all(b"+").is_ok() {
                        pipe(Stream::Unix(unix), Stream::Tcp(tcp));
                    }
                }
                Err(_) => {
                    let _ = unix.write_all(b"-");
                }
            }
        });
    }
}

/// Listens on `127.0.0.1:port` inside the pod and carries each connection to the Unix socket
/// `sock`, which the worker serves: one of the agent's ways out.
fn carry_out(port: u16, sock: std::path::PathBuf, open: Arc<AtomicUsize>, what: &str) {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port))
        .unwrap_or_else(|e| fatal(&format!("binding the {what} port"), e));
    let accepting = std::thread::Builder::new().spawn(move || {
        for conn in listener.incoming() {
            let Ok(tcp) = conn else {
                // Out of descriptors, say: wait rather than spin.
                std::thread::sleep(Duration::from_millis(10));
                continue;
            };
            let Some(slot) = Slot::take(&open) else { continue };
            let path = sock.clone();
            // A thread that cannot be made drops the connection, never the proxy.
            let _ = std::thread::Builder::new().spawn(move || {
                let _slot = slot;
                if let Ok(unix) = UnixStream::connect(&path) {
                    let _ = tcp.set_nodelay(true);
                    pipe(Stream::Tcp(tcp), Stream::Unix(unix));
                }
            });
        }
    });
    if let Err(e) = accepting {
        fatal(&format!("starting the {what} thread"), e);
    }
}

fn fatal(what: &str, e: std::io::Error) -> ! {
    eprintln!("{what}: {e}");
    std::process::exit(1)
}

/// One of the `MAX_CONNECTIONS` slots, given back on drop.
struct Slot(Arc<AtomicUsize>);

impl Slot {
    fn take(open: &Arc<AtomicUsize>) -> Option<Slot> {
        if open.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            open.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        Some(Slot(open.clone()))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

enum Stream {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Stream {
    fn split(self) -> (Box<dyn Read + Send>, Box<dyn Write + Send>, Box<dyn FnOnce() + Send>) {
        match self {
            Stream::Tcp(s) => {
                let w = s.try_clone().expect("clone a TCP stream");
                let c = s.try_clone().expect("clone a TCP stream");
                (Box::new(s), Box::new(w), Box::new(move || { let _ = c.shutdown(Shutdown::Write); }))
            }
            Stream::Unix(s) => {
                let w = s.try_clone().expect("clone a Unix stream");
                let c = s.try_clone().expect("clone a Unix stream");
                (Box::new(s), Box::new(w), Box::new(move || { let _ = c.shutdown(Shutdown::Write); }))
            }
        }
    }
}

/// Copies both ways until both sides are done, passing each half-close on.
fn pipe(a: Stream, b: Stream) {
    let (mut a_read, mut a_write, a_close) = a.split();
    let (mut b_read, mut b_write, b_close) = b.split();
    let up = std::thread::Builder::new().spawn(move || {
        let _ = std::io::copy(&mut a_read, &mut b_write);
        b_close();
    });
    let Ok(up) = up else { return };
    let _ = std::io::copy(&mut b_read, &mut a_write);
    a_close();
    let _ = up.join();
}
