//! Forms and the hidden web (design §6): form triage, submissions, and query generation.
//!
//! Owns what the core decides about a form, sans-IO: from a parsed [`Page`] a [`FormSpec`] per
//! form (fields, method, action, encoding, whether it is a search form, and why it is skipped
//! when it is a login or script-only form — thesis `004` §4.2); the request a set of field
//! values makes ([`FormSpec::submission`], `application/x-www-form-urlencoded` as browsers
//! build it); and, in [`query`], the policies that choose what to type into a form (select
//! enumeration, the thesis's least frequent terms, generic-frequency, random, and the adaptive
//! policy of paper `001`).
//!
//! Does not own parsing forms out of HTML (that is `dom::page`), fetching, analysing responses,
//! or putting forms into the mapping and the navigation pattern.
//!
//! # Example
//! ```
//! use exemplar_html::Page;
//! use exemplar_core::forms::{self, Method};
//! let page = Page::from_html(
//!     "<form action='/find.cgi'><select name=select><option>all<option>title</select>\
//!      <input name=for><input type=submit value=Go></form>",
//!     "http://example.com/",
//! )?;
//! let specs = forms::triage(&page);
//! assert!(specs[0].is_valid() && specs[0].search);
//! let sub = specs[0].submission(&[("select", "title"), ("for", "harry potter")])?;
//! assert_eq!(sub.method, Method::Get);
//! assert_eq!(sub.url, "http://example.com/find.cgi?select=title&for=harry+potter");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod query;

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::dom::{Control, ControlKind, Form, Page};

pub use crate::fetch::URLENCODED;

/// How a form is submitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Method {
    /// The values go in the action URL's query string.
    Get,
    /// The values go in the request body.
    Post,
}

/// One field of a form, in document order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Field {
    /// The control's type.
    pub kind: ControlKind,
    /// The `name` attribute ("" when absent: the field is not submitted).
    pub name: String,
    /// The `id` attribute.
    pub id: String,
    /// The label text (`<label for>`, enclosing label, nearest preceding text, placeholder…).
    pub label: String,
    /// The default value (for a select the selected or first option; for a submit its value).
    pub value: String,
    /// A select's option values.
    pub options: Vec<String>,
    /// Checked (radio, checkbox) or an explicitly selected option (select) initially.
    pub checked: bool,
    /// A `<select multiple>`: sends each of `selected` by default (nothing when empty).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub multiple: bool,
    /// A select's options marked `selected`, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub selected: Vec<String>,
    /// `disabled`: never submitted.
    #[serde(default)]
    pub disabled: bool,
}

impl Field {
    fn from_control(c: &Control) -> Field {
        Field {
            kind: c.kind,
            name: c.name.clone(),
            id: c.id.clone(),
            label: c.label.clone(),
            value: c.value.clone(),
            options: c.options.clone(),
            checked: c.checked,
            multiple: c.multiple,
            selected: c.selected.clone(),
            disabled: c.disabled,
        }
    }

    /// Whether a user types this field's value (text, textarea, and the typed input kinds).
    pub fn is_free_text(&self) -> bool {
        matches!(
            self.kind,
            ControlKind::Text
                | ControlKind::TextArea
                | ControlKind::Email
                | ControlKind::Number
                | ControlKind::Other
        )
    }

    /// Whether the field chooses among listed values (select, radio, checkbox).
    pub fn is_choice(&self) -> bool {
        matches!(
            self.kind,
            ControlKind::Select | ControlKind::Radio | ControlKind::Checkbox
        )
    }
}

/// Why a form is skipped (thesis `004` §4.2: forms needing a password, an e-mail, a user id, or
/// JavaScript are not filled).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum SkipReason {
    /// A password field (`type=password`, or a field named or labelled like one).
    Password {
        /// The field's name (or id, or label when it has neither).
        field: String,
    },
    /// An e-mail field (`type=email`, or named or labelled e-mail).
    Email {
        /// The field's name (or id, or label).
        field: String,
    },
    /// A user-id field (named or labelled user, login, usuario…).
    UserId {
        /// The field's name (or id, or label).
        field: String,
    },
    /// The form submits only through JavaScript: a scripted handler with no usable action, or
    /// with no submit control.
    ScriptOnly,
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::Password { field } => write!(f, "password field `{field}`"),
            SkipReason::Email { field } => write!(f, "e-mail field `{field}`"),
            SkipReason::UserId { field } => write!(f, "user-id field `{field}`"),
            SkipReason::ScriptOnly => write!(f, "submits only through JavaScript"),
        }
    }
}

