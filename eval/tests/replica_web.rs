//! The replica data (`exemplar_eval::replicas`): a host's pages link within the host under its
//! URL habits (every variation, on a fixture site and on the installed real sites); partial
//! mirrors are deterministic and keep 10–30% of the pages (or one subtree); the catalogue meets
//! its bars; the server answers by `Host` over TCP.
//!
//! The real-site checks are skipped (with a notice) for sites not installed;
//! `./build.sh eval-replicas` installs them. They check the entry and two pages of every host of
//! the pairs; `EXEMPLAR_REPLICA_PAGES=N` checks N pages instead of two.

use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use exemplar_eval::replicas::{
    self, ATOM_NAMES, Catalogue, PairKind, Site, Split, Variation, VirtualHost,
};
use exemplar_html::{Page, ParseOptions};

/// A small documentation site in a scratch directory, removed when dropped.
struct Fixture {
    dir: PathBuf,
    site: Arc<Site>,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

const HOST: &str = "docs.example.org";
const PREFIX: &str = "/docs/x/";

fn fixture(name: &str) -> Fixture {
    let dir = std::env::temp_dir().join(format!("exemplar-replicas-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let page = |links: &str| {
        format!(
            "<!DOCTYPE html><html><head><title>t</title><link rel=stylesheet href=\"{{up}}style.css\">\
             </head><body><img src=\"{{up}}img/logo.png\" alt=\"\">{links}</body></html>"
        )
    };
    let mut files: Vec<(String, String)> = vec![
        (
            "index.html".into(),
            page(&format!(
                "<link rel=\"canonical\" href=\"file://{root}/index.html\">\
                 <a href=\"guide/index.html\">g</a> <a href='guide/'>g2</a> <a href=api/a0.html>a</a>\
                 <a href=\"/docs/x/api/a1.html\">root-relative</a>\
                 <a href=\"http://docs.example.org/docs/x/api/a2.html#frag\">absolute</a>\
                 <a href=\"api/a3.html?x=1&amp;y=2#f\">query</a>\
                 <a href=\"https://elsewhere.example/x\">external</a> <a href=\"missing.html\">broken</a>\
                 <a href=\"#top\">top</a> <a href=\"mailto:a@example.org\">mail</a> <a href=\"old.html\">old</a>",
                root = dir.display()
            ))
            .replace("{up}", ""),
        ),
        (
            "old.html".into(),
            "<html><head><meta http-equiv=\"refresh\" content=\"0; url=guide/intro.html\"></head><body></body></html>"
                .into(),
        ),
    ];
    for (i, g) in ["index", "intro", "more", "faq", "install"]
        .iter()
        .enumerate()
    {
        let next = ["intro", "more", "faq", "install", "index"][i];
        files.push((
            format!("guide/{g}.html"),
            page(&format!(
                "<a href=\"../index.html\">home</a> <a href=\"{next}.html\">next</a>\
                 <a href=\"../api/a{i}.html\">api</a> <a href=\"./\">here</a> <a href=\"../ref/r{i}.html\">ref</a>"
            ))
            .replace("{up}", "../"),
        ));
    }
    for i in 0..10 {
        files.push((
            format!("ref/r{i}.html"),
            page(&format!(
                "<a href=\"r{}.html\">next</a> <a href=\"../guide/\">guide</a>",
                (i + 1) % 10
            ))
            .replace("{up}", "../"),
        ));
    }
    for i in 0..60 {
        files.push((
            format!("api/a{i}.html"),
            page(&format!(
                "<a href=\"a{}.html\">next</a> <a href=\"../index.html#x\">home</a>\
                 <a href=\"../guide/intro.html\">intro</a> <a href=\"/docs/x/ref/r1.html\">ref</a>",
                (i + 1) % 60
            ))
            .replace("{up}", "../"),
        ));
    }
    files.push(("style.css".into(), "body { color: black }".into()));
    files.push(("img/logo.png".into(), "PNG".into()));
    for (path, text) in &files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let toml = format!(
        "{PLAN}\n[[site]]\nname = \"fix\"\nproject = \"fix\"\nroot = \"{}\"\nentry = \"index.html\"\n\
         host = \"{HOST}\"\nprefix = \"{PREFIX}\"\ngenerator = \"hand\"\naddr = \"192.0.2.1\"\nsplit = \"dev\"\n",
        dir.display()
    );
    let (_, mut sites) = replicas::sites::parse(&toml, Path::new("."), Path::new(".")).unwrap();
    Fixture {
        site: Arc::new(sites.remove(0)),
        dir,
    }
}

const PLAN: &str = r#"[plan]
replicas_per_site = 2
negatives_per_site_pair = 2
distractors = 4
variations = ["www", "add-prefix"]
tlds = ["de", "org.uk"]
mirror_labels = ["mirror"]
mirror_orgs = ["example.net"]
mirror_prefixes = ["/mirror/{project}/"]
variant_network = "198.18.0.0/15"
"#;

fn variation(spec: &str) -> Variation {
    Variation::parse(spec, || "/mirror/fix/".to_string()).unwrap()
}

fn host(site: &Arc<Site>, name: &str, spec: &str, seed: u64) -> VirtualHost {
    VirtualHost::new(
        name,
        Ipv4Addr::new(198, 18, 0, 1),
        Arc::clone(site),
        variation(spec),
        seed,
    )
}

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match s
            .get(i + 1..i + 3)
            .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            Some(v) if b[i] == b'%' => {
                out.push(v);
                i += 3;
            }
            _ => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Where a link leads, as the product's page model reads it.
#[derive(Debug, PartialEq)]
enum Lead {
    /// A file the host serves (the file, relative to the site's root).
    Here(String),
    /// A file of the site at its original's URL.
    Original(String),
    /// The site's host, where nothing is served.
    Broken,
    /// Another host.
    External(String),
}

/// The decoded paths (without query) a host lists, which its rewritten links must use; `None`
/// for a host whose links are the original's (they may name `dir/` for `dir/index.html`).
fn canonical(h: &VirtualHost) -> Option<HashSet<String>> {
    h.variation.changes_urls().then(|| {
        h.paths()
            .iter()
            .map(|p| decode(p.split('?').next().unwrap_or("")))
            .collect()
    })
}

/// Checks every link of page `path` on `h` against the original page's, link by link (a banner
/// adds one to the original, first): a link to a file of the site leads to it here, named as
/// the host names its paths (`canonical`, the session id), or for a file a partial mirror lacks
/// to the original's URL; an external link is kept; a link broken on the original leads to this
/// host or the original (where it may resolve by chance: `/bugs.html` under a dropped prefix).
fn check_page(
    original: &VirtualHost,
    h: &VirtualHost,
    canonical: Option<&HashSet<String>>,
    path: &str,
) -> Result<(), String> {
    let (ctype, body) = h.get(path).ok_or(format!("{}{path}: not served", h.host))?;
    let file = h.file(path).ok_or(format!("{path}: no file"))?;
    let mut here = leads(h, original, canonical, &h.url(path), &body, ctype)?;
    let origin_path = original
        .path(file)
        .ok_or(format!("{file}: not on the original"))?;
    let bytes = std::fs::read(h.site.root.join(file)).map_err(|e| e.to_string())?;
    let there = leads(
        original,
        original,
        None,
        &original.url(&origin_path),
        &bytes,
        ctype,
    )?;
    let what = format!("{}{path} ({})", h.host, h.variation.name());
    if h.variation.has(&Variation::Banner) {
        let at = here
            .iter()
            .position(|(_, l)| matches!(l, Lead::Original(_)))
            .ok_or(format!("{what}: no banner link"))?;
        here.remove(at);
    }
    if here.len() != there.len() {
        return Err(format!(
            "{what}: {} links, the original {}",
            here.len(),
            there.len()
        ));
    }
    for ((url, r), (_, o)) in here.iter().zip(&there) {
        let ok = match (o, r) {
            // A replica named like a host the pages link to (sqlite.org): the link is kept.
            (Lead::External(u), _) if u == url => true,
            (Lead::Here(f), Lead::Here(g)) => f == g,
            (Lead::Here(f), Lead::Original(g)) => h.variation.is_partial() && f == g,
            (Lead::External(u), Lead::External(v)) => u == v,
            (Lead::Broken, Lead::External(_)) => false,
            (Lead::Broken, _) => true,
            _ => false,
        };
        if !ok {
            return Err(format!("{what}: a link to {r:?}, the original's to {o:?}"));
        }
    }
    Ok(())
}

/// Each link of a page and where it leads.
fn leads(
    h: &VirtualHost,
    original: &VirtualHost,
    canonical: Option<&HashSet<String>>,
    url: &str,
    body: &[u8],
    ctype: &str,
) -> Result<Vec<(String, Lead)>, String> {
    let page = Page::parse(body, url, Some(ctype), &ParseOptions::default())
        .map_err(|e| format!("{url}: {e}"))?;
    let sid = h.session_id().map(|s| format!("sid={s}"));
    let mut out = Vec::new();
    for link in &page.links {
        let u = url::Url::parse(&link.url).map_err(|e| e.to_string())?;
        let pq = match u.query() {
            Some(q) => format!("{}?{q}", u.path()),
            None => u.path().to_string(),
        };
        let host = u.host_str().unwrap_or("");
        if host == h.host {
            let Some(file) = h.file(&pq) else {
                out.push((link.url.clone(), Lead::Broken));
                continue;
            };
            // Named as the host names it: its listed path, its session id.
            if let Some(c) = canonical
                && !c.contains(&decode(u.path()))
            {
                return Err(format!(
                    "{url}: {} is not a path {} lists",
                    link.url, h.host
                ));
            }
            if file.ends_with(".html")
                && h.variation.has(&Variation::SessionQuery)
                && !u
                    .query()
                    .is_some_and(|q| sid.as_ref().is_some_and(|s| q.contains(s.as_str())))
            {
                return Err(format!("{url}: {} lacks the session id", link.url));
            }
            out.push((link.url.clone(), Lead::Here(file.to_string())));
        } else if host == original.host {
            let lead = match original.file(&pq) {
                Some(f) => Lead::Original(f.to_string()),
                None => Lead::Broken,
            };
            out.push((link.url.clone(), lead));
        } else {
            out.push((link.url.clone(), Lead::External(link.url.clone())));
        }
    }
    Ok(out)
}

/// The combinations run besides every atom alone ([`ATOM_NAMES`]).
const COMBINED: &[&str] = &[
    "www+drop-html",
    "other-tld+session-query",
    "add-prefix+banner",
    "drop-prefix+drop-html",
    "ip-literal+partial-random",
    "add-prefix+session-path",
    "banner+partial-subtree",
    "other-tld+drop-html+banner",
    "www+session-path",
    "add-prefix+partial-random",
    "drop-html+session-query+partial-subtree",
];

/// Every variation spec the tests run: each atom, then the combinations.
fn specs() -> impl Iterator<Item = &'static str> {
    ATOM_NAMES.iter().chain(COMBINED).copied()
}

#[test]
fn links_stay_inside_the_host_for_every_variation() {
    let f = fixture("links");
    let original = host(&f.site, HOST, "same", 0);
    let asset = regex::Regex::new(r#"(?:src|href)="([^"]*\.(?:css|png))""#).unwrap();
    for spec in specs() {
        let name = if spec == "same" {
            HOST
        } else {
            "mirror.example.net"
        };
        let h = host(&f.site, name, spec, 7);
        let pages = h.pages();
        assert!(!pages.is_empty(), "{spec}: no pages");
        let c = canonical(&h);
        for p in &pages {
            check_page(&original, &h, c.as_ref(), p).unwrap_or_else(|e| panic!("{spec}: {e}"));
            // The stylesheet and the image, which the page model does not list, resolve here.
            let body = String::from_utf8(h.get(p).unwrap().1).unwrap();
            let base = url::Url::parse(&h.url(p)).unwrap();
            let found: Vec<_> = asset
                .captures_iter(&body)
                .map(|m| m[1].to_string())
                .collect();
            let expected = if p.contains("/old") { 0 } else { 2 };
            assert_eq!(found.len(), expected, "{spec}{p}: {found:?}");
            for a in found {
                let u = base.join(&a).unwrap();
                assert_eq!(u.host_str(), Some(name), "{spec}{p}: {a}");
                assert!(h.file(u.path()).is_some(), "{spec}{p}: {a} not served");
            }
        }
        let entry = h.entry().unwrap_or_else(|| panic!("{spec}: no entry"));
        assert!(pages.contains(&entry), "{spec}: entry {entry} not a page");
        // Every path it lists is served; assets are served whatever the variation.
        for p in h.paths() {
            assert!(h.get(&p).is_some(), "{spec}: {p} listed, not served");
        }
        assert_eq!(h.paths().len() - pages.len(), 2, "{spec}: assets");
    }
}

#[test]
fn habits_show_in_paths_and_pages() {
    let f = fixture("habits");
    let paths = |spec: &str| host(&f.site, "m.example.net", spec, 3).paths();
    assert!(paths("same").contains(&"/docs/x/guide/intro.html".to_string()));
    assert!(paths("add-prefix").contains(&"/mirror/fix/docs/x/guide/intro.html".to_string()));
    assert!(paths("drop-prefix").contains(&"/x/guide/intro.html".to_string()));
    let dropped = paths("drop-html");
    assert!(dropped.contains(&"/docs/x/guide/intro".to_string()));
    assert!(dropped.contains(&"/docs/x/guide/".to_string()));
    assert!(dropped.contains(&"/docs/x/style.css".to_string()));
    assert!(!dropped.iter().any(|p| p.ends_with(".html")));
    let h = host(&f.site, "m.example.net", "session-path", 3);
    let sid = h.session_id().unwrap();
    assert!(
        h.pages()
            .iter()
            .all(|p| p.ends_with(&format!(";jsessionid={sid}")))
    );
    assert!(
        h.get("/docs/x/guide/intro.html;jsessionid=0123").is_some(),
        "any session id"
    );
    assert!(h.get("/docs/x/guide/intro.html").is_some(), "or none");
    let q = host(&f.site, "m.example.net", "session-query", 3);
    let sid = q.session_id().unwrap();
    assert!(
        q.pages()
            .iter()
            .all(|p| p.ends_with(&format!("?sid={sid}")))
    );
    let (_, body) = q.get("/docs/x/index.html?sid=1").unwrap();
    let body = String::from_utf8(body).unwrap();
    assert!(
        body.contains(&format!("api/a3.html?x=1&amp;y=2&amp;sid={sid}#f")),
        "{body}"
    );
    // Debian's file:// canonical link names the original on every host.
    assert!(body.contains("href=\"http://docs.example.org/docs/x/index.html\""));
    let same = host(&f.site, HOST, "same", 0);
    let (_, body) = same.get("/docs/x/index.html").unwrap();
    let body = String::from_utf8(body).unwrap();
    assert!(body.contains("href=\"http://docs.example.org/docs/x/index.html\""));
    assert!(
        body.contains("<a href='guide/'>"),
        "the original's links are kept as they are"
    );
    // The banner: after <body>, a timestamp of its own per page, the same on every request.
    let b = host(&f.site, "m.example.net", "banner", 3);
    let one = b.get("/docs/x/guide/intro.html").unwrap().1;
    let two = b.get("/docs/x/guide/more.html").unwrap().1;
    assert_eq!(one, b.get("/docs/x/guide/intro.html").unwrap().1);
    let banner = |p: &[u8]| {
        let s = String::from_utf8_lossy(p).into_owned();
        let at = s.find("<body>").expect("body") + 6;
        assert!(s[at..].starts_with("<div class=\"mirror-banner\""), "{s}");
        s[at..at + s[at..].find("</div>").unwrap()].to_string()
    };
    assert_ne!(banner(&one), banner(&two));
    // Meta refreshes follow the host's habits too.
    let d = host(&f.site, "m.example.net", "drop-html", 3);
    let (_, old) = d.get("/docs/x/old").unwrap();
    assert!(
        String::from_utf8(old)
            .unwrap()
            .contains("url=guide/intro\"")
    );
}

#[test]
fn partial_mirrors_are_deterministic_and_keep_a_share() {
    let f = fixture("partial");
    let all = f.site.pages().len();
    assert_eq!(all, 77);
    let mut shares = Vec::new();
    for seed in 0..40 {
        let h = host(&f.site, "p.example.net", "partial-random", seed);
        let pages = h.pages();
        assert_eq!(
            pages,
            host(&f.site, "p.example.net", "partial-random", seed).pages()
        );
        let share = pages.len() as f64 / all as f64;
        assert!((0.10..=0.30).contains(&share), "seed {seed}: {share}");
        assert!(
            pages.contains(&"/docs/x/index.html".to_string()),
            "the entry is kept"
        );
        shares.push(pages.len());
    }
    shares.sort_unstable();
    shares.dedup();
    assert!(shares.len() > 5, "shares vary with the seed: {shares:?}");
    let a = host(&f.site, "p.example.net", "partial-random", 1).pages();
    let b = host(&f.site, "p.example.net", "partial-random", 2).pages();
    assert_ne!(a, b);
    // A subtree mirror: the guide/ or ref/ pages only (api/ holds more than 60%).
    assert_eq!(f.site.subtrees(), ["guide/", "ref/"]);
    for seed in 0..6 {
        let h = host(&f.site, "s.example.net", "partial-subtree", seed);
        let pages = h.pages();
        let dir = if pages[0].contains("/guide/") {
            "guide/"
        } else {
            "ref/"
        };
        assert!(pages.iter().all(|p| p.contains(dir)), "{pages:?}");
        assert_eq!(pages.len(), if dir == "guide/" { 5 } else { 10 });
    }
}

#[test]
fn the_catalogue_meets_its_bars() {
    let c = Catalogue::load(Path::new(replicas::DEFAULT_SITES)).unwrap();
    assert!(
        (30..=45).contains(&c.sites.len()),
        "{} sites",
        c.sites.len()
    );
    for split in Split::ALL {
        let pairs: Vec<_> = c.pairs(split).collect();
        let replicas = pairs.iter().filter(|p| p.replica).count();
        let negatives = pairs.iter().filter(|p| !p.replica).count();
        assert!(replicas >= 200, "{split:?}: {replicas} replica pairs");
        assert!(negatives >= 200, "{split:?}: {negatives} hard negatives");
        for kind in PairKind::NEGATIVES {
            assert!(
                pairs.iter().filter(|p| p.kind == kind).count() >= 20,
                "{split:?}: few {kind:?} pairs"
            );
        }
        for p in &pairs {
            assert_eq!(p.replica, p.a.site.name == p.b.site.name);
            assert_eq!(p.a.site.split, p.b.site.split);
            match p.kind {
                PairKind::Replica => assert_eq!(p.a.variation, Variation::Same),
                PairKind::Version => assert_eq!(p.a.site.project, p.b.site.project),
                PairKind::Generator => assert_eq!(p.a.site.generator, p.b.site.generator),
                PairKind::Address => assert_eq!(p.a.addr, p.b.addr),
            }
        }
        // Every atom in the replica pairs of each split.
        for &atom in &ATOM_NAMES[1..] {
            let n = pairs
                .iter()
                .filter(|p| p.replica && p.b.variation.name().split('+').any(|a| a == atom))
                .count();
            assert!(n >= 10, "{split:?}: {atom} in {n} replica pairs");
        }
        for site in c.sites.iter().filter(|s| s.split == split) {
            assert!(
                c.distractors(&site.name).len() >= 1000,
                "{}: too few distractors",
                site.name
            );
        }
    }
    let hosts: HashSet<&str> = c.hosts().iter().map(|h| h.host.as_str()).collect();
    assert_eq!(hosts.len(), c.hosts().len(), "host names are unique");
    let mut seen = HashMap::new();
    for s in &c.sites {
        seen.entry(s.generator.as_str())
            .or_insert(HashSet::new())
            .insert(s.split);
    }
    for g in ["javadoc", "doxygen", "sphinx", "gtk-doc"] {
        assert_eq!(seen[g].len(), 2, "{g} in both splits");
    }
    // Deterministic: loading again gives the same hosts and pairs.
    let again = Catalogue::load(Path::new(replicas::DEFAULT_SITES)).unwrap();
    let key = |c: &Catalogue| {
        c.hosts()
            .iter()
            .map(|h| format!("{} {} {} {}", h.host, h.addr, h.variation, h.seed))
            .collect::<Vec<_>>()
    };
    assert_eq!(key(&c), key(&again));
    assert_eq!(c.summary(), again.summary());
}

#[test]
fn build_sh_installs_every_package() {
    let c = Catalogue::load(Path::new(replicas::DEFAULT_SITES)).unwrap();
    let script =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../build.sh")).unwrap();
    let list = |name: &str| -> HashSet<String> {
        let start = script
            .find(&format!("\n{name}=("))
            .unwrap_or_else(|| panic!("{name}"))
            + name.len()
            + 3;
        let end = start + script[start..].find(')').unwrap();
        script[start..end]
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    let installed = list("REPLICA_PACKAGES");
    let unpacked = list("REPLICA_UNPACKED_PACKAGES");
    for s in &c.sites {
        let Some(p) = &s.package else { continue };
        let listed = if s.unpack { &unpacked } else { &installed };
        assert!(listed.contains(p), "{p} ({}) not in build.sh", s.name);
    }
}

/// One request over TCP: the status line's code and the body.
fn request(addr: std::net::SocketAddr, host: &str, path: &str) -> (u16, Vec<u8>) {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}:{}\r\nConnection: close\r\n\r\n",
        addr.port()
    )
    .unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).unwrap();
    let head_end = out.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&out[..head_end]).into_owned();
    let code = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    (code, out[head_end + 4..].to_vec())
}

