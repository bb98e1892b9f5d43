//! The site list of the replica data (`eval/replica-sites.toml`): each real site with its
//! upstream host, URL prefix, generator, address and split, and the plan the catalogue follows.
//!
//! Owns reading and checking the TOML file, and a site's files: every regular file under its root
//! (symbolic links followed, each directory once), listed once when first asked for, with the URL
//! path each has on the site's original host. A site whose root is missing has no files.

use std::collections::{HashMap, HashSet};
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The site list in the repository.
pub const DEFAULT_SITES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/replica-sites.toml");

/// Where `./build.sh eval-replicas` unpacks the packages apt cannot install beside another one
/// (`unpack = true`): `DEB_DIR/PACKAGE/` holds the package's files as `dpkg-deb -x` writes them.
pub const DEB_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../.cache/debs");

/// Which half of the data a site belongs to: settings are chosen on `Dev`, figures reported on
/// `Test`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Split {
    /// Settings are chosen on it.
    Dev,
    /// Figures are reported on it.
    Test,
}

impl Split {
    /// `dev` or `test`.
    pub fn name(self) -> &'static str {
        match self {
            Split::Dev => "dev",
            Split::Test => "test",
        }
    }

    /// Both splits, dev first.
    pub const ALL: [Split; 2] = [Split::Dev, Split::Test];
}

/// How the catalogue is made (the TOML's `[plan]`; its comments say what each key means).
#[derive(Clone, Debug)]
pub struct Plan {
    /// Replicas of each site in the pair catalogue.
    pub replicas_per_site: usize,
    /// Host pairs of each version or generator pair of sites.
    pub negatives_per_site_pair: usize,
    /// Non-replica hosts each site has in its split at least.
    pub distractors: usize,
    /// Variation specs (`www`, `add-prefix+banner`, ...), taken in turn.
    pub variations: Vec<String>,
    /// Top-level domains for `other-tld`.
    pub tlds: Vec<String>,
    /// First labels of mirror hosts.
    pub mirror_labels: Vec<String>,
    /// Organisation domains of mirror hosts.
    pub mirror_orgs: Vec<String>,
    /// Path prefixes for `add-prefix` (`{project}` replaced).
    pub mirror_prefixes: Vec<String>,
    /// The network replicas' addresses are drawn from, and its prefix length.
    pub variant_network: (Ipv4Addr, u8),
}

/// One real site.
#[derive(Debug)]
pub struct Site {
    /// Short name, unique.
    pub name: String,
    /// What it documents: sites of one project are other versions of one documentation.
    pub project: String,
    /// The Debian package that installs it (`None`: a mirror kept in the repository).
    pub package: Option<String>,
    /// The package is unpacked under [`DEB_DIR`] rather than installed.
    pub unpack: bool,
    /// Where its files are read.
    pub root: PathBuf,
    /// The root as the TOML names it (the installed path, which `file://` links in pages use).
    pub declared_root: String,
    /// The entry page, relative to the root.
    pub entry: String,
    /// The upstream host name: its original host.
    pub host: String,
    /// The URL path the root is served at on the original host (`/`-delimited).
    pub prefix: String,
    /// What made its pages.
    pub generator: String,
    /// The original host's address.
    pub addr: Ipv4Addr,
    /// Its split.
    pub split: Split,
    /// Directory-style: `x/index.html` is served as `x/`.
    pub dir_index: bool,
    /// No subdirectory holds a part of its pages.
    pub flat: bool,
    files: OnceLock<Files>,
}

/// A site's files.
#[derive(Debug, Default)]
pub(crate) struct Files {
    /// Paths relative to the root, `/`-separated, sorted.
    pub paths: Vec<String>,
    /// Whether each is an HTML page.
    pub html: Vec<bool>,
    /// Path → index.
    pub index: HashMap<String, u32>,
    /// The decoded URL path each has on the original host → index.
    pub origin: HashMap<String, u32>,
}

impl Files {
    /// The file a decoded URL path names in `table`: the path itself, a directory's
    /// `index.html`, or a directory-style page named by its file.
    pub fn lookup(table: &HashMap<String, u32>, path: &str) -> Option<u32> {
        if let Some(&i) = table.get(path) {
            return Some(i);
        }
        if path.ends_with('/') {
            return table.get(&format!("{path}index.html")).copied();
        }
        path.strip_suffix("index.html")
            .filter(|dir| dir.ends_with('/'))
            .and_then(|dir| table.get(dir).copied())
    }
}

impl Site {
    /// Whether its entry page is there to read.
    pub fn available(&self) -> bool {
        self.root.join(&self.entry).is_file()
    }

    /// Its files' paths relative to the root (empty when not installed).
    pub fn files(&self) -> &[String] {
        &self.file_table().paths
    }

