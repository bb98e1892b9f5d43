//! Fields of target pages (`./build.sh eval-fields` → `docs/reports/fields.md`): on the real
//! development sites of `eval/real/fields.toml` (the quotes authors, the shop's books; each live
//! and as its mirror) and documentation sites of Debian's packages (javadoc's and Doxygen's class
//! pages), fields are induced from a sample of the target pages as learning would
//! ([`exemplar_core::fields::induce`]) and read from every target page
//! ([`exemplar_core::fields::extract`]); the applications' own data files are the truth, and a
//! documentation page's path (its class, its package).
//!
//! A page is matched to its record by the record's `key` values, all found in the page's text
//! (a name and a birth date, a UPC): the match reads no field. For each field of the truth, the
//! induced field agreeing with it on most pages is its field; *precision* is the share of the
//! pages where that field has a value on which the value is the truth's, *recall* the share of
//! the pages showing the truth's value (its text is in the page) on which the field reads it.
//! A field is *found* when precision ≥ 0.98 and recall ≥ 0.95.
use std::collections::HashMap;
use std::fmt::Write;
use std::path::Path;
use std::time::Instant;

use exemplar_core::fields::{self, Field, Value};
use exemplar_html::dom::Document;
use exemplar_native::http::{Client, ClientConfig};
use regex::Regex;

use crate::real_eval::real_dir;

/// Target pages read for induction at most (spread over the targets, as a learned crawler's).
const SAMPLE: usize = 30;

/// One `[[site]]` of `eval/real/fields.toml`.
#[derive(Clone, Debug)]
struct Site {
    name: String,
    live: Option<String>,
    mirror: Option<String>,
    /// A documentation site's directory (its pages' truth is in their paths).
    root: Option<std::path::PathBuf>,
    target: Regex,
    /// What a target page's HTML holds (a generator's marker of the page kind).
    html: Option<Regex>,
    records: Vec<serde_json::Value>,
    key: Vec<String>,
    /// The truth from a page's path: the regex's named groups, each with `replace` applied.
    path_truth: Option<Regex>,
    replace: Vec<(String, String)>,
    fields: Vec<String>,
    /// What the report says of the figures (a limit of the truth).
    note: Option<String>,
}

