//! robots.txt (RFC 9309): the group for our product token, Allow/Disallow with `*` and `$`,
//! longest match wins (Allow on ties), `Crawl-delay`, `Sitemap`.
use serde::{Deserialize, Serialize};

/// At most this much of a robots.txt is parsed (RFC 9309 asks for at least 500 KiB).
const MAX_BYTES: usize = 500 * 1024;
/// Rules kept at most.
const MAX_RULES: usize = 10_000;

/// One rule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Rule {
    allow: bool,
    pattern: String,
}

/// Parsed rules for one product token.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Robots {
    rules: Vec<Rule>,
    crawl_delay: Option<f64>,
    sitemaps: Vec<String>,
    disallow_all: bool,
}

impl Robots {
    /// Parses `text` for `product_token` (e.g. `exemplar`): the groups whose user-agent matches
    /// the token (case-insensitive) are merged; else the `*` groups. Never fails: unknown or
    /// malformed lines are ignored.
    pub fn parse(text: &str, product_token: &str) -> Robots {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let text = match text.char_indices().nth(MAX_BYTES) {
            Some((i, _)) => &text[..i],
            None => text,
        };
        let token = product_token.to_ascii_lowercase();
        // (rules, crawl-delay) of the groups naming our token, and of the `*` groups.
        let mut mine = (Vec::new(), None);
        let mut star = (Vec::new(), None);
        let mut have_mine = false;
        let mut sitemaps = Vec::new();
        let mut agents: Vec<String> = Vec::new();
        let mut in_rules = false;
        for raw in text.split(['\n', '\r']) {
            let line = raw.split('#').next().unwrap_or("").trim();
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let key = key.trim().to_ascii_lowercase();
            let value = value.trim();
            match key.as_str() {
                "user-agent" => {
                    if in_rules {
                        agents.clear();
                        in_rules = false;
                    }
                    agents.push(value.to_ascii_lowercase());
                }
                "allow" | "disallow" | "crawl-delay" => {
                    in_rules = true;
                    let ours = agents.contains(&token);
                    let is_star = agents.iter().any(|a| a == "*");
                    let target = if ours {
                        have_mine = true;
                        &mut mine
                    } else if is_star {
                        &mut star
                    } else {
                        continue;
                    };
                    if key == "crawl-delay" {
                        if let Ok(d) = value.parse::<f64>()
                            && d.is_finite()
                            && d >= 0.0
                        {
                            target.1 = Some(d);
                        }
                    } else if target.0.len() < MAX_RULES {
                        // An empty Disallow allows everything: no rule.
                        if value.is_empty() {
                            continue;
                        }
                        target.0.push(Rule {
                            allow: key == "allow",
                            pattern: normalise(value),
                        });
                    }
                }
                "sitemap" if sitemaps.len() < 1000 => sitemaps.push(value.to_string()),
                _ => {}
            }
        }
        let (rules, crawl_delay) = if have_mine { mine } else { star };
        Robots {
            rules,
            crawl_delay,
            sitemaps,
            disallow_all: false,
        }
    }

    /// No rules (robots.txt missing: 4xx).
    pub fn allow_all() -> Robots {
        Robots::default()
    }

    /// Everything disallowed (robots.txt unreachable or 5xx, RFC 9309 §2.3.1.4).
    pub fn disallow_all() -> Robots {
        Robots {
            disallow_all: true,
            ..Robots::default()
        }
    }

    /// Whether the URL may be fetched. Without rules, any URL (not parsed: the frontier asks at
    /// every poll for each URL it looks at, and most sites have no rules; a URL that does not
    /// parse has no host and is refused before this is asked).
    pub fn allowed(&self, url: &str) -> bool {
        if self.rules.is_empty() && !self.disallow_all {
            return true;
        }
        let path = match url::Url::parse(url) {
            Ok(u) => {
                let mut p = u.path().to_string();
                if let Some(q) = u.query() {
                    p.push('?');
                    p.push_str(q);
                }
                p
            }
            Err(_) => return false,
        };
        if path == "/robots.txt" {
            return true;
        }
        if self.disallow_all {
            return false;
        }
        let path = normalise(&path);
        let mut best: Option<(usize, bool)> = None;
        for r in &self.rules {
            if matches(&r.pattern, &path) {
                let len = r.pattern.len();
                best = match best {
                    Some((l, a)) if l > len || (l == len && a) => Some((l, a)),
                    _ => Some((len, r.allow)),
                };
            }
        }
        best.is_none_or(|(_, allow)| allow)
    }

    /// `Crawl-delay` of the chosen group, in seconds.
    pub fn crawl_delay(&self) -> Option<f64> {
        self.crawl_delay
    }

    /// `Sitemap` URLs.
    pub fn sitemaps(&self) -> &[String] {
        &self.sitemaps
    }
}

