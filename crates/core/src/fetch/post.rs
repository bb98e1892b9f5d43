//! POST submissions in the machines' URL keys (`action#exemplar-post=body`).

/// Marks a POST submission inside a machine's URL key: `action#exemplar-post=body`. The
/// machines key pages by URL; a POST is identified by its action and body, and a fragment is
/// never sent, so the key stays a valid URL of the action.
pub const POST_MARK: &str = "#exemplar-post=";

/// `application/x-www-form-urlencoded`, the default form encoding (of the POST requests a
/// form submission makes).
pub const URLENCODED: &str = "application/x-www-form-urlencoded";

/// The key of a POST submission of `body` to `action` (see [`POST_MARK`]).
pub fn post_key(action: &str, body: &str) -> String {
    let action = action.split('#').next().unwrap_or(action);
    format!("{action}{POST_MARK}{body}")
}

/// The canonical form of a URL or POST key: the URL (or the POST's action) canonicalised, the
/// body kept.
pub fn canonical_key(key: &str) -> Option<String> {
    let (url, body) = split_post_key(key);
    let url = crate::canon::canonicalize(url)?;
    Some(match body {
        Some(b) => post_key(&url, b),
        None => url,
    })
}

/// The key a response to `key` stands for, given its canonical final URL: a POST answered at its
/// own action (no redirect) is the POST's key, not the action's page.
pub fn same_post(key: &str, final_c: String) -> String {
    match split_post_key(key) {
        (action, Some(_)) if action == final_c => key.to_string(),
        _ => final_c,
    }
}

/// The URL to request and the POST body of a key ([`post_key`]); GET keys have no body.
pub fn split_post_key(key: &str) -> (&str, Option<&str>) {
    match key.split_once(POST_MARK) {
        Some((url, body)) => (url, Some(body)),
        None => (key, None),
    }
}