    /// Its HTML pages' paths relative to the root.
    pub fn pages(&self) -> Vec<&str> {
        let f = self.file_table();
        f.paths
            .iter()
            .zip(&f.html)
            .filter(|(_, h)| **h)
            .map(|(p, _)| p.as_str())
            .collect()
    }

    /// The directories (ending in `/`) holding from 1% (at least 3) to 60% of its pages: the
    /// subtrees a partial mirror may keep (none for a flat site).
    pub fn subtrees(&self) -> Vec<String> {
        let files = self.file_table();
        let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
        let mut total = 0;
        for (p, &html) in files.paths.iter().zip(&files.html) {
            if !html {
                continue;
            }
            total += 1;
            for (k, _) in p.match_indices('/') {
                *counts.entry(&p[..=k]).or_default() += 1;
            }
        }
        let lo = (total as f64 * 0.01).ceil().max(3.0) as usize;
        let hi = (total as f64 * 0.60).floor() as usize;
        counts
            .into_iter()
            .filter(|&(_, c)| c >= lo && c <= hi)
            .map(|(d, _)| d.to_string())
            .collect()
    }

    pub(crate) fn file_table(&self) -> &Files {
        self.files.get_or_init(|| {
            let paths = walk(&self.root);
            let html = paths.iter().map(|p| is_html(p)).collect();
            let mut index = HashMap::with_capacity(paths.len());
            let mut origin = HashMap::with_capacity(paths.len());
            for (i, p) in paths.iter().enumerate() {
                index.insert(p.clone(), i as u32);
                origin.entry(self.origin_path(p)).or_insert(i as u32);
            }
            Files {
                paths,
                html,
                index,
                origin,
            }
        })
    }

    /// The decoded URL path of a file (relative to the root) on the original host.
    pub fn origin_path(&self, file: &str) -> String {
        let file = if self.dir_index {
            match file.strip_suffix("index.html") {
                Some(dir) if dir.is_empty() || dir.ends_with('/') => dir,
                _ => file,
            }
        } else {
            file
        };
        format!("{}{file}", self.prefix)
    }
}

/// Whether a path names an HTML page.
pub(crate) fn is_html(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".html") || lower.ends_with(".htm")
}

/// Every regular file under `root`, relative and sorted; links are followed, each directory
/// visited once (by its canonical path), names that are not UTF-8 skipped.
fn walk(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut dirs = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, rel)) = dirs.pop() {
        let Ok(canonical) = dir.canonicalize() else {
            continue;
        };
        if !seen.insert(canonical) {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            let path = entry.path();
            let Ok(meta) = std::fs::metadata(&path) else {
                continue;
            };
            let child = format!("{rel}{name}");
            if meta.is_dir() {
                dirs.push((path, format!("{child}/")));
            } else if meta.is_file() {
                out.push(child);
            }
        }
    }
    out.sort();
    out
}

/// The site list and plan of a TOML file.
///
/// # Errors
/// When the file cannot be read, a key is missing, unknown or malformed, or two sites share a
/// name or a host.
pub fn load(path: &Path) -> Result<(Plan, Vec<Site>), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let base = path.parent().unwrap_or(Path::new("."));
    parse(&text, base, Path::new(DEB_DIR)).map_err(|e| format!("{}: {e}", path.display()))
}

/// [`load`] on text: relative roots are under `base`, unpacked packages under `debs`.
///
/// # Errors
/// As [`load`].
pub fn parse(text: &str, base: &Path, debs: &Path) -> Result<(Plan, Vec<Site>), String> {
    let table: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
    for key in table.keys() {
        if key != "plan" && key != "site" {
            return Err(format!("unknown key {key:?}"));
        }
    }
    let plan = table
        .get("plan")
        .and_then(toml::Value::as_table)
        .ok_or("no [plan]")?;
    let plan = parse_plan(plan)?;
    let raw = table
        .get("site")
        .and_then(toml::Value::as_array)
        .ok_or("no [[site]]")?;
    let mut sites = Vec::new();
    let (mut names, mut hosts) = (HashSet::new(), HashSet::new());
    for (i, t) in raw.iter().enumerate() {
        let t = t.as_table().ok_or(format!("site {i}: not a table"))?;
        let site = parse_site(t, base, debs).map_err(|e| format!("site {i}: {e}"))?;
        if !names.insert(site.name.clone()) {
            return Err(format!("two sites named {}", site.name));
        }
        if !hosts.insert(site.host.clone()) {
            return Err(format!("two sites on host {}", site.host));
        }
        sites.push(site);
    }
    Ok((plan, sites))
}

const PLAN_KEYS: &[&str] = &[
    "replicas_per_site",
    "negatives_per_site_pair",
    "distractors",
    "variations",
    "tlds",
    "mirror_labels",
    "mirror_orgs",
    "mirror_prefixes",
    "variant_network",
];