/// The robots.txt URL of a page's origin.
pub fn robots_url(url: &str) -> Option<String> {
    let u = url::Url::parse(url).ok()?;
    let host = u.host_str()?;
    Some(match u.port() {
        Some(p) => format!("{}://{host}:{p}/robots.txt", u.scheme()),
        None => format!("{}://{host}/robots.txt", u.scheme()),
    })
}

/// Upper-case percent escapes so `%2f` and `%2F` compare equal.
fn normalise(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '%' {
            for _ in 0..2 {
                if let Some(h) = chars.next_if(char::is_ascii_hexdigit) {
                    out.push(h.to_ascii_uppercase());
                }
            }
        }
    }
    out
}

/// RFC 9309 matching: a prefix match where `*` matches any run and a final `$` anchors the
/// end. Iterative with backtracking to the last `*` only: linear-ish, never exponential.
fn matches(pattern: &str, path: &str) -> bool {
    let (pat, anchored) = match pattern.strip_suffix('$') {
        Some(p) => (p.as_bytes(), true),
        None => (pattern.as_bytes(), false),
    };
    let s = path.as_bytes();
    let (mut p, mut i) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    loop {
        if p == pat.len() {
            if !anchored || i == s.len() {
                return true;
            }
        } else if pat[p] == b'*' {
            star = Some((p, i));
            p += 1;
            continue;
        } else if i < s.len() && pat[p] == s[i] {
            p += 1;
            i += 1;
            continue;
        }
        // Mismatch (or anchored end not reached): let the last star eat one more byte.
        match star {
            Some((sp, si)) if si < s.len() => {
                star = Some((sp, si + 1));
                p = sp + 1;
                i = si + 1;
            }
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\u{feff}# comment\r\nUser-agent: *\r\nDisallow: /private\r\nAllow: /private/open\r\nCrawl-delay: 1.5\r\n\r\nUser-agent: Exemplar\nUser-agent: other\nDisallow: /no-exemplar/\nAllow: /page$\nDisallow: /page\nDisallow: /*.pdf$\nCrawl-delay: abc\n\nUser-agent: exemplar\nDisallow: /second-group\nSitemap: http://h/sitemap.xml";

    #[test]
    fn our_groups_are_merged_and_win_over_star() {
        let r = Robots::parse(SAMPLE, "exemplar");
        assert!(!r.allowed("http://h/no-exemplar/x"));
        assert!(!r.allowed("http://h/second-group"));
        assert!(
            r.allowed("http://h/private/x"),
            "the * group does not apply"
        );
        assert!(r.allowed("http://h/page"), "$ anchors, allow is longer");
        assert!(!r.allowed("http://h/page2"));
        assert!(!r.allowed("http://h/docs/manual.pdf"));
        assert!(r.allowed("http://h/docs/manual.pdf?x=1"));
        assert_eq!(r.crawl_delay(), None, "a bad Crawl-delay is ignored");
        assert_eq!(r.sitemaps(), ["http://h/sitemap.xml".to_string()]);
        let star = Robots::parse(SAMPLE, "someone");
        assert!(!star.allowed("http://h/private/x"));
        assert!(
            star.allowed("http://h/private/open/y"),
            "longest match wins"
        );
        assert_eq!(star.crawl_delay(), Some(1.5));
    }

    #[test]
    fn ties_go_to_allow_and_special_cases() {
        let r = Robots::parse("User-agent: *\nDisallow: /a\nAllow: /a\nDisallow: /\n", "x");
        assert!(r.allowed("http://h/a"));
        assert!(!r.allowed("http://h/b"));
        assert!(r.allowed("http://h/robots.txt"));
        assert!(!Robots::disallow_all().allowed("http://h/x"));
        assert!(Robots::allow_all().allowed("http://h/x"));
        let empty = Robots::parse("User-agent: *\nDisallow:\n", "x");
        assert!(empty.allowed("http://h/anything"));
        let enc = Robots::parse("User-agent: *\nDisallow: /a%2fb\n", "x");
        assert!(!enc.allowed("http://h/a%2Fb"));
        assert_eq!(
            robots_url("https://h:8443/x/y?z").as_deref(),
            Some("https://h:8443/robots.txt")
        );
    }

    #[test]
    fn many_stars_are_fast() {
        let pat = format!("/{}b", "*a".repeat(200));
        let r = Robots::parse(&format!("User-agent: *\nDisallow: {pat}\n"), "x");
        let url = format!("http://h/{}", "a".repeat(5000));
        assert!(r.allowed(&url));
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn never_panics(text in ".{0,400}", path in "[ -~]{0,40}") {
            let r = Robots::parse(&text, "exemplar");
            let _ = r.allowed(&format!("http://h/{path}"));
            let _ = r.allowed(&path);
        }

        #[test]
        fn star_matches_like_a_regex(pat in "[ab*]{0,8}", s in "[ab]{0,10}") {
            let re = format!("^{}", pat.replace('*', ".*"));
            let re = regex::Regex::new(&re).expect("regex");
            prop_assert_eq!(matches(&pat, &s), re.is_match(&s));
        }
    }
}