#[test]
fn the_server_answers_by_host() {
    let f = fixture("server");
    let hosts = [
        Arc::new(host(&f.site, HOST, "same", 0)),
        Arc::new(host(&f.site, "mirror.example.net", "add-prefix+banner", 5)),
        Arc::new(host(&f.site, "198.18.0.9", "ip-literal+partial-random", 6)),
    ];
    let server = replicas::serve(0, &hosts).unwrap();
    let addr = server.addr();
    for h in &hosts {
        for p in h.pages().iter().take(5) {
            let (code, body) = request(addr, &h.host, p);
            assert_eq!(code, 200, "{}{p}", h.host);
            assert_eq!(body, h.get(p).unwrap().1);
        }
    }
    assert_eq!(request(addr, HOST, "/docs/x/nothing.html").0, 404);
    assert_eq!(
        request(addr, "mirror.example.net", "/docs/x/index.html").0,
        404
    );
    assert_eq!(
        request(addr, "unknown.example", "/docs/x/index.html").0,
        421
    );
    assert_eq!(request(addr, HOST, "/docs/x/guide").0, 301);
    assert_eq!(
        request(addr, "DOCS.Example.org", "/docs/x/style.css").1,
        b"body { color: black }"
    );
}

#[test]
fn real_sites_link_within_their_hosts() {
    let c = Catalogue::load(Path::new(replicas::DEFAULT_SITES)).unwrap();
    let draws: u32 = std::env::var("EXEMPLAR_REPLICA_PAGES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2);
    let mut missing = Vec::new();
    for site in &c.sites {
        if !site.available() {
            missing.push(site.name.as_str());
            continue;
        }
        assert_eq!(site.flat, site.subtrees().is_empty(), "{}: flat", site.name);
        let original = c.original(&site.name).unwrap();
        let pages = original.pages();
        assert!(pages.len() >= 40, "{}: {} pages", site.name, pages.len());
        for h in std::iter::once(original).chain(c.replicas(&site.name)) {
            let served = h.pages();
            let entry = h.entry().unwrap_or_else(|| panic!("{}: no entry", h.host));
            // The entry and pages drawn by the host's seed (2, or EXEMPLAR_REPLICA_PAGES).
            let mut sample = vec![entry];
            for k in 0..draws {
                let r = h
                    .seed
                    .rotate_left(k * 13)
                    .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                    >> 11;
                sample.push(served[(r % served.len() as u64) as usize].clone());
            }
            let c = canonical(h);
            for p in &sample {
                check_page(original, h, c.as_ref(), p)
                    .unwrap_or_else(|e| panic!("{}: {e}", site.name));
            }
        }
    }
    if !missing.is_empty() {
        eprintln!(
            "skipped (not installed; ./build.sh eval-replicas): {}",
            missing.join(", ")
        );
    }
}