fn parse_plan(t: &toml::Table) -> Result<Plan, String> {
    known_keys(t, PLAN_KEYS, "[plan]")?;
    let count = |k: &str| {
        t.get(k)
            .and_then(toml::Value::as_integer)
            .and_then(|v| usize::try_from(v).ok())
            .ok_or(format!("[plan]: {k} must be a count"))
    };
    let list = |k: &str| -> Result<Vec<String>, String> {
        let v = t
            .get(k)
            .and_then(toml::Value::as_array)
            .ok_or(format!("[plan]: {k} must be a list of strings"))?;
        let out: Vec<String> = v
            .iter()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect();
        if out.len() != v.len() || out.is_empty() {
            return Err(format!("[plan]: {k} must be a list of strings"));
        }
        Ok(out)
    };
    let net = str_key(t, "variant_network", "[plan]")?;
    let variant_network = net
        .split_once('/')
        .and_then(|(a, n)| Some((a.parse::<Ipv4Addr>().ok()?, n.parse::<u8>().ok()?)))
        .filter(|(_, n)| (8..=24).contains(n))
        .ok_or(format!(
            "[plan]: variant_network {net:?} is not A.B.C.D/N (8..24)"
        ))?;
    let prefixes = list("mirror_prefixes")?;
    if let Some(p) = prefixes
        .iter()
        .find(|p| !p.starts_with('/') || !p.ends_with('/'))
    {
        return Err(format!(
            "[plan]: mirror prefix {p:?} must start and end with /"
        ));
    }
    Ok(Plan {
        replicas_per_site: count("replicas_per_site")?,
        negatives_per_site_pair: count("negatives_per_site_pair")?,
        distractors: count("distractors")?,
        variations: list("variations")?,
        tlds: list("tlds")?,
        mirror_labels: list("mirror_labels")?,
        mirror_orgs: list("mirror_orgs")?,
        mirror_prefixes: prefixes,
        variant_network,
    })
}

const SITE_KEYS: &[&str] = &[
    "name",
    "project",
    "package",
    "unpack",
    "root",
    "entry",
    "host",
    "prefix",
    "generator",
    "addr",
    "split",
    "dir_index",
    "flat",
];

fn parse_site(t: &toml::Table, base: &Path, debs: &Path) -> Result<Site, String> {
    known_keys(t, SITE_KEYS, "site")?;
    let s = |k: &str| str_key(t, k, "site");
    let flag = |k: &str| match t.get(k) {
        None => Ok(false),
        Some(v) => v.as_bool().ok_or(format!("{k} must be true or false")),
    };
    let name = s("name")?;
    let package = match t.get("package") {
        None => None,
        Some(v) => Some(v.as_str().ok_or("package must be a string")?.to_string()),
    };
    let unpack = flag("unpack")?;
    let declared_root = s("root")?;
    let root = match (&package, unpack) {
        (Some(p), true) => debs.join(p).join(declared_root.trim_start_matches('/')),
        (None, true) => return Err(format!("{name}: unpack without a package")),
        _ if Path::new(&declared_root).is_absolute() => PathBuf::from(&declared_root),
        _ => base.join(&declared_root),
    };
    let host = s("host")?.to_ascii_lowercase();
    if host.is_empty()
        || host.parse::<Ipv4Addr>().is_ok()
        || !host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
    {
        return Err(format!("{name}: host {host:?} is not a host name"));
    }
    let prefix = s("prefix")?;
    if !prefix.starts_with('/') || !prefix.ends_with('/') {
        return Err(format!(
            "{name}: prefix {prefix:?} must start and end with /"
        ));
    }
    let addr = s("addr")?;
    let addr = addr
        .parse::<Ipv4Addr>()
        .map_err(|_| format!("{name}: addr {addr:?} is not an IPv4 address"))?;
    let split = match s("split")?.as_str() {
        "dev" => Split::Dev,
        "test" => Split::Test,
        other => return Err(format!("{name}: split {other:?} is neither dev nor test")),
    };
    Ok(Site {
        project: s("project")?,
        package,
        unpack,
        root,
        declared_root,
        entry: s("entry")?,
        host,
        prefix,
        generator: s("generator")?,
        addr,
        split,
        dir_index: flag("dir_index")?,
        flat: flag("flat")?,
        files: OnceLock::new(),
        name,
    })
}

fn known_keys(t: &toml::Table, known: &[&str], what: &str) -> Result<(), String> {
    match t.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(format!("{what}: unknown key {k:?}")),
        None => Ok(()),
    }
}

fn str_key(t: &toml::Table, k: &str, what: &str) -> Result<String, String> {
    t.get(k)
        .and_then(toml::Value::as_str)
        .map(str::to_string)
        .ok_or(format!("{what}: {k} must be a string"))
}
