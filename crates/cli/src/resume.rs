//! `exemplar learn --state FILE` and `exemplar crawl --state FILE`: a run saved as it goes —
//! every few seconds and on Ctrl-C — and resumed by running the same command again. A mapping's
//! state is the mapper's snapshot; a crawl's also holds, for each export file, its size (and the
//! WARC writer's position) at the save: on resume each export is cut back to that size, so every
//! target is written exactly once however the crawl was stopped. A run that ends removes its
//! state file.
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use exemplar_core::crawler::Snapshot;
use exemplar_export::{self as export, PageRecord, WarcPosition, WarcWriter};
use serde::{Deserialize, Serialize};

/// The version of the state files.
const VERSION: u32 = 1;

/// Set by the SIGINT handler: save and stop (within a fraction of a second, without waiting
/// for requests in flight: the state asks for them again).
pub static STOP: AtomicBool = AtomicBool::new(false);

#[cfg(unix)]
extern "C" fn on_sigint(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
    // A second Ctrl-C ends the process at once.
    // SAFETY: signal() is async-signal-safe; SIG_DFL is a valid disposition.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
    }
}

/// From now on Ctrl-C asks the crawl to save and stop ([`STOP`]) instead of killing it.
pub fn catch_ctrl_c() {
    #[cfg(unix)]
    // SAFETY: the handler only stores to an atomic and resets the disposition.
    unsafe {
        libc::signal(
            libc::SIGINT,
            on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
    }
}

/// The checkpoints of a run with `--state` (None without): saves through `save` every
/// `every`, and Ctrl-C now saves and stops the run instead of killing the process.
pub fn checkpoints<'a, S>(
    state: Option<&str>,
    every: std::time::Duration,
    save: &'a mut dyn FnMut(S) -> Result<(), String>,
) -> Option<exemplar_native::run::Checkpoints<'a, S>> {
    state?;
    catch_ctrl_c();
    Some(exemplar_native::run::Checkpoints {
        every,
        save,
        stop: &STOP,
    })
}

/// After a run with `--state`: an interrupted one says where it is saved and ends the process
/// with status 130 (Ctrl-C's); a finished one removes its state file.
pub fn conclude(
    state: Option<&str>,
    interrupted: bool,
    run: &str,
    so_far: &str,
) -> Result<(), String> {
    let Some(path) = state else {
        return Ok(());
    };
    if interrupted {
        eprintln!(
            "interrupted: the {run} is saved in {path} ({so_far} so far); run the same command to go on"
        );
        std::process::exit(130);
    }
    remove(path)
}

/// A state file: what a run saved (`T`), tagged with what kind of run it was.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StateFile<T> {
    format: String,
    version: u32,
    /// The saved run (not flattened into the file's object: serde's flattening reads maps
    /// keyed by numbers, which snapshots hold, as strings).
    pub run: T,
}

/// A saved crawl.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CrawlState {
    /// The crawler when saved.
    pub crawler: Snapshot,
    /// The export files when saved.
    pub exports: Vec<ExportMark>,
    /// `--since`: the earlier export as read at the start, and what the crawl found against it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<super::since::Since>,
}

/// A saved mapping (`learn --state`).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LearnState {
    /// `--entry` as given.
    pub entry: String,
    /// `--example` as given.
    pub example: String,
    /// The mapper when saved.
    pub mapper: exemplar_core::mapper::Snapshot,
}

/// One export file at a save.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportMark {
    /// `jsonl`, `csv` or `warc`.
    pub kind: String,
    /// The path as given.
    pub path: String,
    /// Its size.
    pub bytes: u64,
    /// The WARC writer's position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warc: Option<WarcPosition>,
}

impl ExportMark {
    /// Flushes `w` and marks the size it reached.
    fn flushed(
        kind: &str,
        path: &str,
        w: &mut BufWriter<File>,
        warc: Option<WarcPosition>,
    ) -> Result<ExportMark, String> {
        let err = |e: std::io::Error| format!("{path}: {e}");
        w.flush().map_err(err)?;
        let bytes = w.get_ref().metadata().map_err(err)?.len();
        Ok(ExportMark {
            kind: kind.into(),
            path: path.into(),
            bytes,
            warc,
        })
    }
}

