//! The URL habits a replica host serves a site with ([`Variation`]), their names in the TOML's
//! plan (`www`, `add-prefix+banner`, ...) and which sites each applies to.
//!
//! Contract: a variation changes the host name (`Www`, `OtherTld`, `IpLiteral`: at most one of
//! them), the URL paths (`AddPrefix`, `DropPrefix`, `DropHtml`, `SessionPath`, `SessionQuery`:
//! not both prefixes), the pages' content (`Banner`) or which pages are served (`PartialSubtree`,
//! `PartialRandom`: at most one); `Combined` holds two or more atoms, never `Same` or another
//! `Combined`.

use std::fmt;

use super::sites::Site;

/// How a host serves a site, compared with the site's original host.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Variation {
    /// The original.
    Same,
    /// `www.` added to the host name, or removed from it.
    Www,
    /// Another top-level domain (`.org` → `.de`, `.net`, `.org.uk`).
    OtherTld,
    /// The host is its dotted address.
    IpLiteral,
    /// This path (`/mirror/python/`) before every original path.
    AddPrefix(String),
    /// The original paths' first segment removed (sites served under a prefix).
    DropPrefix,
    /// `.html` dropped from paths; `index.html` served at its directory.
    DropHtml,
    /// `;jsessionid=HEX` after every page's path.
    SessionPath,
    /// `?sid=HEX` after every page's path.
    SessionQuery,
    /// A mirror banner with a timestamp inserted after `<body>` on every page.
    Banner,
    /// Only the pages of one subtree (every file that is not a page is kept).
    PartialSubtree,
    /// A seeded random 10–30% of the pages (and the entry page).
    PartialRandom,
    /// Several of the above at once.
    Combined(Vec<Variation>),
}

/// The atoms' spec names, in the order `Combined` keeps them.
pub const ATOM_NAMES: &[&str] = &[
    "same",
    "www",
    "other-tld",
    "ip-literal",
    "add-prefix",
    "drop-prefix",
    "drop-html",
    "session-path",
    "session-query",
    "banner",
    "partial-subtree",
    "partial-random",
];

impl Variation {
    /// Its atoms: itself, or a `Combined`'s parts.
    pub fn atoms(&self) -> &[Variation] {
        match self {
            Variation::Combined(v) => v,
            one => std::slice::from_ref(one),
        }
    }

    /// Whether an atom satisfies `f`.
    pub fn any(&self, f: impl Fn(&Variation) -> bool) -> bool {
        self.atoms().iter().any(f)
    }

    /// Whether it has this atom (`AddPrefix` whatever its path).
    pub fn has(&self, atom: &Variation) -> bool {
        self.any(|a| std::mem::discriminant(a) == std::mem::discriminant(atom))
    }

    /// Its path prefix, when it adds one.
    pub fn added_prefix(&self) -> Option<&str> {
        self.atoms().iter().find_map(|a| match a {
            Variation::AddPrefix(p) => Some(p.as_str()),
            _ => None,
        })
    }

    /// Whether it serves only some of the pages.
    pub fn is_partial(&self) -> bool {
        self.has(&Variation::PartialSubtree) || self.has(&Variation::PartialRandom)
    }

    /// Whether its pages' URLs differ from the original's (so links are rewritten).
    pub fn changes_urls(&self) -> bool {
        self.any(|a| {
            matches!(
                a,
                Variation::AddPrefix(_)
                    | Variation::DropPrefix
                    | Variation::DropHtml
                    | Variation::SessionPath
                    | Variation::SessionQuery
                    | Variation::PartialSubtree
                    | Variation::PartialRandom
            )
        })
    }

