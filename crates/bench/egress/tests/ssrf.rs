//! SSRF attempts against a loopback listener that counts connections: every refused URL form is
//! refused by `check_url`, the request through the egress client fails, and the listener never
//! sees a connection. Addresses outside loopback are only ever checked, never connected to.

use mcpbench_egress::{
    GuardedClient, MAX_URL_LEN, Policy, Refusal, Timeouts, check_resolved, check_url, client,
};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const OK: &str = "HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok";

/// A loopback HTTP server that answers every request with a fixed response and counts the
/// connections it accepts.
struct Listener {
    addr: SocketAddr,
    accepted: Arc<AtomicUsize>,
    /// Connections made by `connections_so_far` itself.
    probes: AtomicUsize,
}

impl Listener {
    async fn start(response: String) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let accepted = Arc::new(AtomicUsize::new(0));
        let counter = accepted.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                counter.fetch_add(1, Ordering::SeqCst);
                let response = response.clone();
                tokio::spawn(async move {
                    let mut seen = Vec::new();
                    let mut buf = [0u8; 4096];
                    while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
                        match stream.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => seen.extend_from_slice(&buf[..n]),
                        }
                    }
                    let _ = stream.write_all(response.as_bytes()).await;
                    let _ = stream.shutdown().await;
                });
            }
        });
        Self {
            addr,
            accepted,
            probes: AtomicUsize::new(0),
        }
    }

    async fn ok() -> Self {
        Self::start(OK.into()).await
    }

    fn port(&self) -> u16 {
        self.addr.port()
    }

    /// How many connections were made before now. Connects once itself and waits to see that
    /// connection accepted: the accept queue is first in, first out, so any earlier connection
    /// has been counted by then. Returns the count without the probes.
    async fn connections_so_far(&self) -> usize {
        let before = self.accepted.load(Ordering::SeqCst);
        let _probe = TcpStream::connect(self.addr).await.unwrap();
        let probes = self.probes.fetch_add(1, Ordering::SeqCst) + 1;
        for _ in 0..500 {
            let now = self.accepted.load(Ordering::SeqCst);
            if now > before {
                return now - probes;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the probe connection was never accepted");
    }
}

/// Hosted, except that http is allowed, so http is never the reason for a refusal.
fn hosted_with_http() -> Policy {
    Policy {
        allow_http: true,
        ..Policy::hosted()
    }
}

fn timeouts() -> Timeouts {
    Timeouts {
        connect: Duration::from_secs(2),
        request: Some(Duration::from_secs(5)),
    }
}

/// URL forms that reach (or would reach) the listener on loopback at `port`.
fn loopback_forms(port: u16) -> Vec<String> {
    let mut forms: Vec<String> = [
        "http://127.0.0.1:{p}/",
        "HTTP://127.0.0.1:{p}/",
        "https://127.0.0.1:{p}/",
        "http://2130706433:{p}/",
        "http://0x7f000001:{p}/",
        "http://0x7F000001:{p}/",
        "http://127.1:{p}/",
        "http://127.0.1:{p}/",
        "http://0177.0.0.1:{p}/",
        "http://0x7f.0.0.1:{p}/",
        "http://0x7f.1:{p}/",
        "http://017700000001:{p}/",
        "http://127.0.0.1.:{p}/",
        "http://%31%32%37.0.0.1:{p}/",
        "http://\u{ff11}\u{ff12}\u{ff17}.\u{ff10}.\u{ff10}.\u{ff11}:{p}/",
        "http://127.0.0.1\t:{p}/",
        "http:127.0.0.1:{p}/",
        "http:\\\\127.0.0.1:{p}\\",
        "http://127.42.0.1:{p}/",
        "http://[::1]:{p}/",
        "http://[0:0:0:0:0:0:0:1]:{p}/",
        "http://[::ffff:127.0.0.1]:{p}/",
        "http://[::ffff:7f00:1]:{p}/",
        "http://[0:0:0:0:0:ffff:127.0.0.1]:{p}/",
        "http://[64:ff9b::7f00:1]:{p}/",
        "http://[::127.0.0.1]:{p}/",
        "http://0.0.0.0:{p}/",
        "http://0:{p}/",
        "http://[::]:{p}/",
        "http://[::ffff:0.0.0.0]:{p}/",
        "http://localhost:{p}/",
        "http://LocalHost:{p}/",
        "http://localhost.:{p}/",
        "http://agent.localhost:{p}/",
        "http://example.com@127.0.0.1:{p}/",
        "http://user:secret@127.0.0.1:{p}/",
        "http://:secret@127.0.0.1:{p}/",
        "http://:{p}/",
        "http://",
        "ftp://127.0.0.1:{p}/",
        "gopher://127.0.0.1:{p}/_GET%20/",
        "ws://127.0.0.1:{p}/",
        "file:///etc/passwd",
        "file://127.0.0.1/etc/passwd",
        "data:text/plain,hello",
        "javascript:fetch('http://127.0.0.1:{p}/')",
        "//127.0.0.1:{p}/",
        "127.0.0.1:{p}",
        "",
    ]
    .iter()
    .map(|f| f.replace("{p}", &port.to_string()))
    .collect();
    forms.push(format!(
        "http://127.0.0.1:{port}/{}",
        "a".repeat(MAX_URL_LEN)
    ));
    forms.push(format!("http://agent.example/{}", "a".repeat(MAX_URL_LEN)));
    forms
}

/// Refused forms that point away from loopback: checked only, never requested.
const ELSEWHERE: &[&str] = &[
    "http://169.254.169.254/latest/meta-data/",
    "http://2852039166/",
    "http://0xa9fea9fe/",
    "http://[::ffff:169.254.169.254]/",
    "http://[::ffff:a9fe:a9fe]/",
    "http://[64:ff9b::a9fe:a9fe]/",
    "http://[fd00:ec2::254]/",
    "http://metadata.google.internal.localhost/",
    "http://100.100.100.200/",
    "http://168.63.129.16/",
    "http://10.0.0.1/",
    "http://10.255.255.255/",
    "http://012.0.0.1/",
    "http://172.16.0.1/",
    "http://172.20.1.1/",
    "http://172.31.255.255/",
    "http://192.168.0.1/",
    "http://192.168.255.254/",
    "http://100.64.0.1/",
    "http://100.127.255.254/",
    "http://169.254.0.1/",
    "http://192.0.0.192/",
    "http://192.0.2.1/",
    "http://198.18.0.1/",
    "http://224.0.0.1/",
    "http://240.0.0.1/",
    "http://255.255.255.255/",
    "http://[fe80::1]/",
    "http://[fc00::1]/",
    "http://[fd12:3456::1]/",
    "http://[ff02::1]/",
    "http://[2001:db8::1]/",
    "http://[2002:7f00:1::]/",
    "http://127.0.0.1:80@agent.example.com/",
];

/// The request a caller makes: `check_url` first, then the egress client.
async fn check_then_get(http: &reqwest::Client, policy: &Policy, url: &str) -> Result<u16, String> {
    let url = check_url(url, policy).map_err(|r| r.to_string())?;
    let response = http.get(url).send().await.map_err(|e| e.to_string())?;
    Ok(response.status().as_u16())
}

fn error_chain(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

#[tokio::test]
async fn refused_forms_never_reach_the_listener() {
    let listener = Listener::ok().await;
    let policy = hosted_with_http();
    let http = client(policy, timeouts());
    let guarded = GuardedClient::new(policy, timeouts());
    let forms = loopback_forms(listener.port());
    assert!(forms.len() >= 30);
    for url in &forms {
        let refusal = check_url(url, &policy).expect_err(url);
        assert!(
            refusal.to_string().starts_with("the URL"),
            "{url}: {refusal}"
        );
        let outcome = check_then_get(&http, &policy, url).await;
        assert!(outcome.is_err(), "{url} was requested: {outcome:?}");
        assert!(guarded.get(url).is_err(), "{url}");
    }
    assert_eq!(listener.connections_so_far().await, 0);
}

#[test]
fn refused_forms_elsewhere_are_refused_by_the_check() {
    let policy = hosted_with_http();
    for url in ELSEWHERE {
        let refusal = check_url(url, &policy).expect_err(url);
        assert!(
            matches!(refusal, Refusal::Address { .. } | Refusal::UserInfo),
            "{url}: {refusal:?}"
        );
    }
}

#[tokio::test]
async fn the_guard_does_not_block_loopback_for_local_development() {
    let listener = Listener::ok().await;
    let guarded = GuardedClient::new(Policy::local(), timeouts());
    for url in [
        format!("http://127.0.0.1:{}/", listener.port()),
        format!("http://2130706433:{}/", listener.port()),
        format!("http://localhost:{}/", listener.port()),
    ] {
        let response = guarded.get(&url).unwrap().send().await.expect(&url);
        assert_eq!(response.status().as_u16(), 200, "{url}");
        assert_eq!(response.text().await.unwrap(), "ok");
    }
    assert_eq!(listener.connections_so_far().await, 3);
}

#[tokio::test]
async fn a_name_resolving_to_loopback_is_refused_by_the_resolver_alone() {
    let listener = Listener::ok().await;
    // No check_url, no check_resolved: only the client's resolver stands in the way.
    let http = client(hosted_with_http(), timeouts());
    for url in [
        format!("http://localhost:{}/", listener.port()),
        format!("http://LOCALHOST:{}/", listener.port()),
    ] {
        let error = http.get(&url).send().await.expect_err(&url);
        let chain = error_chain(&error);
        assert!(
            chain.contains("does not resolve to a public address"),
            "{chain}"
        );
        assert!(
            !chain.contains("127.0.0.1") && !chain.contains("loopback"),
            "the refusal names what an internal name resolves to: {chain}"
        );
    }
    assert_eq!(listener.connections_so_far().await, 0);

    // The same client under the local policy does connect, so the refusal above is the policy's.
    let local = client(Policy::local(), timeouts());
    let url = format!("http://localhost:{}/", listener.port());
    assert_eq!(local.get(&url).send().await.unwrap().status().as_u16(), 200);
    assert_eq!(listener.connections_so_far().await, 1);
}

#[tokio::test]
async fn submission_checks_resolve_names_and_fail_closed() {
    let local = url::Url::parse("http://localhost:8080/").unwrap();
    check_resolved(&local, &Policy::local())
        .await
        .expect("localhost is fine for local development");
    let refused = check_resolved(&local, &hosted_with_http())
        .await
        .unwrap_err();
    assert_eq!(
        refused.to_string(),
        "the URL's host localhost is a loopback address, which agents may not use"
    );
    let literal = url::Url::parse("http://[::ffff:7f00:1]/").unwrap();
    assert!(check_resolved(&literal, &hosted_with_http()).await.is_err());
}

#[tokio::test]
async fn redirects_are_not_followed_even_locally() {
    let target = Listener::ok().await;
    let redirect = format!(
        "HTTP/1.1 302 Found\r\nlocation: http://127.0.0.1:{}/\r\ncontent-length: 0\r\n\
         connection: close\r\n\r\n",
        target.port()
    );
    let redirector = Listener::start(redirect).await;
    let guarded = GuardedClient::new(Policy::local(), timeouts());
    let url = format!("http://127.0.0.1:{}/", redirector.port());
    let response = guarded.get(&url).unwrap().send().await.unwrap();
    assert_eq!(response.status().as_u16(), 302);
    assert_eq!(redirector.connections_so_far().await, 1);
    assert_eq!(target.connections_so_far().await, 0);
}

#[tokio::test]
async fn hosted_refuses_plain_http_before_connecting() {
    let listener = Listener::ok().await;
    let guarded = GuardedClient::new(Policy::hosted(), timeouts());
    let refusal = guarded
        .get("http://agent.example.com/")
        .expect_err("http is refused when hosted");
    assert!(matches!(refusal, Refusal::Scheme { .. }), "{refusal:?}");
    // Without check_url, the client itself still refuses http when the policy does: private
    // addresses are allowed here so that only the scheme can be the reason.
    let https_only = client(
        Policy {
            allow_private: true,
            allow_http: false,
        },
        timeouts(),
    );
    let url = format!("http://127.0.0.1:{}/", listener.port());
    assert!(https_only.get(&url).send().await.is_err());
    assert_eq!(listener.connections_so_far().await, 0);
}