/// The kind of run a state holds, named in its file.
pub trait Saved: Serialize + serde::de::DeserializeOwned {
    /// The `format` field.
    const FORMAT: &'static str;
}

impl Saved for CrawlState {
    const FORMAT: &'static str = "exemplar-crawl-state";
}

impl Saved for LearnState {
    const FORMAT: &'static str = "exemplar-learn-state";
}

/// The state saved at `path`, or None when there is none.
pub fn load<T: Saved>(path: &str) -> Result<Option<T>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{path}: {e}")),
    };
    #[derive(Deserialize)]
    struct Head {
        format: String,
        version: u32,
    }
    let head: Head = serde_json::from_str(&text)
        .map_err(|e| format!("{path}: not a saved run ({e}); remove it to start over"))?;
    if head.format != T::FORMAT || head.version != VERSION {
        return Err(format!(
            "{path}: not a {} file of version {VERSION}; remove it to start over",
            T::FORMAT
        ));
    }
    let file: StateFile<T> = serde_json::from_str(&text).map_err(|e| {
        format!(
            "{path}: a damaged {} file ({e}); remove it to start over",
            T::FORMAT
        )
    })?;
    Ok(Some(file.run))
}

/// Saves to `path` atomically (a temporary file renamed over it): a crash mid-save leaves the
/// previous save.
pub fn save<T: Saved>(path: &str, state: T) -> Result<(), String> {
    let file = StateFile {
        format: T::FORMAT.to_string(),
        version: VERSION,
        run: state,
    };
    let tmp = format!("{path}.tmp");
    let text = serde_json::to_string(&file).map_err(|e| format!("{path}: {e}"))?;
    let write = || -> std::io::Result<()> {
        let mut f = File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_data()?;
        std::fs::rename(&tmp, path)
    };
    write().map_err(|e| format!("{path}: {e}"))
}

/// Removes the state of a run that ended (a missing file is fine).
pub fn remove(path: &str) -> Result<(), String> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(format!("{path}: {e}")),
        _ => Ok(()),
    }
}

/// The export files of a crawl, written a target at a time.
pub struct Exports {
    jsonl: Option<(String, BufWriter<File>)>,
    html: bool,
    csv: Option<(String, BufWriter<File>)>,
    warc: Option<(String, WarcWriter<BufWriter<File>>)>,
    /// The pattern's data fields, a CSV column each.
    fields: Vec<String>,
}

/// Where the user asked exports to go.
pub struct ExportPaths<'a> {
    /// `--jsonl`.
    pub jsonl: Option<&'a str>,
    /// `--html`: JSON Lines records carry the page.
    pub html: bool,
    /// `--csv`.
    pub csv: Option<&'a str>,
    /// `--warc`.
    pub warc: Option<&'a str>,
    /// The pattern's data fields' names: CSV columns.
    pub fields: Vec<String>,
}