/// What the core knows of one form of a page. See the module docs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FormSpec {
    /// Index of the form in [`Page::forms`].
    pub index: usize,
    /// Absolute action URL.
    pub action: String,
    /// The form has no `action` (or an empty one): it submits to the page it is on.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_action: bool,
    /// GET or POST.
    pub method: Method,
    /// The `enctype` attribute (POST submissions are built url-encoded whatever it says).
    pub enctype: String,
    /// The fields in document order (buttons that submit nothing are left out).
    pub fields: Vec<Field>,
    /// Looks like a search form: a free-text field, a way to submit, and a search word.
    pub search: bool,
    /// Why the form must not be filled; `None` for a usable form.
    pub skip: Option<SkipReason>,
}

/// Why a submission could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubmitError(String);

impl std::fmt::Display for SubmitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot submit form: {}", self.0)
    }
}

impl std::error::Error for SubmitError {}

/// The request a filled form makes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Submission {
    /// GET or POST.
    pub method: Method,
    /// The request URL (for GET it carries the encoded values).
    pub url: String,
    /// For POST, the encoded body.
    pub body: Option<String>,
    /// For POST, the body's content type ([`URLENCODED`]).
    pub content_type: Option<String>,
}

impl FormSpec {
    /// Whether the form may be filled (no [`SkipReason`]).
    pub fn is_valid(&self) -> bool {
        self.skip.is_none()
    }

    /// The field a query generator fills with terms: the first named text input (`type=text`,
    /// `search` or unknown). Not a textarea — it holds prose, messages or code (Datasette's SQL
    /// box answered every word with HTTP 400) — nor a number, e-mail, URL or phone field.
    pub fn query_field(&self) -> Option<&Field> {
        self.fields
            .iter()
            .find(|f| f.kind == ControlKind::Text && !f.name.is_empty())
    }

    /// The encoded `name=value&…` pairs of a submission with `values`, in the fields' document
    /// order.
    ///
    /// `values` are `(name, value)` pairs; a name may repeat (checkbox groups). A field whose
    /// name appears in `values` sends the given values (once, at the first field of that name);
    /// other fields keep their defaults: text-like and hidden fields their `value`, a select its
    /// selected (or first) option — a multiple select each selected option, or nothing —, checked
    /// radios and checkboxes their value (`on` when empty). Of the submit controls, one named in
    /// `values` is sent, else the first named one, as a browser does for its default button; an
    /// image button sends the coordinates of a click at its corner (`name.x=0&name.y=0`), never
    /// a value. Buttons and file inputs send nothing.
    pub fn encode(&self, values: &[(&str, &str)]) -> String {
        let mut out = String::new();
        for (name, value) in self.pairs(values) {
            if !out.is_empty() {
                out.push('&');
            }
            urlencode_into(&mut out, &name);
            out.push('=');
            urlencode_into(&mut out, &value);
        }
        out
    }

