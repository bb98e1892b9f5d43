//! Host names resolved as the user says (`--resolve HOST:ADDR`, as curl's option of that name):
//! a site served somewhere other than where its name points — a local copy on 127.0.0.1 under
//! its real host name, a staging server — crawled under its own URLs.
//!
//! Contract: [`Resolve::parse`] reads `HOST:IP` (the URL's port kept) or `HOST:IP:PORT` (IPv6
//! in brackets: `HOST:[::1]:8080`); `HOST` is a name (compared without case) or `*` for every
//! host. [`Overrides`] answers the first rule naming a URL's host, else asks the system as
//! ureq's default resolver does. Only where connections go changes: URLs, `Host` headers and
//! cookies stay the site's.
use std::net::{IpAddr, SocketAddr};

use ureq::config::Config;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::NextTimeout;

/// One rule: where a host's connections go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolve {
    /// The host name, lower case, or `*`.
    pub host: String,
    /// The address connected to.
    pub addr: IpAddr,
    /// The port connected to (None: the URL's).
    pub port: Option<u16>,
}

impl Resolve {
    /// A rule from `HOST:IP` or `HOST:IP:PORT`.
    ///
    /// # Errors
    /// A value of another shape, with what is wrong.
    pub fn parse(value: &str) -> Result<Resolve, String> {
        let shape = "expected HOST:ADDRESS or HOST:ADDRESS:PORT (HOST may be *)";
        let (host, rest) = value
            .split_once(':')
            .ok_or_else(|| format!("{value}: {shape}"))?;
        let host = host.trim().to_ascii_lowercase();
        let name_ok = host == "*"
            || (!host.is_empty()
                && host
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.'));
        if !name_ok {
            return Err(format!("{value}: {host:?} is not a host name; {shape}"));
        }
        let (addr, port) = if let Ok(ip) = rest.parse::<IpAddr>() {
            (ip, None)
        } else if let Ok(sock) = rest.parse::<SocketAddr>() {
            (sock.ip(), Some(sock.port()))
        } else if let Ok(ip) = rest.trim_matches(['[', ']']).parse::<IpAddr>() {
            (ip, None)
        } else {
            return Err(format!("{value}: {rest:?} is not an address; {shape}"));
        };
        Ok(Resolve { host, addr, port })
    }

    /// The rule as Chromium's `--host-resolver-rules` writes it (`MAP shop.test 127.0.0.1:9000`).
    pub fn chromium_rule(&self) -> String {
        let addr = match (self.addr, self.port) {
            (IpAddr::V6(ip), Some(p)) => format!("[{ip}]:{p}"),
            (IpAddr::V6(ip), None) => format!("[{ip}]"),
            (ip, Some(p)) => format!("{ip}:{p}"),
            (ip, None) => ip.to_string(),
        };
        format!("MAP {} {addr}", self.host)
    }

    /// Whether it names `host` (lower case).
    fn names(&self, host: &str) -> bool {
        self.host == "*" || self.host == host
    }
}

/// The value of Chromium's `--host-resolver-rules` for `rules` (None: none), so that pages it
/// renders are asked where the client asks them.
pub fn chromium_rules(rules: &[Resolve]) -> Option<String> {
    (!rules.is_empty()).then(|| {
        rules
            .iter()
            .map(Resolve::chromium_rule)
            .collect::<Vec<_>>()
            .join(", ")
    })
}

/// The rules, then the system's resolver.
#[derive(Debug, Default)]
pub struct Overrides {
    rules: Vec<Resolve>,
    system: DefaultResolver,
}

impl Overrides {
    /// A resolver answering by `rules` first.
    pub fn new(rules: Vec<Resolve>) -> Overrides {
        Overrides {
            rules,
            system: DefaultResolver::default(),
        }
    }

    /// Where a connection to `host` on `port` goes, by the rules (None: ask the system).
    pub fn lookup(&self, host: &str, port: u16) -> Option<SocketAddr> {
        let host = host.trim_matches(['[', ']']).to_ascii_lowercase();
        self.rules
            .iter()
            .find(|r| r.names(&host))
            .map(|r| SocketAddr::new(r.addr, r.port.unwrap_or(port)))
    }
}

impl Resolver for Overrides {
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        config: &Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let port = uri.port_u16().unwrap_or(match uri.scheme_str() {
            Some("https") => 443,
            _ => 80,
        });
        if let Some(addr) = uri.host().and_then(|h| self.lookup(h, port)) {
            let mut out = self.empty();
            out.push(addr);
            return Ok(out);
        }
        self.system.resolve(uri, config, timeout)
    }
}

#[cfg(test)]
mod tests {
    use super::{Overrides, Resolve};

    #[test]
    fn rules_read_as_curl_writes_them_and_bad_ones_say_why() {
        let r = Resolve::parse("Shop.Test:127.0.0.1:8711").expect("valid");
        assert_eq!((r.host.as_str(), r.port), ("shop.test", Some(8711)));
        assert_eq!(
            Resolve::parse("docs.python.org:10.0.0.2")
                .expect("valid")
                .port,
            None
        );
        assert_eq!(
            Resolve::parse("*:[::1]:8080").expect("valid").port,
            Some(8080)
        );
        assert_eq!(
            Resolve::parse("h:::1").expect("valid").addr.to_string(),
            "::1"
        );
        for bad in [
            "shop.test",
            "shop.test:localhost",
            ":127.0.0.1",
            "a b:127.0.0.1",
            "h:1.2.3",
        ] {
            let e = Resolve::parse(bad).expect_err(bad);
            assert!(e.contains("HOST:ADDRESS"), "{e}");
        }
    }

    #[test]
    fn the_first_rule_naming_a_host_answers_and_others_go_to_the_system() {
        let o = Overrides::new(vec![
            Resolve::parse("shop.test:127.0.0.1:9000").expect("valid"),
            Resolve::parse("*:127.0.0.2").expect("valid"),
        ]);
        assert_eq!(
            o.lookup("SHOP.test", 80),
            Some("127.0.0.1:9000".parse().expect("addr"))
        );
        assert_eq!(
            o.lookup("www.shop.test", 8080),
            Some("127.0.0.2:8080".parse().expect("addr"))
        );
        assert_eq!(Overrides::new(vec![]).lookup("shop.test", 80), None);
        let rules = [
            Resolve::parse("shop.test:127.0.0.1:9000").expect("valid"),
            Resolve::parse("*:[::1]").expect("valid"),
        ];
        assert_eq!(
            super::chromium_rules(&rules).as_deref(),
            Some("MAP shop.test 127.0.0.1:9000, MAP * [::1]")
        );
        assert_eq!(super::chromium_rules(&[]), None);
    }
}