fn sites() -> Result<Vec<Site>, String> {
    let dir = real_dir();
    let path = dir.join("fields.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let doc: toml::Value = toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for s in doc
        .get("site")
        .and_then(|s| s.as_array())
        .into_iter()
        .flatten()
    {
        let opt = |k: &str| s.get(k).and_then(|v| v.as_str()).map(str::to_string);
        let list = |k: &str| -> Vec<String> {
            s.get(k)
                .and_then(|v| v.as_array())
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        };
        let name = opt("name").ok_or("a [[site]] without a name")?;
        let regex = |k: &str| {
            opt(k)
                .map(|r| Regex::new(&r).map_err(|e| format!("{name}: {k}: {e}")))
                .transpose()
        };
        let replace: Vec<(String, String)> = s
            .get("replace")
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
            .filter_map(|pair| {
                let pair = pair.as_array()?;
                Some((
                    pair.first()?.as_str()?.to_string(),
                    pair.get(1)?.as_str()?.to_string(),
                ))
            })
            .collect();
        if let Some(path_truth) = regex("truth")? {
            out.push(Site {
                live: None,
                mirror: None,
                root: Some(opt("root").ok_or(format!("{name}: no root"))?.into()),
                target: regex("target")?.ok_or(format!("{name}: no target"))?,
                html: regex("html")?,
                records: Vec::new(),
                key: Vec::new(),
                path_truth: Some(path_truth),
                replace,
                fields: list("fields"),
                note: opt("note"),
                name,
            });
            continue;
        }
        let data = dir.join(opt("data").ok_or(format!("{name}: no data"))?);
        let text =
            std::fs::read_to_string(&data).map_err(|e| format!("{}: {e}", data.display()))?;
        let records: Vec<serde_json::Value> = match opt("records") {
            // A JSON document: the array under that key.
            Some(k) => serde_json::from_str::<serde_json::Value>(&text)
                .map_err(|e| format!("{}: {e}", data.display()))?
                .get(&k)
                .and_then(|v| v.as_array())
                .cloned()
                .ok_or(format!("{name}: no array {k}"))?,
            // JSON Lines.
            None => text
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect(),
        };
        let target = opt("target").ok_or(format!("{name}: no target"))?;
        out.push(Site {
            live: opt("live"),
            mirror: opt("mirror"),
            root: None,
            target: Regex::new(&target).map_err(|e| format!("{name}: {e}"))?,
            html: None,
            records,
            key: list("key"),
            path_truth: None,
            replace: Vec::new(),
            fields: list("fields"),
            note: opt("note"),
            name,
        });
    }
    Ok(out)
}

/// A record's value at a dotted path (`properties.UPC`), as text.
fn truth(r: &serde_json::Value, path: &str) -> Option<String> {
    let mut v = r;
    // A key may hold dots of its own ("Price (excl. tax)" holds one): the first segment, then the rest.
    let (head, rest) = path
        .split_once('.')
        .map_or((path, None), |(h, t)| (h, Some(t)));
    v = v.get(head)?;
    if let Some(rest) = rest {
        v = v.get(rest)?;
    }
    match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn norm(s: &str) -> String {
    s.replace(['“', '”'], "\"")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Whether an extracted value is the truth's: the same text, or the same number.
fn agrees(v: &Value, t: &str) -> bool {
    let text = v.as_text();
    if norm(&text) == norm(t) {
        return true;
    }
    let num = |s: &str| {
        let s = s.trim();
        s.parse::<f64>().ok().or_else(|| {
            let digits: String = s
                .chars()
                .filter(|c| c.is_ascii_digit() || *c == '.')
                .collect();
            (!digits.is_empty() && s.chars().any(|c| "£$€".contains(c)))
                .then(|| digits.parse().ok())
                .flatten()
        })
    };
    matches!((num(&text), num(t)), (Some(a), Some(b)) if (a - b).abs() < 1e-9)
}

/// The pages of a site: (URL or path, HTML).
fn pages(site: &Site) -> Result<Vec<(String, String)>, String> {
    let base = match (&site.root, &site.mirror) {
        (Some(root), _) => Some(root.clone()),
        (None, Some(mirror)) => Some(real_dir().join("sites").join(mirror)),
        _ => None,
    };
    if let Some(base) = base {
        let mut out = Vec::new();
        collect(&base, &base, &site.target, &mut out)?;
        out.retain(|(_, html)| site.html.as_ref().is_none_or(|re| re.is_match(html)));
        out.sort();
        return Ok(out);
    }
    let app = site
        .live
        .as_ref()
        .ok_or(format!("{}: neither live nor mirror", site.name))?;
    let app = exemplar_testkit::live_apps::start(app)?;
    let urls = crate::real_eval::walk(&format!("{}/", app.base), 20_000);
    let client = Client::new(&ClientConfig::default());
    let mut out = Vec::new();
    let mut urls: Vec<String> = urls
        .into_iter()
        .filter(|u| url::Url::parse(u).is_ok_and(|p| site.target.is_match(p.path())))
        .collect();
    urls.sort();
    for u in urls {
        if let exemplar_core::fetch::FetchResult::Response(r) = client.get(&u) {
            out.push((u, String::from_utf8_lossy(&r.body).into_owned()));
        }
    }
    Ok(out)
}

fn collect(
    base: &Path,
    dir: &Path,
    target: &Regex,
    out: &mut Vec<(String, String)>,
) -> Result<(), String> {
    for e in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let p = e.map_err(|e| e.to_string())?.path();
        if p.is_dir() {
            collect(base, &p, target, out)?;
        } else if let Ok(rel) = p.strip_prefix(base) {
            let rel = rel.to_string_lossy().to_string();
            if target.is_match(&rel) {
                let html =
                    std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
                out.push((rel, html));
            }
        }
    }
    Ok(())
}

/// One truth field's figures.
struct Scored {
    truth: String,
    field: Option<String>,
    shown: usize,
    read: usize,
    right: usize,
}

impl Scored {
    fn precision(&self) -> f64 {
        if self.read == 0 {
            0.0
        } else {
            self.right as f64 / self.read as f64
        }
    }
    fn recall(&self) -> f64 {
        if self.shown == 0 {
            0.0
        } else {
            self.right.min(self.shown) as f64 / self.shown as f64
        }
    }
    fn found(&self) -> bool {
        self.shown > 0 && self.precision() >= 0.98 && self.recall() >= 0.95
    }
}

/// One site's figures.
struct SiteFigures {
    name: String,
    note: Option<String>,
    pages: usize,
    matched: usize,
    fields: Vec<Field>,
    scored: Vec<Scored>,
    induce_ms: f64,
    extract_ms: f64,
}

fn evaluate(site: &Site) -> Result<SiteFigures, String> {
    let pages = pages(site)?;
    let docs: Vec<Document> = pages
        .iter()
        .map(|(_, h)| Document::parse(h).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    // The sample: spread over the pages, as a crawler's known targets are.
    let sample: Vec<Document> = fields::spread(&docs, SAMPLE).into_iter().cloned().collect();
    let started = Instant::now();
    let induced = fields::induce(&sample);
    let induce_ms = started.elapsed().as_secs_f64() * 1000.0;
    let started = Instant::now();
    let read: Vec<HashMap<String, Value>> = docs
        .iter()
        .zip(&pages)
        .map(|(d, (u, _))| fields::extract(&induced, d, u).into_iter().collect())
        .collect();
    let extract_ms = started.elapsed().as_secs_f64() * 1000.0;
    // Each page's truth: its record's values, or what its path says.
    let texts: Vec<String> = docs.iter().map(|d| norm(&d.text(0))).collect();
    let records: Vec<Option<HashMap<String, String>>> = match &site.path_truth {
        Some(re) => pages
            .iter()
            .map(|(path, _)| {
                let caps = re.captures(path)?;
                Some(
                    re.capture_names()
                        .flatten()
                        .filter_map(|n| {
                            let v = caps.name(n)?.as_str();
                            let v = site
                                .replace
                                .iter()
                                .fold(v.to_string(), |v, (a, b)| v.replace(a.as_str(), b));
                            Some((n.to_string(), v))
                        })
                        .collect(),
                )
            })
            .collect(),
        None => texts
            .iter()
            .map(|t| {
                let r = site.records.iter().find(|r| {
                    site.key
                        .iter()
                        .all(|k| truth(r, k).is_some_and(|v| t.contains(&norm(&v))))
                })?;
                Some(
                    site.fields
                        .iter()
                        .filter_map(|f| Some((f.clone(), truth(r, f)?)))
                        .collect(),
                )
            })
            .collect(),
    };
    let matched = records.iter().flatten().count();
    let mut scored = Vec::new();
    for tf in &site.fields {
        // The induced field agreeing with this truth on most pages.
        let best = induced
            .iter()
            .map(|f| {
                let n = records
                    .iter()
                    .zip(&read)
                    .filter(|(r, got)| {
                        r.as_ref()
                            .and_then(|r| r.get(tf))
                            .zip(got.get(&f.name))
                            .is_some_and(|(t, v)| agrees(v, t))
                    })
                    .count();
                // Of fields agreeing as often, the one named as the truth names it (two fields
                // of equal values: a price shown twice, a tax of 0 beside 0 reviews).
                let named =
                    exemplar_core::fields::key(tf.split_once('.').map_or(tf.as_str(), |(_, r)| r))
                        == f.name;
                (n, named, f.name.clone())
            })
            .max_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)).then(b.2.cmp(&a.2)))
            .filter(|(n, _, _)| *n > 0)
            .map(|(_, _, name)| name);
        let mut s = Scored {
            truth: tf.clone(),
            field: best.clone(),
            shown: 0,
            read: 0,
            right: 0,
        };
        for ((r, got), text) in records.iter().zip(&read).zip(&texts) {
            // An empty value is shown by no page (and would be "in" every text).
            let Some(t) = r
                .as_ref()
                .and_then(|r| r.get(tf))
                .filter(|t| !t.trim().is_empty())
            else {
                continue;
            };
            let shown = text.contains(&norm(t));
            s.shown += usize::from(shown);
            if let Some(v) = best.as_ref().and_then(|b| got.get(b)) {
                s.read += 1;
                s.right += usize::from(agrees(v, t));
            }
        }
        scored.push(s);
    }
    Ok(SiteFigures {
        name: site.name.clone(),
        note: site.note.clone(),
        pages: docs.len(),
        matched,
        fields: induced,
        scored,
        induce_ms,
        extract_ms,
    })
}