    /// The `(name, value)` pairs a submission with `values` sends, in order (see
    /// [`FormSpec::encode`], which encodes them).
    pub fn pairs(&self, values: &[(&str, &str)]) -> Vec<(String, String)> {
        let given: HashSet<&str> = values.iter().map(|(n, _)| *n).collect();
        let submit_given = self
            .fields
            .iter()
            .any(|f| f.kind.is_submit() && given.contains(f.name.as_str()));
        let mut done: HashSet<&str> = HashSet::new();
        let mut submit_sent = false;
        let mut out: Vec<(String, String)> = Vec::new();
        let push = |out: &mut Vec<(String, String)>, name: &str, value: &str| {
            out.push((name.to_string(), value.to_string()));
        };
        for f in &self.fields {
            if f.disabled || matches!(f.kind, ControlKind::Button | ControlKind::File) {
                continue;
            }
            if f.kind.is_submit() {
                // The submitter: the button given, or the form's default button (the first
                // submit button in tree order, named or not), as a browser's implicit submission.
                if submit_sent || (submit_given && !given.contains(f.name.as_str())) {
                    continue;
                }
                submit_sent = true;
                if f.kind == ControlKind::Image {
                    // Click coordinates: `name.x`/`name.y`, or bare `x`/`y` for an unnamed one.
                    let (x, y) = if f.name.is_empty() {
                        ("x".to_string(), "y".to_string())
                    } else {
                        (format!("{}.x", f.name), format!("{}.y", f.name))
                    };
                    push(&mut out, &x, "0");
                    push(&mut out, &y, "0");
                    continue;
                }
            }
            if f.name.is_empty() {
                continue;
            }
            if given.contains(f.name.as_str()) {
                if done.insert(f.name.as_str()) {
                    for (_, v) in values.iter().filter(|(n, _)| *n == f.name) {
                        push(&mut out, &f.name, v);
                    }
                }
                continue;
            }
            match f.kind {
                ControlKind::Radio | ControlKind::Checkbox => {
                    if f.checked {
                        let v = if f.value.is_empty() { "on" } else { &f.value };
                        push(&mut out, &f.name, v);
                    }
                }
                ControlKind::Select if f.multiple => {
                    for v in &f.selected {
                        push(&mut out, &f.name, v);
                    }
                }
                ControlKind::Select => {
                    if !f.options.is_empty() {
                        push(&mut out, &f.name, &f.value);
                    }
                }
                _ => push(&mut out, &f.name, &f.value),
            }
        }
        out
    }

    /// The request the form makes with `values` (see [`FormSpec::encode`]): for GET the action
    /// URL with its query replaced by the encoded values (as browsers do), for POST the action
    /// URL and the encoded body. Values are encoded as UTF-8.
    ///
    /// # Errors
    /// When the action is not an absolute `http`/`https` URL.
    pub fn submission(&self, values: &[(&str, &str)]) -> Result<Submission, SubmitError> {
        let mut url = url::Url::parse(&self.action)
            .map_err(|e| SubmitError(format!("action `{}`: {e}", self.action)))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(SubmitError(format!(
                "action `{}` is not http(s)",
                self.action
            )));
        }
        let encoded = self.encode(values);
        Ok(match self.method {
            Method::Get => {
                url.set_query(Some(&encoded));
                Submission {
                    method: Method::Get,
                    url: url.to_string(),
                    body: None,
                    content_type: None,
                }
            }
            Method::Post => Submission {
                method: Method::Post,
                url: url.to_string(),
                body: Some(encoded),
                content_type: Some(URLENCODED.to_string()),
            },
        })
    }
}

/// Appends `s` encoded as `application/x-www-form-urlencoded` (UTF-8 bytes; `*-._` and ASCII
/// alphanumerics kept, space as `+`, everything else `%XX`).
pub fn urlencode_into(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for &b in s.as_bytes() {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'*' | b'-' | b'.' | b'_' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => {
                out.push('%');
                out.push(HEX[usize::from(b >> 4)] as char);
                out.push(HEX[usize::from(b & 15)] as char);
            }
        }
    }
}

/// The kind of login word (see `data/forms/login-words.txt`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum LoginKind {
    Password,
    Email,
    User,
}

fn data_words(text: &'static str) -> impl Iterator<Item = &'static str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

fn login_words() -> &'static HashMap<String, LoginKind> {
    static MAP: OnceLock<HashMap<String, LoginKind>> = OnceLock::new();
    MAP.get_or_init(|| {
        data_words(include_str!("../../../../data/forms/login-words.txt"))
            .filter_map(|l| {
                let (kind, word) = l.split_once(char::is_whitespace)?;
                let kind = match kind {
                    "password" => LoginKind::Password,
                    "email" => LoginKind::Email,
                    "user" => LoginKind::User,
                    _ => return None,
                };
                Some((normalize(word.trim()), kind))
            })
            .collect()
    })
}

fn search_words() -> &'static HashSet<String> {
    static SET: OnceLock<HashSet<String>> = OnceLock::new();
    SET.get_or_init(|| {
        data_words(include_str!("../../../../data/forms/search-words.txt"))
            .map(normalize)
            .collect()
    })
}

