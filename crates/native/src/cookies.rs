//! Cookies the user gives (`--cookies FILE`): a crawl behind a login, with the session the user
//! opened in a browser. Exemplar never submits a login form itself.
//!
//! The file is in the Netscape format browsers' cookie exporters and curl (`-c`) write: one
//! cookie a line, seven tab-separated fields — domain, whether subdomains match (`TRUE`/`FALSE`),
//! path, secure only (`TRUE`/`FALSE`), expiry (Unix seconds, 0 or empty for a session cookie), name,
//! value; `#` begins a comment, except the `#HttpOnly_` prefix curl writes before a domain.
//! A request carries the cookies whose domain, path and scheme match its URL and which have not
//! expired (RFC 6265 §5.4, without the cookie updates a browser makes from `Set-Cookie`: the
//! file is the session).
use std::fmt;

/// One cookie of the file.
#[derive(Clone, PartialEq, Eq)]
pub struct Cookie {
    /// Host or domain, lower case, without a leading dot.
    pub domain: String,
    /// The domain's subdomains match too.
    pub subdomains: bool,
    /// The path it is sent below.
    pub path: String,
    /// Sent over https only.
    pub secure: bool,
    /// Unix seconds; 0: a session cookie, never expired here.
    pub expires: u64,
    /// Its name.
    pub name: String,
    /// Its value: a secret, never printed.
    pub value: String,
}

impl fmt::Debug for Cookie {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cookie")
            .field("domain", &self.domain)
            .field("path", &self.path)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// The cookies of a Netscape cookie file.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct CookieJar {
    cookies: Vec<Cookie>,
}

impl fmt::Debug for CookieJar {
    // Values are secrets (session ids): never printed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CookieJar")
            .field("cookies", &self.cookies.len())
            .finish()
    }
}

impl CookieJar {
    /// Reads a Netscape cookie file's text.
    ///
    /// # Errors
    /// A line that is not seven tab-separated fields, a flag that is not `TRUE`/`FALSE`, an
    /// expiry that is not a number, or an empty domain or name: the line's number and why
    /// (never its value).
    pub fn from_netscape(text: &str) -> Result<CookieJar, String> {
        let mut cookies = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim_end_matches('\r');
            let line = match line.strip_prefix("#HttpOnly_") {
                Some(rest) => rest,
                None if line.trim().is_empty() || line.starts_with('#') => continue,
                None => line,
            };
            let n = i + 1;
            let fields: Vec<&str> = line.split('\t').collect();
            let [domain, subdomains, path, secure, expires, name, value] = fields[..] else {
                return Err(format!(
                    "line {n}: {} tab-separated fields, not 7 (domain, subdomains, path, \
                     secure, expiry, name, value)",
                    fields.len()
                ));
            };
            let flag = |what: &str, v: &str| match v.to_ascii_uppercase().as_str() {
                "TRUE" => Ok(true),
                "FALSE" => Ok(false),
                _ => Err(format!("line {n}: {what} is {v:?}, not TRUE or FALSE")),
            };
            let domain = domain.trim().trim_start_matches('.').to_ascii_lowercase();
            if domain.is_empty() || name.is_empty() {
                return Err(format!("line {n}: no domain or no name"));
            }
            cookies.push(Cookie {
                domain,
                subdomains: flag("the subdomains flag", subdomains)?,
                path: if path.is_empty() {
                    "/".into()
                } else {
                    path.to_string()
                },
                secure: flag("the secure flag", secure)?,
                // Python's and some browsers' exporters leave a session cookie's expiry empty.
                expires: match expires.trim() {
                    "" => 0,
                    e => e
                        .parse()
                        .map_err(|_| format!("line {n}: the expiry {expires:?} is not a number"))?,
                },
                name: name.to_string(),
                value: value.to_string(),
            });
        }
        Ok(CookieJar { cookies })
    }

    /// The cookies, to hand to a browser that renders pages ([`crate::render`]).
    pub fn for_browser(&self) -> &[Cookie] {
        &self.cookies
    }

    /// Cookies in the jar.
    pub fn len(&self) -> usize {
        self.cookies.len()
    }

    /// Whether the jar holds no cookie.
    pub fn is_empty(&self) -> bool {
        self.cookies.is_empty()
    }

    /// The `Cookie` header for a request to `url` at `now_s` (Unix seconds): the matching
    /// cookies, longest path first, `name=value; …`; None when none match.
    pub fn header(&self, url: &str, now_s: u64) -> Option<String> {
        let u = url::Url::parse(url).ok()?;
        let host = u.host_str()?.to_ascii_lowercase();
        let https = u.scheme() == "https";
        let path = u.path();
        let mut matching: Vec<&Cookie> = self
            .cookies
            .iter()
            .filter(|c| {
                let domain = host == c.domain
                    || (c.subdomains
                        && host.len() > c.domain.len()
                        && host.ends_with(&c.domain)
                        && host.as_bytes()[host.len() - c.domain.len() - 1] == b'.');
                domain
                    && path_matches(path, &c.path)
                    && (https || !c.secure)
                    && (c.expires == 0 || c.expires > now_s)
            })
            .collect();
        if matching.is_empty() {
            return None;
        }
        matching.sort_by_key(|c| std::cmp::Reverse(c.path.len()));
        Some(
            matching
                .iter()
                .map(|c| format!("{}={}", c.name, c.value))
                .collect::<Vec<_>>()
                .join("; "),
        )
    }
}