/// Creates (truncates) a file, making its directory first.
pub(super) fn create(path: &str) -> Result<File, String> {
    if let Some(dir) = Path::new(path)
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
    {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    File::create(path).map_err(|e| format!("{path}: {e}"))
}

/// Opens a file written before and cuts it back to `bytes`.
fn reopen(path: &str, bytes: u64) -> Result<File, String> {
    let err = |e: std::io::Error| format!("{path}: {e}");
    let mut f = OpenOptions::new().write(true).open(path).map_err(err)?;
    let len = f.metadata().map_err(err)?.len();
    if len < bytes {
        return Err(format!(
            "{path} is shorter ({len} bytes) than when the crawl was saved ({bytes}): it was changed; remove the state file to start over"
        ));
    }
    f.set_len(bytes).map_err(err)?;
    f.seek(SeekFrom::End(0)).map_err(err)?;
    Ok(f)
}

impl Exports {
    /// New export files.
    pub fn create(paths: &ExportPaths) -> Result<Exports, String> {
        let mut csv = None;
        if let Some(p) = paths.csv {
            let mut w = BufWriter::new(create(p)?);
            export::write_csv_header_fields(&mut w, &paths.fields)
                .map_err(|e| format!("{p}: {e}"))?;
            csv = Some((p.to_string(), w));
        }
        let warc = match paths.warc {
            Some(p) => Some((
                p.to_string(),
                WarcWriter::new(
                    BufWriter::new(create(p)?),
                    "exemplar crawl",
                    exemplar_native::http::now_ms(),
                )
                .map_err(|e| format!("{p}: {e}"))?,
            )),
            None => None,
        };
        Ok(Exports {
            jsonl: match paths.jsonl {
                Some(p) => Some((p.to_string(), BufWriter::new(create(p)?))),
                None => None,
            },
            html: paths.html,
            csv,
            warc,
            fields: paths.fields.clone(),
        })
    }

    /// The export files of a saved crawl, cut back to their sizes at the save. The command
    /// must name the same files.
    pub fn resume(paths: &ExportPaths, marks: &[ExportMark]) -> Result<Exports, String> {
        let given: Vec<(&str, &str)> = [
            ("jsonl", paths.jsonl),
            ("csv", paths.csv),
            ("warc", paths.warc),
        ]
        .into_iter()
        .filter_map(|(k, p)| p.map(|p| (k, p)))
        .collect();
        let saved: Vec<(&str, &str)> = marks
            .iter()
            .map(|m| (m.kind.as_str(), m.path.as_str()))
            .collect();
        if given != saved {
            let list = |v: &[(&str, &str)]| {
                if v.is_empty() {
                    "none".to_string()
                } else {
                    v.iter()
                        .map(|(k, p)| format!("--{k} {p}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                }
            };
            return Err(format!(
                "the saved crawl exports to {}, this command to {}: give the same files to resume, or remove the state file to start over",
                list(&saved),
                list(&given)
            ));
        }
        let mut out = Exports {
            jsonl: None,
            html: paths.html,
            csv: None,
            warc: None,
            fields: paths.fields.clone(),
        };
        for m in marks {
            let f = BufWriter::new(reopen(&m.path, m.bytes)?);
            match m.kind.as_str() {
                "jsonl" => out.jsonl = Some((m.path.clone(), f)),
                "csv" => out.csv = Some((m.path.clone(), f)),
                "warc" => {
                    let pos = m
                        .warc
                        .as_ref()
                        .ok_or_else(|| format!("{}: no WARC position saved", m.path))?;
                    let w = WarcWriter::resume(f, pos).map_err(|e| format!("{}: {e}", m.path))?;
                    out.warc = Some((m.path.clone(), w));
                }
                other => return Err(format!("unknown export kind {other:?} in the state")),
            }
        }
        Ok(out)
    }

    /// Writes one target page to every export.
    pub fn write(&mut self, mut rec: PageRecord) -> Result<(), String> {
        if let Some((p, w)) = self.jsonl.as_mut() {
            export::write_jsonl(&mut *w, std::slice::from_ref(&rec), self.html)
                .map_err(|e| format!("{p}: {e}"))?;
        }
        if let Some((p, w)) = self.warc.as_mut() {
            w.write_response(&rec).map_err(|e| format!("{p}: {e}"))?;
        }
        if let Some((p, w)) = self.csv.as_mut() {
            rec.body = None;
            export::write_csv_rows_fields(&mut *w, std::slice::from_ref(&rec), &self.fields)
                .map_err(|e| format!("{p}: {e}"))?;
        }
        Ok(())
    }

    /// Flushes every file and says where each stands (for a save).
    pub fn marks(&mut self) -> Result<Vec<ExportMark>, String> {
        let mut out = Vec::new();
        if let Some((p, w)) = self.jsonl.as_mut() {
            out.push(ExportMark::flushed("jsonl", p, w, None)?);
        }
        if let Some((p, w)) = self.csv.as_mut() {
            out.push(ExportMark::flushed("csv", p, w, None)?);
        }
        if let Some((p, w)) = self.warc.as_mut() {
            let position = w.position();
            out.push(ExportMark::flushed("warc", p, w.get_mut(), Some(position))?);
        }
        // The order `resume` compares with: jsonl, csv, warc.
        Ok(out)
    }

    /// Flushes and closes every file.
    pub fn finish(mut self) -> Result<(), String> {
        self.marks().map(|_| ())
    }
}