/// Lower-cased alphanumerics only (`e-mail` → `email`).
fn normalize(w: &str) -> String {
    w.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The words of an identifier or label: split at non-alphanumerics and camelCase boundaries,
/// lower-cased; each word, each adjacent pair joined, and the whole joined (`user_id` gives
/// `user`, `id`, `userid`).
fn words(s: &str) -> Vec<String> {
    let mut parts: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in s.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && prev_lower && !cur.is_empty() {
                parts.push(std::mem::take(&mut cur));
            }
            prev_lower = c.is_lowercase() || c.is_numeric();
            cur.extend(c.to_lowercase());
        } else {
            if !cur.is_empty() {
                parts.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
        }
    }
    if !cur.is_empty() {
        parts.push(cur);
    }
    let mut out = parts.clone();
    for w in parts.windows(2) {
        out.push(format!("{}{}", w[0], w[1]));
    }
    if parts.len() > 2 {
        out.push(parts.concat());
    }
    out
}

/// The login kind a field's name, id or label names, if any.
fn login_kind(f: &Field) -> Option<LoginKind> {
    let table = login_words();
    let mut found = None;
    for text in [&f.name, &f.id, &f.label] {
        for w in words(text) {
            match table.get(&w) {
                // Password outranks e-mail outranks user id.
                Some(LoginKind::Password) => return Some(LoginKind::Password),
                Some(LoginKind::Email) => found = Some(LoginKind::Email),
                Some(LoginKind::User) if found.is_none() => found = Some(LoginKind::User),
                _ => {}
            }
        }
    }
    found
}

fn field_tag(f: &Field) -> String {
    [&f.name, &f.id, &f.label]
        .into_iter()
        .find(|s| !s.trim().is_empty())
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// The reason to skip a form with these fields, if any: the strongest login field (password,
/// then e-mail, then user id; the first of its kind), else script-only submission (a scripted
/// form whose action is not http(s), is the page itself, or that has no submit control).
fn skip_reason(form: &Form, fields: &[Field], page_url: &str) -> Option<SkipReason> {
    let rank = |k: LoginKind| match k {
        LoginKind::Password => 0,
        LoginKind::Email => 1,
        LoginKind::User => 2,
    };
    let mut best: Option<(LoginKind, &Field)> = None;
    for f in fields {
        let kind = match f.kind {
            ControlKind::Password => Some(LoginKind::Password),
            ControlKind::Email => Some(LoginKind::Email),
            ControlKind::Text
            | ControlKind::TextArea
            | ControlKind::Number
            | ControlKind::Other => login_kind(f),
            _ => None,
        };
        if let Some(k) = kind
            && best.is_none_or(|(b, _)| rank(k) < rank(b))
        {
            best = Some((k, f));
        }
    }
    if let Some((kind, f)) = best {
        let field = field_tag(f);
        return Some(match kind {
            LoginKind::Password => SkipReason::Password { field },
            LoginKind::Email => SkipReason::Email { field },
            LoginKind::User => SkipReason::UserId { field },
        });
    }
    if form.scripted {
        let action = form.action.trim();
        // A scripted form without an action posts to the page itself: script does the work.
        let bare = |u: &str| u.split('#').next().unwrap_or("").to_string();
        let usable = (action.starts_with("http://") || action.starts_with("https://"))
            && bare(action) != bare(page_url);
        let has_submit = fields.iter().any(|f| f.kind.is_submit());
        if !usable || !has_submit {
            return Some(SkipReason::ScriptOnly);
        }
    }
    None
}

/// Whether the form looks like a search form: a text input (a textarea holds prose or code, not
/// a query: [`FormSpec::query_field`]), a submit control (or a lone text input, submitted by
/// Enter), and a search word in a field's name, id or label, the form's name or id, or its
/// action's path and query.
fn is_search(form: &Form, fields: &[Field]) -> bool {
    let texts = fields
        .iter()
        .filter(|f| f.kind == ControlKind::Text)
        .count();
    let submit = fields.iter().any(|f| f.kind.is_submit());
    if texts == 0 || !(submit || texts == 1) {
        return false;
    }
    let table = search_words();
    let action_words = url::Url::parse(&form.action)
        .map(|u| format!("{} {}", u.path(), u.query().unwrap_or("")))
        .unwrap_or_default();
    let mut texts = vec![form.name.as_str(), form.id.as_str(), action_words.as_str()];
    for f in fields {
        texts.extend([f.name.as_str(), f.id.as_str(), f.label.as_str()]);
        if f.kind == ControlKind::Submit {
            texts.push(f.value.as_str());
        }
    }
    texts
        .into_iter()
        .any(|t| words(t).iter().any(|w| table.contains(w)))
}

/// The [`FormSpec`] of every form of `page`, in document order (skipped forms included, with
/// their reason).
pub fn triage(page: &Page) -> Vec<FormSpec> {
    page.forms
        .iter()
        .enumerate()
        .map(|(index, form)| {
            let fields: Vec<Field> = form
                .controls
                .iter()
                .filter_map(|&i| page.controls.get(i))
                .filter(|c| c.kind != ControlKind::Button)
                .map(Field::from_control)
                .collect();
            let method = if form.method.eq_ignore_ascii_case("post") {
                Method::Post
            } else {
                Method::Get
            };
            FormSpec {
                index,
                action: form.action.clone(),
                no_action: form.no_action,
                method,
                enctype: if form.enctype.is_empty() {
                    URLENCODED.to_string()
                } else {
                    form.enctype.clone()
                },
                search: is_search(form, &fields),
                skip: skip_reason(form, &fields, &page.url),
                fields,
            }
        })
        .collect()
}

/// Labels of pagination buttons besides page numbers (`data/forms/pagination-words.txt`),
/// lower case.
pub fn pagination_words() -> &'static HashSet<String> {
    static SET: OnceLock<HashSet<String>> = OnceLock::new();
    SET.get_or_init(|| {
        data_words(include_str!("../../../../data/forms/pagination-words.txt"))
            .map(str::to_lowercase)
            .collect()
    })
}