/// RFC 6265 §5.1.4: the request path is the cookie's, or below it.
fn path_matches(request: &str, cookie: &str) -> bool {
    request == cookie
        || (request.starts_with(cookie)
            && (cookie.ends_with('/') || request.as_bytes().get(cookie.len()) == Some(&b'/')))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "# Netscape HTTP Cookie File\n\
        # a comment\n\
        \n\
        .quotes.test\tTRUE\t/\tFALSE\t0\tsession\tabc123\n\
        #HttpOnly_shop.test\tFALSE\t/account\tTRUE\t4102444800\tsid\tS1\n\
        old.test\tFALSE\t/\tFALSE\t1000\tgone\tx\n\
        py.test\tFALSE\t/\tFALSE\t\tsession\tfrom-python\n";

    fn h_at(jar: &CookieJar, url: &str) -> Option<String> {
        jar.header(url, 2_000_000_000)
    }

    #[test]
    fn cookies_go_where_their_domain_path_and_scheme_say() {
        let jar = CookieJar::from_netscape(FILE).expect("reads");
        assert_eq!(jar.len(), 4);
        assert_eq!(
            h_at(&jar, "http://py.test/x").as_deref(),
            Some("session=from-python")
        );
        let now = 2_000_000_000;
        let h = |u: &str| jar.header(u, now);
        assert_eq!(h("http://quotes.test/").as_deref(), Some("session=abc123"));
        assert_eq!(
            h("http://www.quotes.test/page/2/").as_deref(),
            Some("session=abc123")
        );
        assert_eq!(h("http://otherquotes.test/"), None);
        // Secure, host-only, under /account only.
        assert_eq!(
            h("https://shop.test/account/orders").as_deref(),
            Some("sid=S1")
        );
        assert_eq!(h("http://shop.test/account/orders"), None);
        assert_eq!(h("https://www.shop.test/account/"), None);
        assert_eq!(h("https://shop.test/accounts"), None);
        // Expired.
        assert_eq!(h("http://old.test/"), None);
        assert_eq!(
            jar.header("http://old.test/", 999).as_deref(),
            Some("gone=x")
        );
        // Secrets stay out of debug output.
        assert!(!format!("{jar:?}").contains("abc123"));
    }

    #[test]
    fn a_malformed_file_is_refused_by_line_without_its_values() {
        let err = CookieJar::from_netscape("a.test\tTRUE\t/\tFALSE\t0\tname\n").unwrap_err();
        assert!(err.starts_with("line 1: 6 tab-separated fields"), "{err}");
        let err = CookieJar::from_netscape("\na.test\tyes\t/\tFALSE\t0\tn\tsecret\n").unwrap_err();
        assert!(err.starts_with("line 2: the subdomains flag"), "{err}");
        assert!(!err.contains("secret"));
        let err = CookieJar::from_netscape("a.test\tTRUE\t/\tFALSE\tsoon\tn\tv\n").unwrap_err();
        assert!(err.contains("expiry"), "{err}");
        assert!(CookieJar::from_netscape("").expect("empty").is_empty());
    }
}
