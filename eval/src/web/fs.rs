//! The local web's file system ([`UnionFs`]): installed paths (`/usr/share/doc/…`) read from a
//! tree of unpacked packages first, then from `/`, with Debian's symbolic links followed across
//! the two as a system holding both would follow them.
//!
//! Contract: paths are absolute, `/`-separated installed paths; [`UnionFs::resolve`] is lexical
//! (`..` drops a component) except that a link met on the way is replaced by its target (an
//! absolute target taken from the root of the union, a relative one from the link's
//! directory), at most 20 links deep; a path that does not exist resolves to itself.
use std::path::{Path, PathBuf};

/// Links followed in one resolution at most (a loop stops there).
const MAX_LINKS: usize = 20;

/// Unpacked packages over `/`.
#[derive(Clone, Debug)]
pub struct UnionFs {
    layers: Vec<PathBuf>,
}

impl UnionFs {
    /// The tree `unpacked` (as `dpkg-deb -x` writes packages into it) over the system's `/`.
    pub fn new(unpacked: impl Into<PathBuf>) -> UnionFs {
        UnionFs {
            layers: vec![unpacked.into(), PathBuf::from("/")],
        }
    }

    /// Where an installed path is on this machine: in the first layer that has it (a link
    /// counts as having it).
    pub fn physical(&self, path: &str) -> Option<PathBuf> {
        let rel = path.trim_start_matches('/');
        self.layers
            .iter()
            .map(|l| l.join(rel))
            .find(|p| p.symlink_metadata().is_ok())
    }

    /// The target of a link at an installed path (None: not a link, or absent).
    fn link(&self, path: &str) -> Option<String> {
        let p = self.physical(path)?;
        let meta = p.symlink_metadata().ok()?;
        if !meta.file_type().is_symlink() {
            return None;
        }
        std::fs::read_link(&p)
            .ok()
            .map(|t| t.to_string_lossy().into_owned())
    }

    /// The installed path with `.`, `..` and every link on the way resolved.
    pub fn resolve(&self, path: &str) -> String {
        let mut pending: Vec<String> = components(path).rev().map(str::to_string).collect();
        let mut cur: Vec<String> = Vec::new();
        let mut links = 0;
        while let Some(part) = pending.pop() {
            match part.as_str() {
                "" | "." => continue,
                ".." => {
                    cur.pop();
                    continue;
                }
                _ => {}
            }
            cur.push(part);
            if links >= MAX_LINKS {
                continue;
            }
            let here = format!("/{}", cur.join("/"));
            if let Some(target) = self.link(&here) {
                links += 1;
                cur.pop();
                if target.starts_with('/') {
                    cur.clear();
                }
                pending.extend(components(&target).rev().map(str::to_string));
            }
        }
        format!("/{}", cur.join("/"))
    }

    /// A file's bytes at an installed path (links followed).
    pub fn read(&self, path: &str) -> Option<Vec<u8>> {
        let p = self.physical(&self.resolve(path))?;
        if p.is_file() {
            std::fs::read(p).ok()
        } else {
            None
        }
    }

    /// Whether an installed path is a directory (links followed).
    pub fn is_dir(&self, path: &str) -> bool {
        self.physical(&self.resolve(path))
            .is_some_and(|p| p.is_dir())
    }

    /// The HTML pages under an installed directory (links resolved first), as paths relative to
    /// it, sorted; a linked directory inside is not entered (it is another package's tree).
    pub fn pages(&self, dir: &str) -> Vec<String> {
        let Some(top) = self.physical(&self.resolve(dir)) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        walk(&top, &top, &mut out);
        out.sort();
        out
    }
}

fn components(path: &str) -> impl DoubleEndedIterator<Item = &str> {
    path.split('/').filter(|c| !c.is_empty())
}

fn walk(top: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let Ok(ft) = e.file_type() else { continue };
        let p = e.path();
        if ft.is_dir() {
            walk(top, &p, out);
        } else if let Some(rel) = (ft.is_file() && is_page(&p))
            .then(|| p.strip_prefix(top).ok())
            .flatten()
        {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// Whether a file name is an HTML page's.
pub fn is_page(path: &Path) -> bool {
    matches!(
        path.extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref(),
        Some("html" | "htm" | "xhtml")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_resolve_across_the_layers() {
        let top = std::env::temp_dir().join(format!("exemplar-unionfs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&top);
        let doc = top.join("usr/share/doc");
        std::fs::create_dir_all(doc.join("a-doc/html")).unwrap();
        std::fs::create_dir_all(doc.join("ghc-doc/html/libraries/text-1.2")).unwrap();
        std::fs::write(
            doc.join("ghc-doc/html/libraries/text-1.2/Data-Text.html"),
            "<p>t",
        )
        .unwrap();
        // An absolute link (into the union's root) and a relative one.
        std::os::unix::fs::symlink(
            "/usr/share/doc/ghc-doc/html/libraries/text-1.2",
            doc.join("text-doc"),
        )
        .unwrap();
        std::os::unix::fs::symlink("../../text-doc", doc.join("a-doc/html/text")).unwrap();
        std::os::unix::fs::symlink("/etc/hostname-not-here", doc.join("a-doc/html/gone")).unwrap();
        let fs = UnionFs::new(&top);
        let want = "/usr/share/doc/ghc-doc/html/libraries/text-1.2/Data-Text.html";
        assert_eq!(
            fs.resolve("/usr/share/doc/a-doc/html/text/Data-Text.html"),
            want
        );
        assert_eq!(
            fs.resolve("/usr/share/doc/a-doc/html/../../text-doc/./Data-Text.html"),
            want
        );
        assert_eq!(
            fs.read("/usr/share/doc/a-doc/html/text/Data-Text.html")
                .unwrap(),
            b"<p>t"
        );
        assert_eq!(
            fs.resolve("/usr/share/doc/a-doc/html/gone/x"),
            "/etc/hostname-not-here/x"
        );
        assert!(fs.is_dir("/usr/share/doc/text-doc"));
        // Falls through to the system's `/`.
        assert!(fs.is_dir("/usr/share"));
        assert_eq!(
            fs.pages("/usr/share/doc/text-doc"),
            vec!["Data-Text.html".to_string()]
        );
        // A loop ends.
        std::os::unix::fs::symlink("loop2", doc.join("loop1")).unwrap();
        std::os::unix::fs::symlink("loop1", doc.join("loop2")).unwrap();
        let _ = fs.resolve("/usr/share/doc/loop1/x");
        std::fs::remove_dir_all(&top).unwrap();
    }
}