    fn atom_name(&self) -> &'static str {
        match self {
            Variation::Same => ATOM_NAMES[0],
            Variation::Www => ATOM_NAMES[1],
            Variation::OtherTld => ATOM_NAMES[2],
            Variation::IpLiteral => ATOM_NAMES[3],
            Variation::AddPrefix(_) => ATOM_NAMES[4],
            Variation::DropPrefix => ATOM_NAMES[5],
            Variation::DropHtml => ATOM_NAMES[6],
            Variation::SessionPath => ATOM_NAMES[7],
            Variation::SessionQuery => ATOM_NAMES[8],
            Variation::Banner => ATOM_NAMES[9],
            Variation::PartialSubtree => ATOM_NAMES[10],
            Variation::PartialRandom => ATOM_NAMES[11],
            Variation::Combined(_) => "combined",
        }
    }

    /// Its spec name: `www`, `add-prefix+banner`.
    pub fn name(&self) -> String {
        self.atoms()
            .iter()
            .map(Variation::atom_name)
            .collect::<Vec<_>>()
            .join("+")
    }

    /// Parses a spec (`www+drop-html`); `prefix` gives `add-prefix` its path.
    ///
    /// # Errors
    /// An unknown atom, an atom twice, `same` in a combination, or atoms that exclude each other.
    pub fn parse(spec: &str, prefix: impl FnOnce() -> String) -> Result<Variation, String> {
        let mut prefix = Some(prefix);
        let mut atoms = Vec::new();
        for name in spec.split('+') {
            let atom = match name.trim() {
                "same" => Variation::Same,
                "www" => Variation::Www,
                "other-tld" => Variation::OtherTld,
                "ip-literal" => Variation::IpLiteral,
                "add-prefix" => match prefix.take() {
                    Some(f) => Variation::AddPrefix(f()),
                    None => return Err(format!("{spec:?}: add-prefix twice")),
                },
                "drop-prefix" => Variation::DropPrefix,
                "drop-html" => Variation::DropHtml,
                "session-path" => Variation::SessionPath,
                "session-query" => Variation::SessionQuery,
                "banner" => Variation::Banner,
                "partial-subtree" => Variation::PartialSubtree,
                "partial-random" => Variation::PartialRandom,
                other => return Err(format!("{spec:?}: unknown variation {other:?}")),
            };
            if atoms
                .iter()
                .any(|a: &Variation| a.atom_name() == atom.atom_name())
            {
                return Err(format!("{spec:?}: {} twice", atom.atom_name()));
            }
            atoms.push(atom);
        }
        atoms.sort_by_key(|a| ATOM_NAMES.iter().position(|n| *n == a.atom_name()));
        let v = match atoms.len() {
            1 => atoms.remove(0),
            _ => Variation::Combined(atoms),
        };
        let count = |names: &[&str]| {
            v.atoms()
                .iter()
                .filter(|a| names.contains(&a.atom_name()))
                .count()
        };
        if v.atoms().len() > 1 && v.has(&Variation::Same) {
            return Err(format!("{spec:?}: same cannot be combined"));
        }
        if count(&["www", "other-tld", "ip-literal"]) > 1 {
            return Err(format!("{spec:?}: two host names"));
        }
        if count(&["add-prefix", "drop-prefix"]) > 1 {
            return Err(format!("{spec:?}: a prefix both added and dropped"));
        }
        if count(&["partial-subtree", "partial-random"]) > 1 {
            return Err(format!("{spec:?}: two partial mirrors"));
        }
        Ok(v)
    }

    /// Whether the site can be served so: `drop-prefix` needs a prefix to drop (the original is
    /// not at the host's root), `drop-html` pages named `.html` (not a directory-style site), and
    /// `partial-subtree` a subdirectory holding part of the pages (not a flat site).
    pub fn applies_to(&self, site: &Site) -> bool {
        self.atoms().iter().all(|a| match a {
            Variation::DropPrefix => site.prefix != "/",
            Variation::DropHtml => !site.dir_index,
            Variation::PartialSubtree => !site.flat,
            _ => true,
        })
    }
}

impl fmt::Display for Variation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_to_ordered_atoms() {
        let v = Variation::parse("drop-html+www", || unreachable!()).unwrap();
        assert_eq!(
            v,
            Variation::Combined(vec![Variation::Www, Variation::DropHtml])
        );
        assert_eq!(v.name(), "www+drop-html");
        let p = Variation::parse("add-prefix", || "/mirror/x/".into()).unwrap();
        assert_eq!(p.added_prefix(), Some("/mirror/x/"));
        assert!(p.changes_urls() && !p.is_partial());
        assert!(!Variation::Banner.changes_urls());
        for bad in [
            "www+other-tld",
            "add-prefix+drop-prefix",
            "www+www",
            "same+www",
            "partial-random+partial-subtree",
            "mirror",
        ] {
            assert!(Variation::parse(bad, String::new).is_err(), "{bad}");
        }
    }
}
