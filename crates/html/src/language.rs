//! Language tags as pages declare them (`<html lang>`, `<meta http-equiv="content-language">`,
//! a `Content-Language` header): one normalised lower-case form, or none. What a review does
//! with them is the core's (`exemplar_core::review::language`).

/// The longest language tag kept (BCP 47's longest registered tags are shorter).
pub const MAX_TAG: usize = 35;

/// A declared language as a lower-case tag (`"pt_BR "` → `pt-br`): letters, digits and hyphens,
/// starting with a letter, at most [`MAX_TAG`] bytes; None for anything else (an empty
/// attribute, a template placeholder) — no language, rather than a wrong one.
pub fn tag(declared: &str) -> Option<String> {
    let t = declared.trim().replace('_', "-").to_ascii_lowercase();
    is_tag(&t).then_some(t)
}

/// The language an HTTP `Content-Language` header or a `<meta http-equiv="content-language">`
/// declares for a whole document, as HTML takes it: none when it names several (`de, en`: the
/// audience, not the page's language), else its first word as a [`tag`].
pub fn of_header(value: &str) -> Option<String> {
    if value.contains(',') {
        return None;
    }
    value.split_ascii_whitespace().next().and_then(tag)
}

/// Whether `text` is a language tag as [`tag`] writes them.
pub fn is_tag(text: &str) -> bool {
    text.len() <= MAX_TAG
        && text.starts_with(|c: char| c.is_ascii_lowercase())
        && !text.ends_with('-')
        && !text.contains("--")
        && text
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}
