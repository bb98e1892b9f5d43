//! `exemplar-eval serve-web --sites a,b,… [--port N] [--index DIR]`: a small local web for the
//! browser tests of "Find more sites like this": the named sites of `eval/web-sites.toml` (those
//! installed, or unpacked by `./build.sh eval-discover`), with the backlink service and a search
//! engine over just them, on 127.0.0.1.
//!
//! Contract: every named site must be in the list and readable (else a clear error, nothing
//! served); once serving, the first line on stdout is `serving on http://ADDR`; it serves until
//! killed. The search index lives in `--index DIR` (default: a directory under the system's
//! temporary one named after the sites), built once for the same sites.
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use exemplar_native::serve::Server;

use super::backlinks::Backlinks;
use super::search::Omega;
use super::{BACKLINKS_HOST, LocalWeb, SEARCH_HOST, UnionFs, WEB_ROOT, sites};

/// Runs the command (see the module doc).
///
/// # Errors
/// A missing or unknown site, the index failing, the port taken.
pub fn run(args: &[String]) -> Result<(), String> {
    let flag = |f: &str| args.windows(2).find(|w| w[0] == f).map(|w| w[1].as_str());
    let names: Vec<&str> = flag("--sites")
        .ok_or("serve-web needs --sites a,b,…")?
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .collect();
    let all = sites::load(Path::new(sites::DEFAULT_SITES))?;
    for n in &names {
        if !all.iter().any(|s| s.name == *n) {
            return Err(format!("--sites: no site {n} in {}", sites::DEFAULT_SITES));
        }
    }
    let chosen = all
        .into_iter()
        .filter(|s| names.contains(&s.name.as_str()))
        .collect();
    let mut web = LocalWeb::new(chosen, UnionFs::new(WEB_ROOT));
    let missing: Vec<&str> = (0..web.sites.len())
        .filter(|&s| !web.available(s))
        .map(|s| web.sites[s].name.as_str())
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "not installed: {} (./build.sh setup installs the tests' packages)",
            missing.join(", ")
        ));
    }
    let port: u16 = match flag("--port") {
        Some(p) => p.parse().map_err(|_| format!("--port {p}: not a port"))?,
        None => 0,
    };
    let index = flag("--index").map_or_else(
        || std::env::temp_dir().join(format!("exemplar-web-omega-{}", names.join("-"))),
        PathBuf::from,
    );
    let backlinks = Arc::new(Backlinks::build(&web, |_, _, _| {}));
    let omega = Omega::index(&web, &index, |_| {})?;
    web.add_service(SEARCH_HOST, omega.service());
    web.add_service(BACKLINKS_HOST, backlinks.service());
    let web = Arc::new(web);
    let server = Server::start_with(port, 256, move |req| web.respond(req))
        .map_err(|e| format!("port {port}: {e}"))?;
    let mut out = std::io::stdout();
    writeln!(out, "serving on {}", server.url()).map_err(|e| e.to_string())?;
    out.flush().map_err(|e| e.to_string())?;
    loop {
        std::thread::park();
    }
}
