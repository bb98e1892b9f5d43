//! The development sites of `../shared/eval/dev-sites.toml`: real documentation websites shipped
//! by Debian packages, with ground truth computed at run time from the markers their generators
//! write into every page (no stored file lists).
//!
//! Owns loading the site list, walking a site's files and labelling every page (target, and its
//! role for the page-kind classifier). Native only; the evaluation and training commands use it.
//! Pages are read from disk and given the URL they would have when the site is served at a host
//! root (`http://<name>.test/<path>`), which is how the sites are served for crawling.

use std::path::{Path, PathBuf};

use regex::Regex;
use serde::Deserialize;

/// A page's role for the page-kind classifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Lists links to many entity pages.
    Index,
    /// Describes one entity.
    Entity,
    /// Anything else.
    Other,
}

impl Role {
    fn parse(s: &str) -> Result<Role, String> {
        match s {
            "index" => Ok(Role::Index),
            "entity" => Ok(Role::Entity),
            "other" => Ok(Role::Other),
            _ => Err(format!("unknown role {s:?}")),
        }
    }
}

#[derive(Deserialize)]
struct File {
    site: Vec<RawSite>,
}

#[derive(Deserialize)]
struct RawSite {
    name: String,
    /// The Debian package that installs it (none for a site kept in the repository).
    #[serde(default)]
    package: String,
    root: String,
    entry: String,
    #[serde(default)]
    example: String,
    #[serde(default)]
    target: String,
    #[serde(default)]
    like: Option<String>,
    exclude: Option<String>,
    rules: Vec<RawRule>,
}

#[derive(Deserialize)]
struct RawRule {
    label: String,
    role: String,
    kind: String,
    re: String,
    path: Option<String>,
}

/// How a rule matches.
#[derive(Debug, Clone)]
enum Matcher {
    Path(Regex),
    Html(Regex),
    PathHtml(Regex, Regex),
}

/// A labelling rule: the first matching rule gives a page its label and role.
#[derive(Debug, Clone)]
pub struct Rule {
    /// The label (`refentry`, `class`, …).
    pub label: String,
    /// The role of pages with this label.
    pub role: Role,
    matcher: Matcher,
}

/// One development site.
#[derive(Debug, Clone)]
pub struct DevSite {
    /// Short name (`postgres15`).
    pub name: String,
    /// The Debian package that ships it.
    pub package: String,
    /// Directory the site is served from.
    pub root: PathBuf,
    /// Entry page, relative to the root.
    pub entry: String,
    /// The example page, relative to the root.
    pub example: String,
    /// The label of target pages (pages like the example); empty for a training-only site
    /// (`eval/train-sites.toml`), which has no example and no target.
    pub target: String,
    /// For a training-only site: the development site made by the same generator (`sfml` for a
    /// Doxygen site), which leave-one-generator-out evaluation holds out together with it.
    pub like: Option<String>,
    exclude: Option<Regex>,
    /// Labelling rules, first match wins.
    pub rules: Vec<Rule>,
}

/// A labelled page of a development site.
#[derive(Debug, Clone)]
pub struct SitePage {
    /// Path relative to the site root, `/`-separated.
    pub path: String,
    /// The URL the page has when the site is served at a host root.
    pub url: String,
    /// The rule label, if any rule matched.
    pub label: Option<String>,
    /// Role (pages no rule matches are `Other`).
    pub role: Role,
    /// Whether the page is a target (its label is the site's target label).
    pub target: bool,
    /// The raw bytes.
    pub bytes: Vec<u8>,
}

/// Default location of the site list, in the repository (a copy of
/// `../shared/eval/dev-sites.toml`, so a clone is self-contained).
pub const DEFAULT_SITES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../eval/dev-sites.toml");

/// Default location of the extra training sites of the page-kind classifier (same format; the
/// sites have no example or target, and `like` names the development site of their generator).
pub const TRAIN_SITES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../eval/train-sites.toml");

/// Default location of the held-out sites of `exemplar-eval eval`: sites no setting was chosen on
/// (same format as the development sites, with example and target).
pub const HELDOUT_SITES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../eval/heldout-sites.toml");

/// The default development sites, when every one is installed (what the site tests need).
///
/// # Errors
/// When the sites file cannot be read, or a site is not installed (`./build.sh setup`).
pub fn installed() -> Result<Vec<DevSite>, String> {
    let sites = load(Path::new(DEFAULT_SITES))?;
    if sites.iter().any(|s| !s.available()) {
        return Err("development sites not installed (./build.sh setup)".into());
    }
    Ok(sites)
}

