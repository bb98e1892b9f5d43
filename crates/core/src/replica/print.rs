//! A page's text fingerprint for telling whether two hosts serve the same page: a consistent
//! sample of the hashes of its word shingles, compared one way (is this page's text inside that
//! one's?) so that a mirror's additions (a banner, a timestamp) do not hide the page, and a
//! substitution (another version's number on every page) does not pass for one.
//!
//! Contract: prints are deterministic and stable across platforms (kept in files and compared
//! between runs); two prints of one text are equal; [`PagePrint::missing`] is the share of one
//! print's sampled shingles the other lacks, estimated on the sample both keep.

use serde::{Deserialize, Serialize};

use crate::canon;

/// Words a shingle spans: three, so that one changed word changes three shingles, and a page's
/// text rather than its vocabulary is compared.
const SHINGLE: usize = 3;

/// Most shingle hashes a print keeps: a page of any length costs at most 2 KB.
pub const MAX_KEPT: usize = 256;

/// Fewest sampled shingles a comparison stands on; below it, the page is too short to say.
pub const MIN_COMPARED: usize = 4;

/// A page's text fingerprint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PagePrint {
    /// Words of the page's visible text.
    pub words: u32,
    /// The shingle hashes kept are those divisible by this power of two (1: all of them).
    pub modulus: u64,
    /// The kept hashes of the text's word shingles, sorted, distinct.
    pub shingles: Vec<u64>,
    /// Charikar's simhash of the text's words (the simhash baseline).
    pub simhash: u64,
}

impl PagePrint {
    /// The print of a page's visible text: words are runs of letters and digits, lower case;
    /// digits are kept (a version number tells versions apart).
    pub fn of_text(text: &str) -> PagePrint {
        let words: Vec<String> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        let mut shingles: Vec<u64> = if words.len() < SHINGLE {
            if words.is_empty() {
                Vec::new()
            } else {
                vec![hash_words(&words)]
            }
        } else {
            words.windows(SHINGLE).map(hash_words).collect()
        };
        shingles.sort_unstable();
        shingles.dedup();
        let mut modulus = 1u64;
        while shingles.len() > MAX_KEPT {
            modulus *= 2;
            shingles.retain(|h| h % modulus == 0);
        }
        PagePrint {
            words: u32::try_from(words.len()).unwrap_or(u32::MAX),
            modulus,
            shingles,
            simhash: simhash(&words),
        }
    }

    /// The kept shingles at `modulus` (one at least as coarse as this print's).
    fn at(&self, modulus: u64) -> impl Iterator<Item = u64> + '_ {
        self.shingles
            .iter()
            .copied()
            .filter(move |h| h % modulus == 0)
    }

    /// The share of this print's shingles that `other` lacks, on the sample both keep, and how
    /// many shingles that share stands on; `None` when fewer than [`MIN_COMPARED`] are left.
    pub fn missing(&self, other: &PagePrint) -> Option<(f64, usize)> {
        let m = self.modulus.max(other.modulus);
        let theirs: Vec<u64> = other.at(m).collect();
        let (mut n, mut lacking) = (0usize, 0usize);
        for h in self.at(m) {
            n += 1;
            if theirs.binary_search(&h).is_err() {
                lacking += 1;
            }
        }
        (n >= MIN_COMPARED).then(|| (lacking as f64 / n as f64, n))
    }

    /// The Hamming distance of the two pages' simhashes.
    pub fn simhash_distance(&self, other: &PagePrint) -> u32 {
        (self.simhash ^ other.simhash).count_ones()
    }
}

/// How two prints of one path on two hosts compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Likeness {
    /// The same text: each inside the other.
    Same,
    /// The first's text is inside the second's, which adds some (a mirror's banner).
    FirstInside,
    /// The second's text is inside the first's.
    SecondInside,
    /// Another page (each lacks some of the other's text).
    Other,
    /// Too short to say.
    Unknown,
}

/// How `a` and `b` compare ([`Likeness`]). A mirror adds to a page (a banner, a timestamp)
/// and takes nothing away; another version or another page substitutes: so a page is inside
/// another only when not one of its sampled shingles is missing there, and two pages each
/// missing some of the other's are other pages, however few (one changed version number on a
/// long page is three shingles, and may not be sampled: such a page cannot tell; the host's
/// other pages do).
pub fn compare(a: &PagePrint, b: &PagePrint) -> Likeness {
    let (Some((ab, _)), Some((ba, _))) = (a.missing(b), b.missing(a)) else {
        // A short page: only the same words count as the same page.
        if a.words == b.words && a.shingles == b.shingles && a.modulus == b.modulus {
            return if a.words == 0 {
                Likeness::Unknown
            } else {
                Likeness::Same
            };
        }
        return Likeness::Unknown;
    };
    match (ab == 0.0, ba == 0.0) {
        (true, true) => Likeness::Same,
        (true, false) => Likeness::FirstInside,
        (false, true) => Likeness::SecondInside,
        (false, false) => Likeness::Other,
    }
}

/// The hash of a run of words (stable: [`canon::mix_bytes`]).
fn hash_words(words: &[String]) -> u64 {
    let mut h = 0x5851_f42d_4c95_7f2d;
    for w in words {
        h = canon::mix_bytes(h, w.as_bytes());
    }
    h
}

/// Charikar's simhash over the words (each word's hash votes on every bit).
fn simhash(words: &[String]) -> u64 {
    let mut votes = [0i32; 64];
    for w in words {
        let h = canon::mix_bytes(0x2545_f491_4f6c_dd1d, w.as_bytes());
        for (bit, v) in votes.iter_mut().enumerate() {
            *v += if h >> bit & 1 == 1 { 1 } else { -1 };
        }
    }
    votes
        .iter()
        .enumerate()
        .filter(|(_, v)| **v > 0)
        .fold(0u64, |s, (bit, _)| s | 1 << bit)
}
