//! Wording the engine's messages share.

/// `n` and the noun, plural unless `n` is 1 (`count(1, "page")` is "1 page").
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