/// Whether a submit button pages through results: its value is a page number, or its value or
/// name is a "next"/"previous" word or arrow (`data/forms/pagination-words.txt`).
fn is_pagination_button(f: &Field) -> bool {
    let value = f.value.trim();
    if !value.is_empty() && value.len() <= 6 && value.chars().all(|c| c.is_ascii_digit()) {
        return true;
    }
    let table = pagination_words();
    [value, f.name.trim()]
        .iter()
        .any(|t| !t.is_empty() && table.contains(&t.to_lowercase()))
}

/// The GET equivalents of the pagination buttons of `page`'s forms, in document order and
/// without repeats: result pages that page with submit buttons instead of links (Omega's
/// `<input type=submit name="[" value="2">` and `name=">"`) are followed like links. Each URL is
/// the form submitted with its current values and that button; for a POST form, the
/// submission's key (`action#exemplar-post=body`, see [`crate::fetch::post_key`]). Disabled
/// buttons (the current page) give nothing.
pub fn pagination_links(page: &Page) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for spec in valid_forms(page) {
        for f in &spec.fields {
            if f.kind != ControlKind::Submit
                || f.name.is_empty()
                || f.disabled
                || !is_pagination_button(f)
            {
                continue;
            }
            if let Ok(s) = spec.submission(&[(f.name.as_str(), f.value.as_str())]) {
                let key = match &s.body {
                    Some(body) => crate::fetch::post_key(&s.url, body),
                    None => s.url,
                };
                if !out.contains(&key) {
                    out.push(key);
                }
            }
        }
    }
    out
}

/// Whether a select's option is a placeholder ("----------", "--"): a value of punctuation
/// alone, which no application reads as a choice. An empty value ("any") is a choice.
pub fn is_placeholder(option: &str) -> bool {
    !option.is_empty() && !option.chars().any(char::is_alphanumeric)
}

