//! Test agents for the sandbox, hostile and not: one static binary (standard library only,
//! built by the tests with `rustc -C target-feature=+crt-static`) whose first argument picks
//! what it does. Each speaks just enough HTTP/1.1 to take a `mcpbench/1` request.
//!
//! Never part of the product; it lives here so that every abuse the sandbox must contain is
//! written down and run.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs, UdpSocket};
use std::time::Duration;

unsafe extern "C" {
    fn signal(signum: i32, handler: usize) -> usize;
}
const SIGTERM: i32 = 15;
const SIG_IGN: usize = 1;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map(String::as_str).unwrap_or("null");
    let rest = &args[args.len().min(2)..];
    eprintln!("hostile agent: {mode} {rest:?}");
    match mode {
        "null" => serve(|_| Reply::Answer),
        "probe" => {
            for target in rest {
                println!("probe {target} -> {}", probe(target));
            }
            serve(|_| Reply::Answer)
        }
        "forkbomb-child" => fork_forever(),
        // Forks from the request's thread, so the reply never comes whenever the limit bites.
        "forkbomb" => serve(|_| fork_forever()),
        "balloon" => serve(|_| {
            let mut hoard: Vec<Vec<u8>> = Vec::new();
            loop {
                // Touch every page so the memory is really used.
                hoard.push(vec![1u8; 16 << 20]);
                eprintln!("balloon: {} MiB", hoard.len() * 16);
            }
        }),
        "filltmp" => serve(|_| {
            let mut file = std::fs::File::create("/tmp/fill").expect("create /tmp/fill");
            let chunk = vec![7u8; 1 << 20];
            let mut written = 0u64;
            let error = loop {
                match file.write_all(&chunk).and_then(|_| file.sync_data()) {
                    Ok(()) => written += chunk.len() as u64,
                    Err(e) => break e,
                }
                if written > (8u64 << 30) {
                    break std::io::Error::other("wrote 8 GiB without a limit");
                }
            };
            println!("filltmp: wrote {written} bytes, then: {error}");
            Reply::Answer
        }),
        "writeroot" => serve(|_| {
            match std::fs::File::create("/evil") {
                Ok(_) => println!("writeroot: WROTE /evil"),
                Err(e) => println!("writeroot: refused: {e}"),
            }
            Reply::Answer
        }),
        "ignoreterm" => {
            unsafe { signal(SIGTERM, SIG_IGN) };
            println!("ignoreterm: SIGTERM ignored");
            serve(|_| Reply::Never)
        }
        "silent" => loop {
            std::thread::sleep(Duration::from_secs(3600));
        },
        "garbage" => serve(|_| Reply::Garbage),
        // Sends the request (the goal, a private task's too) back as an error's text.
        "echo" => serve(|body| Reply::Error(body.to_string())),
        "sleep" => serve(|_| Reply::Never),
        "canary" => {
            let port = rest.first().map(String::as_str).unwrap_or("7");
            let listener = TcpListener::bind(format!("0.0.0.0:{port}")).expect("bind canary");
            println!("canary listening on {port}");
            for conn in listener.incoming() {
                if let Ok(c) = conn {
                    println!("CANARY CONNECTION from {:?}", c.peer_addr());
                }
            }
        }
        other => {
            eprintln!("unknown mode {other}");
            std::process::exit(2);
        }
    }
}

enum Reply {
    Answer,
    Error(String),
    Garbage,
    Never,
}

