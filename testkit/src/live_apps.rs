//! The real web applications of `eval/real/apps/` (Zyte's test shop, the quotes site's Flask
//! application), started on 127.0.0.1 by `eval/real/serve_app.py` with the Python of `.venv`
//! (`./build.sh setup` installs their packages there, from `tests/requirements.txt`).
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A live application on 127.0.0.1, stopped when dropped.
pub struct App {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
}

impl Drop for App {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `.venv/bin/python` of the repository.
fn python() -> PathBuf {
    crate::root().join(".venv/bin/python")
}

/// Starts `app` (`zyte-books` or `quotes-toscrape`) on a free port and waits until it answers.
///
/// # Errors
/// When `.venv` or the application's packages are missing (`./build.sh setup`), or it does not
/// answer within 30 s.
pub fn start(app: &str) -> Result<App, String> {
    let python = python();
    if !python.exists() {
        return Err(format!(
            "{} is missing: run ./build.sh setup (installs tests/requirements.txt into .venv)",
            python.display()
        ));
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| format!("no free port: {e}"))?
        .port();
    let child = Command::new(&python)
        .arg(crate::root().join("eval/real/serve_app.py"))
        .arg(app)
        .arg(port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("{app}: cannot start {}: {e}", python.display()))?;
    let mut running = App {
        child,
        base: format!("http://127.0.0.1:{port}"),
    };
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(30) {
        if let Ok(Some(status)) = running.child.try_wait() {
            return Err(format!(
                "{app}: serve_app.py exited ({status}): are its Python packages installed? \
                 (./build.sh setup)"
            ));
        }
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(running);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Err(format!("{app}: no answer on port {port} within 30 s"))
}

/// Logs in to the live quotes application (`base`) as a user would in a browser, and saves the
/// session to `cookies` as a browser's cookie export does (Python's `MozillaCookieJar`: the
/// Netscape format), for `--cookies`.
///
/// # Errors
/// When Python cannot run or the login fails.
pub fn log_in(base: &str, cookies: &std::path::Path) -> Result<(), String> {
    let script = r#"
import http.cookiejar, re, sys, urllib.parse, urllib.request
base, out = sys.argv[1], sys.argv[2]
jar = http.cookiejar.MozillaCookieJar(out)
opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
page = opener.open(base + "/login").read().decode()
token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
form = urllib.parse.urlencode({"csrf_token": token, "username": "ada", "password": "x"}).encode()
after = opener.open(base + "/login", form).read().decode()
assert "Logout" in after, "not logged in"
jar.save(ignore_discard=True, ignore_expires=True)
"#;
    let out = Command::new(python())
        .arg("-c")
        .arg(script)
        .arg(base)
        .arg(cookies)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", python().display()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "logging in to {base} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}