/// The selects of `now` — the form `before`, met again in the answer to one of its
/// submissions — whose options the answer filled: a select with a real option (no
/// [`is_placeholder`]) that `before` lacked, as a select of an author's tags is filled once the
/// author is chosen. Such a form is submitted again with those selects chosen.
pub fn filled_selects(before: &FormSpec, now: &FormSpec) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for f in now
        .fields
        .iter()
        .filter(|f| f.kind == ControlKind::Select && !f.name.is_empty() && !f.disabled)
    {
        let had: HashSet<&str> = before
            .fields
            .iter()
            .filter(|b| b.name == f.name)
            .flat_map(|b| b.options.iter().map(String::as_str))
            .collect();
        let new = f
            .options
            .iter()
            .any(|o| !is_placeholder(o) && !had.contains(o.as_str()));
        if new && !out.contains(&f.name) {
            out.push(f.name.clone());
        }
    }
    out
}

/// The usable forms of `page` (see [`triage`]).
pub fn valid_forms(page: &Page) -> Vec<FormSpec> {
    triage(page)
        .into_iter()
        .filter(FormSpec::is_valid)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(html: &str) -> Vec<FormSpec> {
        let page = Page::from_html(html, "http://example.com/dir/page.html").expect("parses");
        triage(&page)
    }

    #[test]
    fn words_split_separators_camel_case_and_join_pairs() {
        assert_eq!(words("user_id"), ["user", "id", "userid"]);
        assert!(words("loginName").contains(&"login".to_string()));
        assert!(words("Your e-mail").contains(&"email".to_string()));
        assert!(words("Contraseña").contains(&"contraseña".to_string()));
    }

    #[test]
    fn urlencoding_matches_browsers() {
        let mut s = String::new();
        urlencode_into(&mut s, "a b&c=d/é*-._~");
        assert_eq!(s, "a+b%26c%3Dd%2F%C3%A9*-._%7E");
    }

    #[test]
    fn login_forms_are_skipped_with_reason() {
        let s = spec(
            "<form action=/l method=post><input name=usuario><input name=senha type=text><input type=submit></form>",
        );
        assert_eq!(
            s[0].skip,
            Some(SkipReason::Password {
                field: "senha".into()
            })
        );
        let s = spec("<form action=/l><input type=email name=e><input type=submit></form>");
        assert!(matches!(s[0].skip, Some(SkipReason::Email { .. })));
        let s = spec(
            "<form action=/l><label for=u>Login</label><input id=u name=x><input type=submit></form>",
        );
        assert!(matches!(s[0].skip, Some(SkipReason::UserId { .. })));
    }

    #[test]
    fn script_only_forms_are_skipped() {
        let s = spec("<form onsubmit='go()'><input name=q></form>");
        assert_eq!(s[0].skip, Some(SkipReason::ScriptOnly));
        let s = spec("<form action=/s onsubmit='check()'><input name=q><input type=submit></form>");
        assert_eq!(s[0].skip, None);
        assert!(s[0].search);
    }

    #[test]
    fn search_needs_a_text_field_and_a_search_word() {
        assert!(spec("<form action=/buscar><input name=t></form>")[0].search);
        assert!(!spec("<form action=/x><input name=t><input type=submit></form>")[0].search);
        assert!(!spec("<form action=/search><select name=a><option>1</select></form>")[0].search);
    }

    /// Datasette's SQL box: a textarea holds prose or code; words typed into it are no query.
    #[test]
    fn a_textarea_is_no_query_field() {
        let sql = &spec(
            "<form action=/db method=get><textarea name=sql>select * from t</textarea>\
             <input type=submit value='Run SQL'></form>",
        )[0];
        assert_eq!(sql.query_field(), None);
        assert!(!sql.search);
        let s = &spec(
            "<form action=/search><textarea name=notes></textarea><input type=number name=n>\
             <input type=search name=q><input type=submit></form>",
        )[0];
        assert_eq!(s.query_field().map(|f| f.name.as_str()), Some("q"));
        assert!(s.search);
        let terms = ["alpha".to_string()];
        assert_eq!(
            query::plan(sql, &terms, 10),
            Vec::<Vec<(String, String)>>::new(),
            "nothing to fill"
        );
        assert_eq!(
            query::plan(s, &terms, 10),
            [vec![("q".to_string(), "alpha".to_string())]]
        );
    }

    #[test]
    fn get_replaces_the_action_query_and_keeps_defaults() {
        let s = spec(
            "<form action='/find?old=1'><input type=hidden name=h value='x y'>\
             <input name=q><input type=checkbox name=c value=1 checked>\
             <input type=checkbox name=c value=2><input type=submit name=go value=Go></form>",
        );
        let sub = s[0].submission(&[("q", "a b")]).expect("builds");
        assert_eq!(
            sub.url, "http://example.com/find?h=x+y&q=a+b&c=1&go=Go",
            "{sub:?}"
        );
        let sub = s[0].submission(&[("c", "1"), ("c", "2")]).expect("builds");
        assert_eq!(sub.url, "http://example.com/find?h=x+y&q=&c=1&c=2&go=Go");
    }

    #[test]
    fn an_image_button_sends_click_coordinates_not_its_value() {
        let s = spec(
            "<form action=/find><input name=q>\
             <input type=image name=go value=ignored src=go.png alt=Search>\
             <input type=submit name=other value=Other></form>",
        );
        let f = &s[0];
        assert!(
            f.search,
            "the image's alt text names the form a search form"
        );
        assert_eq!(f.fields[1].kind, ControlKind::Image);
        assert_eq!(f.fields[1].label, "Search");
        // The image is the default (first) button; naming the other button sends that one.
        let sub = f.submission(&[("q", "x")]).expect("builds");
        assert_eq!(sub.url, "http://example.com/find?q=x&go.x=0&go.y=0");
        let sub = f
            .submission(&[("q", "x"), ("other", "Other")])
            .expect("builds");
        assert_eq!(sub.url, "http://example.com/find?q=x&other=Other");
        // A script-driven form with only an image button still has a submit control.
        let s = spec(
            "<form action=http://example.com/s onsubmit='go()'><input name=q><input type=image name=i></form>",
        );
        assert_eq!(s[0].skip, None);
    }

    #[test]
    fn the_default_button_is_the_first_submit_button_named_or_not() {
        // An unnamed image button sends bare coordinates; the named button after it is not the
        // default, so it sends nothing (as a browser's implicit submission).
        let s = spec(
            "<form action=/find><input name=q><input type=image src=go.png alt=Go>             <input type=submit name=other value=Other></form>",
        );
        let sub = s[0].submission(&[("q", "x")]).expect("builds");
        assert_eq!(sub.url, "http://example.com/find?q=x&x=0&y=0");
        // An unnamed submit button sends nothing, and is still the default button.
        let s = spec(
            "<form action=/find><input name=q><input type=submit value=Go>             <input type=submit name=other value=Other></form>",
        );
        let sub = s[0].submission(&[("q", "x")]).expect("builds");
        assert_eq!(sub.url, "http://example.com/find?q=x");
        // Asking for the named one sends it.
        let sub = s[0]
            .submission(&[("q", "x"), ("other", "Other")])
            .expect("builds");
        assert_eq!(sub.url, "http://example.com/find?q=x&other=Other");
    }

    #[test]
    fn a_multiple_select_sends_each_selected_option_or_nothing() {
        let s = spec(
            "<form action=/f><input name=q>\
             <select name=tag multiple><option>a<option selected>b<option value=c selected>C</select>\
             <select name=none multiple><option>x<option>y</select>\
             <select name=one><option>1<option>2</select></form>",
        );
        let f = &s[0];
        assert!(f.fields[1].multiple && !f.fields[3].multiple);
        assert_eq!(f.fields[1].selected, ["b", "c"]);
        assert_eq!(f.fields[1].options, ["a", "b", "c"]);
        let sub = f.submission(&[("q", "z")]).expect("builds");
        assert_eq!(sub.url, "http://example.com/f?q=z&tag=b&tag=c&one=1");
        let sub = f
            .submission(&[("none", "y"), ("tag", "a")])
            .expect("builds");
        assert_eq!(sub.url, "http://example.com/f?q=&tag=a&none=y&one=1");
    }

    #[test]
    fn non_http_action_is_an_error_not_a_panic() {
        let mut s = spec("<form action=/x><input name=q></form>").remove(0);
        s.action = "javascript:void(0)".into();
        assert!(s.submission(&[]).is_err());
        s.action = "::".into();
        assert!(s.submission(&[]).is_err());
    }
}
