//! Outbound HTTP to URLs a vendor gave us, without server-side request forgery (SSRF).
//!
//! # Threat model
//!
//! A vendor submits the URL of their agent and we call it from inside our network. A malicious
//! vendor wants that call to land somewhere only we can reach: the cloud metadata service
//! (`169.254.169.254`, `fd00:ec2::254`), the database, the gateway or other services on loopback
//! or a private network. They control the URL text, the DNS records of their names (and may change
//! them between our checks: DNS rebinding), and their server's replies (a redirect to an internal
//! address). They do not control our network or our resolver's integrity beyond their own zone.
//!
//! # Defences
//!
//! - [`check_url`] refuses, from the text alone: schemes other than http(s) (https only unless
//!   [`Policy::allow_http`]), user info, a missing host, URLs over [`MAX_URL_LEN`] bytes,
//!   `localhost` names, and IP-literal hosts in a forbidden range in any spelling (the `url` crate
//!   normalises `2130706433`, `0x7f000001`, `127.1`, `0177.0.0.1`, `[::ffff:7f00:1]` to one
//!   address, which is what is checked).
//! - [`check_resolved`] resolves the host and refuses if *any* address is forbidden or if
//!   resolution fails (fail closed). Use it when a URL is submitted, to tell the vendor early.
//! - [`client`] builds a `reqwest::Client` whose resolver resolves each name at connect time and
//!   keeps only the permitted addresses, so the connection goes to an address that was checked
//!   (rebinding between submission and call does not help); it never follows redirects and
//!   ignores proxy settings.
//!
//! IP-literal hosts skip a `reqwest` resolver entirely, so [`client`] alone does **not** stop
//! `http://127.0.0.1/`: every caller must run [`check_url`] on each URL before each request.
//! [`GuardedClient`] bundles the two so the check cannot be forgotten; prefer it.
//!
//! [`is_forbidden`] is the hosted blocklist (docs/protocol.md, "Hosted endpoints"); [`Policy::local`] opens
//! loopback, RFC 1918 and IPv6 unique-local addresses for local development, and nothing else:
//! unspecified, link-local (where the metadata services live), multicast and broadcast stay
//! refused under every policy.
//!
//! Not covered here: response size caps and signing are the caller's (the runner's) concern.

mod address;
mod check;
mod client;

pub use address::is_forbidden;
pub use check::{MAX_URL_LEN, Refusal, check_resolved, check_url};
pub use client::{GuardedClient, client};

use std::time::Duration;

/// What a URL may point at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    /// Permit loopback, RFC 1918 and IPv6 unique-local addresses (local development only).
    pub allow_private: bool,
    /// Permit plain `http://` URLs.
    pub allow_http: bool,
}

impl Policy {
    /// Production: public addresses only, https only.
    pub fn hosted() -> Self {
        Self {
            allow_private: false,
            allow_http: false,
        }
    }

    /// Local development (`mcpbench eval`, `mcpbench up`): private addresses and http allowed.
    pub fn local() -> Self {
        Self {
            allow_private: true,
            allow_http: true,
        }
    }

    /// Whether a connection to `ip` is permitted under this policy.
    pub fn permits(&self, ip: std::net::IpAddr) -> bool {
        address::refusal_kind(ip, self).is_none()
    }
}

/// How long an outbound call may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeouts {
    /// Establishing the TCP (and TLS) connection.
    pub connect: Duration,
    /// The whole request, reply body included; `None` when the caller enforces its own deadline.
    pub request: Option<Duration>,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            connect: Duration::from_secs(10),
            request: Some(Duration::from_secs(30)),
        }
    }
}
