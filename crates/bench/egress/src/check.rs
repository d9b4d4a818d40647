//! Checks on a URL: its text ([`check_url`]) and what its host resolves to ([`check_resolved`]).

use crate::Policy;
use crate::address::{Kind, refusal_kind};
use std::net::{IpAddr, SocketAddr};
use url::{Host, Url};

/// The longest URL we accept, in bytes.
pub const MAX_URL_LEN: usize = 2048;

/// Why a URL may not be called. `Display` is a sentence a vendor can act on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    #[error("the URL is longer than {max} bytes")]
    TooLong { max: usize },
    #[error("the URL could not be parsed: {0}")]
    Malformed(url::ParseError),
    #[error("the URL's scheme {scheme:?} is not allowed; agents must use {allowed}")]
    Scheme {
        scheme: String,
        allowed: &'static str,
    },
    #[error("the URL contains a user name or password, which agents may not use")]
    UserInfo,
    #[error("the URL has no host")]
    NoHost,
    #[error("the URL's host {host} is {kind}, which agents may not use")]
    Address { host: String, kind: &'static str },
    /// What it resolved to stays out of the sentence: naming the address (or its kind) of an
    /// internal name would make the refusal an oracle of our DNS for whoever submits URLs. The
    /// fields are for our logs.
    #[error("the URL's host {host} does not resolve to a public address, which agents must use")]
    ResolvesTo {
        host: String,
        addr: IpAddr,
        kind: &'static str,
    },
    /// Worded as [`Refusal::ResolvesTo`]: two sentences would tell whoever submits URLs
    /// whether an internal name exists.
    #[error("the URL's host {host} does not resolve to a public address, which agents must use")]
    Unresolvable { host: String },
}

/// Checks the text of `url` under `policy` and returns it parsed: a scheme of https (or http if
/// the policy allows it), no user info, a host, at most [`MAX_URL_LEN`] bytes, not a `localhost`
/// name, and an IP-literal host only if the policy permits the address, however it is spelled.
///
/// Names are not resolved here; see [`check_resolved`] and [`crate::client`].
pub fn check_url(url: &str, policy: &Policy) -> Result<Url, Refusal> {
    if url.len() > MAX_URL_LEN {
        return Err(Refusal::TooLong { max: MAX_URL_LEN });
    }
    let parsed = Url::parse(url).map_err(Refusal::Malformed)?;
    // Percent-encoding can lengthen the URL; what is sent is the serialised form.
    if parsed.as_str().len() > MAX_URL_LEN {
        return Err(Refusal::TooLong { max: MAX_URL_LEN });
    }
    let allowed = if policy.allow_http {
        "http or https"
    } else {
        "https"
    };
    match parsed.scheme() {
        "https" => {}
        "http" if policy.allow_http => {}
        other => {
            return Err(Refusal::Scheme {
                scheme: other.chars().take(32).collect(),
                allowed,
            });
        }
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(Refusal::UserInfo);
    }
    check_host(&parsed, policy)?;
    Ok(parsed)
}

fn check_host(url: &Url, policy: &Policy) -> Result<(), Refusal> {
    let refuse = |host: String, kind: Kind| Refusal::Address {
        host,
        kind: kind.describe(),
    };
    match url.host() {
        None => Err(Refusal::NoHost),
        Some(Host::Domain("")) => Err(Refusal::NoHost),
        Some(Host::Domain(name)) => {
            if is_localhost(name) && !policy.allow_private {
                Err(refuse(name.into(), Kind::Loopback))
            } else {
                Ok(())
            }
        }
        Some(Host::Ipv4(v4)) => match refusal_kind(IpAddr::V4(v4), policy) {
            Some(kind) => Err(refuse(v4.to_string(), kind)),
            None => Ok(()),
        },
        Some(Host::Ipv6(v6)) => match refusal_kind(IpAddr::V6(v6), policy) {
            Some(kind) => Err(refuse(v6.to_string(), kind)),
            None => Ok(()),
        },
    }
}

/// `localhost` and its subdomains always mean loopback (RFC 6761), with or without the root dot.
fn is_localhost(name: &str) -> bool {
    let name = name.strip_suffix('.').unwrap_or(name);
    name.eq_ignore_ascii_case("localhost") || name.to_ascii_lowercase().ends_with(".localhost")
}

/// Runs [`check_url`], then resolves the host and refuses if resolution fails, yields nothing,
/// or yields any address the policy does not permit. Use it when a URL is submitted.
///
/// Passing does not make later calls safe on its own (DNS may change): make them through
/// [`crate::GuardedClient`] or a [`crate::client`], which check again at connect time.
pub async fn check_resolved(url: &Url, policy: &Policy) -> Result<(), Refusal> {
    let url = check_url(url.as_str(), policy)?;
    let Some(Host::Domain(name)) = url.host() else {
        // An IP literal, already checked by `check_url`.
        return Ok(());
    };
    let port = url.port_or_known_default().unwrap_or(443);
    let addrs = resolve(name, port).await?;
    match addrs.iter().find_map(|a| refusal_of(name, a.ip(), policy)) {
        Some(refusal) => Err(refusal),
        None => Ok(()),
    }
}

/// Resolves `name`; an error or an empty answer is a refusal (fail closed).
pub(crate) async fn resolve(name: &str, port: u16) -> Result<Vec<SocketAddr>, Refusal> {
    let looked_up = tokio::net::lookup_host((name, port)).await;
    fail_closed(name, looked_up.map(Iterator::collect))
}

fn fail_closed(
    name: &str,
    looked_up: std::io::Result<Vec<SocketAddr>>,
) -> Result<Vec<SocketAddr>, Refusal> {
    match looked_up {
        Ok(addrs) if !addrs.is_empty() => Ok(addrs),
        _ => Err(Refusal::Unresolvable { host: name.into() }),
    }
}