/// Runs every site and writes the report to `out`.
///
/// # Errors
/// The site list, a site's pages or the report cannot be read or written.
pub fn run(out: &Path) -> Result<(), String> {
    let mut md = String::from(
        "# Fields of target pages\n\nWritten by `./build.sh eval-fields` (`exemplar-eval eval-fields`). Development material: the real sites of `eval/real/fields.toml`, each live and as its mirror, the applications' data files the truth; and documentation sites of Debian's packages, the truth in their class pages' paths. Fields are induced from 30 target pages spread evenly over the site (as from a learned crawler's known targets) and read from every target page. A page is matched to its record by the record's key values found in its text (a documentation page has its own, from its path). *Shown*: pages whose text holds the truth's value; *precision*: of the pages where the chosen field reads a value, those where it is the truth's; *recall*: of the pages showing the value, those where the field reads it. Found: precision ≥ 0.98 and recall ≥ 0.95, without the user's help.\n",
    );
    let mut shown_total = 0;
    let mut found_total = 0;
    for site in sites()? {
        eprintln!("{} …", site.name);
        let f = match evaluate(&site) {
            Ok(f) => f,
            Err(e) => {
                let _ = writeln!(md, "\n## {}\n\nnot measured: {e}", site.name);
                continue;
            }
        };
        let _ = writeln!(
            md,
            "\n## {}\n\n{} target pages, {} matched to a record; {} fields induced in {:.1} ms, read from every page in {:.1} ms.\n\n| truth | field | shown | read | precision | recall | found |\n|---|---|---:|---:|---:|---:|---|",
            f.name,
            f.pages,
            f.matched,
            f.fields.len(),
            f.induce_ms,
            f.extract_ms
        );
        for s in &f.scored {
            if s.shown > 0 {
                shown_total += 1;
                found_total += usize::from(s.found());
            }
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {:.3} | {:.3} | {} |",
                s.truth,
                s.field.as_deref().unwrap_or("–"),
                s.shown,
                s.read,
                s.precision(),
                s.recall(),
                if s.shown == 0 {
                    "not shown as text"
                } else if s.found() {
                    "yes"
                } else {
                    "**no**"
                }
            );
        }
        if let Some(note) = &f.note {
            let _ = writeln!(md, "\n{note}");
        }
        let _ = writeln!(md, "\nInduced fields (name ← what named it: selector):\n");
        for fl in &f.fields {
            let sel = if fl.css.is_empty() {
                &fl.xpath
            } else {
                &fl.css
            };
            let _ = writeln!(md, "- `{}` ← {:?}: `{}`", fl.name, fl.named_by, sel);
        }
    }
    let _ = writeln!(
        md,
        "\n## Summary\n\nFields the truth has and the pages show: {shown_total}; found without the user's help: {found_total} ({:.0}%).",
        if shown_total == 0 {
            0.0
        } else {
            100.0 * found_total as f64 / shown_total as f64
        }
    );
    std::fs::write(out, &md).map_err(|e| format!("{}: {e}", out.display()))?;
    println!("{md}\nwritten to {}", out.display());
    Ok(())
}
