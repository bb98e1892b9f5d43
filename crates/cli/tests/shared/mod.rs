//! What the command line's test files share: the `exemplar` binary run as a process, and a
//! scratch directory of their own. Each file under `tests/` is a crate of its own and takes this
//! in with `mod shared;` (`CARGO_BIN_EXE_exemplar` exists only in this package's tests, so the
//! workspace's testkit cannot hold it); a file uses what it needs.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// `exemplar ARGS…` run to its end: its status and output, whatever they are.
pub fn exemplar(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_exemplar"))
        .args(args)
        .output()
        .expect("run exemplar")
}

/// An empty directory `exemplar-AREA-NAME-PID` under the system's temporary directory (one left
/// by an earlier run is emptied).
pub fn tempdir(area: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("exemplar-{area}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}
