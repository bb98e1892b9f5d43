//! The local web's search engine, standing in for a web search API: Xapian Omega (Debian's
//! `xapian-omega`) over every page of every site, each indexed under its served URL, answered
//! on a host of the local web by running Omega's CGI program.
//!
//! Contract: [`Omega::index`] builds the database once for a set of sites and reuses it while
//! the set is unchanged (the site names are kept beside it); [`Omega::service`] answers any
//! GET with Omega's own page for the request's query string (`P=` for words, `MORELIKE=U<url>`
//! for pages like a page, `TOPDOC=` to page on), as its CGI program writes it.
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use exemplar_native::serve::{Request, Response};

use super::{LocalWeb, Service};

/// Omega's CGI program, where Debian installs it.
pub const OMEGA_CGI: &str = "/usr/lib/cgi-bin/omega/omega";
/// The database's name.
pub const DB: &str = "web";
/// Extensions never indexed (assets, not pages).
const SKIP: &[&str] = &[
    "js", "css", "png", "gif", "jpg", "jpeg", "svg", "ico", "woff", "woff2", "ttf", "eot", "map",
    "json", "gz", "zip", "bz2", "xz", "pdf", "ps", "txt", "xml", "inv", "md5", "tag", "dot", "cfg",
    "py", "c", "h", "cpp", "hs", "java", "jar", "class", "sh", "bat", "in", "inc", "db",
];

/// An Omega database over a local web.
#[derive(Clone, Debug)]
pub struct Omega {
    dir: PathBuf,
    /// Documents indexed.
    pub documents: usize,
}

impl Omega {
    /// The database under `dir` for the web's available sites (built unless it is there for
    /// the same sites); `log` hears of each site indexed.
    ///
    /// # Errors
    /// `omindex` missing or failing, or a database with no document.
    pub fn index(web: &LocalWeb, dir: &Path, mut log: impl FnMut(&str)) -> Result<Omega, String> {
        let names: Vec<&str> = (0..web.sites.len())
            .filter(|&s| web.available(s))
            .map(|s| web.sites[s].name.as_str())
            .collect();
        let stamp = dir.join("sites.txt");
        let wanted = names.join("\n");
        let data = dir.join("data").join(DB);
        let io = |e: std::io::Error| format!("{}: {e}", dir.display());
        for sub in ["data", "log", "cdb"] {
            std::fs::create_dir_all(dir.join(sub)).map_err(io)?;
        }
        std::fs::write(
            dir.join("omega.conf"),
            format!(
                "database_dir {0}/data\ntemplate_dir /var/lib/xapian-omega/templates\nlog_dir {0}/log\ncdb_dir {0}/cdb\n",
                dir.display()
            ),
        )
        .map_err(io)?;
        if std::fs::read_to_string(&stamp).ok().as_deref() != Some(wanted.as_str()) {
            let _ = std::fs::remove_dir_all(&data);
            let _ = std::fs::remove_file(&stamp);
            for (s, site) in web
                .sites
                .iter()
                .enumerate()
                .filter(|(s, _)| web.available(*s))
            {
                let Some(root) = web.fs().physical(&web.fs().resolve(&site.root)) else {
                    continue;
                };
                let mut cmd = Command::new("omindex");
                cmd.arg("--db")
                    .arg(&data)
                    .arg("--url")
                    .arg(site.url())
                    .arg("--no-delete");
                cmd.arg("--empty-docs=skip");
                for ext in SKIP {
                    cmd.arg(format!("-M{ext}:skip"));
                }
                let out = cmd
                    .arg(&root)
                    .output()
                    .map_err(|e| format!("omindex: {e}"))?;
                if !out.status.success() {
                    return Err(format!(
                        "omindex {}: {}",
                        site.name,
                        String::from_utf8_lossy(&out.stderr)
                            .lines()
                            .last()
                            .unwrap_or("")
                    ));
                }
                log(&format!("{} ({s})", site.name));
            }
            std::fs::write(&stamp, &wanted).map_err(io)?;
        }
        let delve = Command::new("xapian-delve")
            .arg(&data)
            .output()
            .map_err(|e| format!("xapian-delve: {e}"))?;
        let documents = String::from_utf8_lossy(&delve.stdout)
            .lines()
            .find_map(|l| l.strip_prefix("number of documents = "))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0);
        if documents == 0 {
            return Err(format!(
                "Omega's database {} holds no document",
                data.display()
            ));
        }
        Ok(Omega {
            dir: dir.to_path_buf(),
            documents,
        })
    }

    /// The search engine as a service of the local web (Omega's CGI program run per request).
    pub fn service(&self) -> Service {
        let conf = self.dir.join("omega.conf");
        Arc::new(move |req: &Request| {
            if req.method != "GET" && req.method != "HEAD" {
                return Response {
                    status: 405,
                    ..Response::default()
                };
            }
            let query = req.path.split_once('?').map_or("", |(_, q)| q);
            let query = if query.split('&').any(|kv| kv.starts_with("DB=")) {
                query.to_string()
            } else {
                format!("DB={DB}&{query}")
            };
            let out = Command::new(OMEGA_CGI)
                .env_clear()
                .env("GATEWAY_INTERFACE", "CGI/1.1")
                .env("REQUEST_METHOD", "GET")
                .env("QUERY_STRING", &query)
                .env("SCRIPT_NAME", "/")
                .env("OMEGA_CONFIG_FILE", &conf)
                .output();
            match out {
                Ok(o) if o.status.success() => cgi_response(&o.stdout),
                Ok(o) => Response {
                    status: 500,
                    body: o.stderr,
                    ..Response::default()
                },
                Err(e) => Response {
                    status: 500,
                    body: e.to_string().into_bytes(),
                    ..Response::default()
                },
            }
        })
    }
}

/// A CGI program's output as a response: its header lines up to the first empty line
/// (`Status:` giving the code), then the body.
fn cgi_response(out: &[u8]) -> Response {
    let split = out
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| (i, i + 4))
        .or_else(|| {
            out.windows(2)
                .position(|w| w == b"\n\n")
                .map(|i| (i, i + 2))
        });
    let Some((end, body)) = split else {
        return Response {
            status: 502,
            ..Response::default()
        };
    };
    let mut r = Response {
        status: 200,
        body: out[body..].to_vec(),
        ..Response::default()
    };
    for line in String::from_utf8_lossy(&out[..end]).lines() {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        let v = v.trim();
        if k.eq_ignore_ascii_case("status") {
            r.status = v
                .split(' ')
                .next()
                .and_then(|c| c.parse().ok())
                .unwrap_or(200);
        } else {
            r.headers.push((k.trim().to_string(), v.to_string()));
        }
    }
    r
}