/// The refusal for connecting to `addr` (which `name` resolved to), if the policy has one.
pub(crate) fn refusal_of(name: &str, addr: IpAddr, policy: &Policy) -> Option<Refusal> {
    refusal_kind(addr, policy).map(|kind| Refusal::ResolvesTo {
        host: name.into(),
        addr,
        kind: kind.describe(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_ipv4_spellings_normalise_to_one_checked_address() {
        let open = Policy::local();
        for spelling in [
            "http://2130706433/",
            "http://0x7f000001/",
            "http://127.1/",
            "http://127.0.1/",
            "http://0177.0.0.1/",
            "http://0x7f.0.0.1/",
            "http://0x7F.1/",
            "http://017700000001/",
            "http://127.0.0.1./",
            "http://%31%32%37.0.0.1/",
            "http://\u{ff11}\u{ff12}\u{ff17}.0.0.1/",
        ] {
            let url = check_url(spelling, &open).expect(spelling);
            assert_eq!(
                url.host(),
                Some(Host::Ipv4([127, 0, 0, 1].into())),
                "{spelling}"
            );
        }
    }

    #[test]
    fn refusals_read_as_sentences_naming_the_host() {
        let with_http = Policy {
            allow_http: true,
            ..Policy::hosted()
        };
        let refusal = check_url("http://0x7f000001:8080/x", &with_http).unwrap_err();
        assert_eq!(
            refusal.to_string(),
            "the URL's host 127.0.0.1 is a loopback address, which agents may not use"
        );
        let refusal = check_url("http://[::ffff:a9fe:a9fe]/", &with_http).unwrap_err();
        assert_eq!(
            refusal.to_string(),
            "the URL's host ::ffff:169.254.169.254 is a cloud metadata service address, \
             which agents may not use"
        );
        let refusal = check_url("http://agent.example.com/", &Policy::hosted()).unwrap_err();
        assert_eq!(
            refusal.to_string(),
            "the URL's scheme \"http\" is not allowed; agents must use https"
        );
    }

    #[test]
    fn hosted_accepts_ordinary_https_urls() {
        for ok in [
            "https://agent.example.com/",
            "https://agent.example.com:8443/run?x=1",
            "https://8.8.8.8/",
            "https://[2606:4700::1111]/",
            "HTTPS://Agent.Example.COM/",
        ] {
            check_url(ok, &Policy::hosted()).expect(ok);
        }
    }

    #[test]
    fn local_accepts_loopback_but_not_metadata() {
        for ok in [
            "http://127.0.0.1:3000/",
            "http://localhost:3000/",
            "http://[::1]:3000/",
            "http://192.168.1.20/",
        ] {
            check_url(ok, &Policy::local()).expect(ok);
        }
        for refused in [
            "http://169.254.169.254/",
            "http://0.0.0.0:3000/",
            "http://[fd00:ec2::254]/",
            "file:///etc/passwd",
            "http://user@127.0.0.1/",
        ] {
            assert!(check_url(refused, &Policy::local()).is_err(), "{refused}");
        }
    }

    #[test]
    fn localhost_names_are_loopback() {
        for name in [
            "localhost",
            "LOCALHOST",
            "localhost.",
            "a.b.localhost",
            "x.localhost.",
        ] {
            assert!(is_localhost(name), "{name}");
        }
        for name in ["localhost.example.com", "notlocalhost", "mylocalhost."] {
            assert!(!is_localhost(name), "{name}");
        }
    }

    #[test]
    fn the_length_limit_counts_bytes_as_sent() {
        let at_limit = format!("https://a.example/{}", "a".repeat(MAX_URL_LEN - 18));
        assert_eq!(at_limit.len(), MAX_URL_LEN);
        check_url(&at_limit, &Policy::hosted()).expect("at the limit");
        let over = format!("{at_limit}a");
        let encoded = format!("https://a.example/{}", "\u{e9}".repeat(600));
        assert!(encoded.len() < MAX_URL_LEN, "short as typed");
        for long in [over, encoded] {
            assert!(matches!(
                check_url(&long, &Policy::hosted()),
                Err(Refusal::TooLong { .. })
            ));
        }
    }

    #[tokio::test]
    async fn resolving_an_ip_literal_applies_the_policy() {
        let with_http = Policy {
            allow_http: true,
            ..Policy::hosted()
        };
        let ip_literal = Url::parse("http://127.0.0.1/").unwrap();
        assert!(check_resolved(&ip_literal, &with_http).await.is_err());
        assert!(check_resolved(&ip_literal, &Policy::local()).await.is_ok());
    }

    #[test]
    fn a_failed_or_empty_lookup_is_a_refusal() {
        let failed = Err(std::io::Error::other("no such host"));
        assert!(matches!(
            fail_closed("agent.example", failed),
            Err(Refusal::Unresolvable { .. })
        ));
        assert!(fail_closed("agent.example", Ok(Vec::new())).is_err());
        // A name that does not exist reads as one that resolves inward: the refusal is no
        // oracle of which internal names exist.
        let internal = Refusal::ResolvesTo {
            host: "agent.example".into(),
            addr: IpAddr::from([10, 0, 0, 1]),
            kind: "private",
        };
        assert_eq!(
            fail_closed("agent.example", Ok(Vec::new()))
                .unwrap_err()
                .to_string(),
            internal.to_string()
        );
        let one = vec![SocketAddr::from(([8, 8, 8, 8], 443))];
        assert_eq!(fail_closed("agent.example", Ok(one.clone())).unwrap(), one);
    }
}