/// The default development site `name`, when it is installed.
///
/// # Errors
/// When the sites file cannot be read, no site has that name, or it is not installed.
pub fn installed_site(name: &str) -> Result<DevSite, String> {
    let site = load(Path::new(DEFAULT_SITES))?
        .into_iter()
        .find(|s| s.name == name)
        .ok_or_else(|| format!("no development site named {name}"))?;
    if !site.available() {
        return Err(format!("{name} is not installed (./build.sh setup)"));
    }
    Ok(site)
}

/// Loads the site list.
///
/// # Errors
/// When the file cannot be read or a rule is malformed.
pub fn load(path: &Path) -> Result<Vec<DevSite>, String> {
    load_rooted(path, Path::new(""))
}

/// Loads a site list whose relative roots are directories under `base` (`eval/real/sites.toml`:
/// roots under `eval/real/sites/`); keys the list adds of its own (`kind`, `live`) are ignored.
///
/// # Errors
/// When the file cannot be read or a rule is malformed.
pub fn load_rooted(path: &Path, base: &Path) -> Result<Vec<DevSite>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file: File = toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let re = |s: &str| Regex::new(s).map_err(|e| format!("bad regex {s:?}: {e}"));
    file.site
        .into_iter()
        .map(|s| {
            let rules = s
                .rules
                .into_iter()
                .map(|r| {
                    let matcher = match r.kind.as_str() {
                        "path" => Matcher::Path(re(&r.re)?),
                        "html" => Matcher::Html(re(&r.re)?),
                        "pathhtml" => Matcher::PathHtml(
                            re(r.path.as_deref().ok_or("pathhtml rule without path")?)?,
                            re(&r.re)?,
                        ),
                        k => return Err(format!("unknown rule kind {k:?}")),
                    };
                    Ok(Rule {
                        label: r.label,
                        role: Role::parse(&r.role)?,
                        matcher,
                    })
                })
                .collect::<Result<Vec<_>, String>>()?;
            Ok(DevSite {
                name: s.name,
                package: s.package,
                root: base.join(s.root),
                entry: s.entry,
                example: s.example,
                target: s.target,
                like: s.like,
                exclude: s.exclude.as_deref().map(re).transpose()?,
                rules,
            })
        })
        .collect()
}

impl DevSite {
    /// Whether the site's files are installed.
    pub fn available(&self) -> bool {
        self.root.join(&self.entry).is_file()
    }

    /// The URL of a path of this site.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}.test/{}", self.name, path)
    }

    /// Labels one page.
    pub fn label(&self, path: &str, html: &str) -> (Option<String>, Role) {
        for r in &self.rules {
            let hit = match &r.matcher {
                Matcher::Path(p) => p.is_match(path),
                Matcher::Html(h) => h.is_match(html),
                Matcher::PathHtml(p, h) => p.is_match(path) && h.is_match(html),
            };
            if hit {
                return (Some(r.label.clone()), r.role);
            }
        }
        (None, Role::Other)
    }

    /// Every `.html` page of the site (excluding the site's `exclude` pattern), labelled, sorted
    /// by path. Directory symlinks are not followed (they lead to shared JS/CSS).
    ///
    /// # Errors
    /// When the root cannot be read.
    pub fn pages(&self) -> Result<Vec<SitePage>, String> {
        let mut out = Vec::new();
        let mut dirs = vec![self.root.clone()];
        while let Some(dir) = dirs.pop() {
            let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            for entry in entries.flatten() {
                let path = entry.path();
                let Ok(ft) = entry.file_type() else { continue };
                if ft.is_dir() {
                    dirs.push(path);
                    continue;
                }
                if path.extension().and_then(|e| e.to_str()) != Some("html") {
                    continue;
                }
                let Ok(rel) = path.strip_prefix(&self.root) else {
                    continue;
                };
                let rel = rel.to_string_lossy().replace('\\', "/");
                if self.exclude.as_ref().is_some_and(|x| x.is_match(&rel)) {
                    continue;
                }
                let Ok(bytes) = std::fs::read(&path) else {
                    continue;
                };
                let html = String::from_utf8_lossy(&bytes);
                let (label, role) = self.label(&rel, &html);
                let target =
                    !self.target.is_empty() && label.as_deref() == Some(self.target.as_str());
                out.push(SitePage {
                    url: self.url(&rel),
                    path: rel,
                    label,
                    role,
                    target,
                    bytes,
                });
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }
}