/// Serves `$PORT`: each request gets `handle`'s reply.
fn serve(handle: impl Fn(&str) -> Reply + Send + Sync + 'static) -> ! {
    let port = std::env::var("PORT").unwrap_or_else(|_| "8080".into());
    let listener = TcpListener::bind(format!("0.0.0.0:{port}")).expect("bind $PORT");
    eprintln!("listening on {port}");
    let handle = std::sync::Arc::new(handle);
    for conn in listener.incoming() {
        let Ok(conn) = conn else { continue };
        let handle = handle.clone();
        // With the pids limit reached a thread cannot be made: drop that connection, go on.
        let _ = std::thread::Builder::new().spawn(move || {
            let Some((body, mut conn)) = read_request(conn) else { return };
            let reply = match handle(&body) {
                Reply::Answer => {
                    let json = br#"{"answer": ""}"#;
                    let mut out = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                        json.len()
                    )
                    .into_bytes();
                    out.extend_from_slice(json);
                    out
                }
                Reply::Error(text) => format!(
                    "HTTP/1.1 500 Internal Server Error\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                    text.len()
                )
                .into_bytes(),
                Reply::Garbage => b"HTTP/1.1 200 OK\r\ncontent-length: 12\r\n\r\n\x00\xff{{not json".to_vec(),
                Reply::Never => loop {
                    std::thread::sleep(Duration::from_secs(3600));
                },
            };
            let _ = conn.write_all(&reply);
        });
    }
    unreachable!("incoming() never ends")
}

fn read_request(conn: TcpStream) -> Option<(String, TcpStream)> {
    let mut reader = BufReader::new(conn.try_clone().ok()?);
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().ok()?;
        }
    }
    let mut body = vec![0u8; length.min(1 << 20)];
    reader.read_exact(&mut body).ok()?;
    Some((String::from_utf8_lossy(&body).into_owned(), conn))
}

/// `tcp:HOST:PORT` (connect), `dns:SERVER` (a UDP query for example.com), `resolv` (every
/// nameserver of /etc/resolv.conf), `name:HOST` (resolve through the C library).
fn probe(target: &str) -> String {
    let result = if let Some(addr) = target.strip_prefix("tcp:") {
        addr.parse::<SocketAddr>()
            .map_err(|e| e.to_string())
            .and_then(|a| TcpStream::connect_timeout(&a, Duration::from_secs(2)).map_err(|e| e.to_string()))
            .map(|_| ())
    } else if let Some(server) = target.strip_prefix("dns:") {
        dns(server)
    } else if target == "resolv" {
        let conf = std::fs::read_to_string("/etc/resolv.conf").unwrap_or_default();
        let servers: Vec<&str> = conf
            .lines()
            .filter_map(|l| l.strip_prefix("nameserver"))
            .map(str::trim)
            .collect();
        if servers.is_empty() {
            Err("no nameserver in /etc/resolv.conf".to_string())
        } else {
            let answered: Vec<&&str> = servers.iter().filter(|s| dns(s).is_ok()).collect();
            if answered.is_empty() {
                Err(format!("none of {servers:?} answered"))
            } else {
                Ok(())
            }
        }
    } else if let Some(host) = target.strip_prefix("name:") {
        format!("{host}:80")
            .to_socket_addrs()
            .map(|_| ())
            .map_err(|e| e.to_string())
    } else {
        Err("unknown probe".into())
    };
    match result {
        Ok(()) => "CONNECTED".into(),
        Err(e) => format!("blocked: {e}"),
    }
}

fn dns(server: &str) -> Result<(), String> {
    let socket = UdpSocket::bind("0.0.0.0:0").map_err(|e| e.to_string())?;
    socket.set_read_timeout(Some(Duration::from_secs(2))).map_err(|e| e.to_string())?;
    // A query for example.com, type A.
    let query = b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x07example\x03com\x00\x00\x01\x00\x01";
    socket
        .send_to(query, format!("{server}:53"))
        .map_err(|e| e.to_string())?;
    let mut buf = [0u8; 512];
    socket.recv_from(&mut buf).map(|_| ()).map_err(|e| e.to_string())
}

fn fork_forever() -> ! {
    let mut reported = false;
    loop {
        match std::process::Command::new("/proc/self/exe").arg("forkbomb-child").spawn() {
            Ok(child) => std::mem::forget(child),
            Err(e) => {
                if !reported {
                    println!("forkbomb: fork failed: {e}");
                    reported = true;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }
}
