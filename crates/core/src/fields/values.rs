//! Field values: the shapes a field's values share (a price, a number, a date, a URL, a long
//! text), the text the template writes around every value, and typed values for the exports.
use serde::{Deserialize, Serialize};

/// The shape of a field's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ValueKind {
    /// Text.
    Text,
    /// Text of more than 200 characters (a description, a body).
    LongText,
    /// A number.
    Number,
    /// An amount of money: a currency sign or code and a number.
    Price,
    /// A date.
    Date,
    /// A URL.
    Url,
    /// The number of elements: one sign repeated (★ ★ ★ for a rating of three).
    Count,
}

/// Characters past which text is long.
pub const LONG_TEXT: usize = 200;

/// A typed value, as exports write it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    /// A number (a price's amount).
    Number(f64),
    /// Text, a date as the page writes it, or a URL.
    Text(String),
    /// A repeated field's values.
    List(Vec<Value>),
}

impl Value {
    /// The value as text (a list's items joined by `; `).
    pub fn as_text(&self) -> String {
        match self {
            Value::Number(n) => {
                if n.fract() == 0.0 && n.abs() < 1e15 {
                    format!("{}", *n as i64)
                } else {
                    format!("{n}")
                }
            }
            Value::Text(t) => t.clone(),
            Value::List(v) => v.iter().map(Value::as_text).collect::<Vec<_>>().join("; "),
        }
    }
}

const CURRENCY_SIGNS: [char; 10] = ['$', '£', '€', '¥', '₹', '₽', '₩', '₺', '₪', '฿'];
const CURRENCY_CODES: [&str; 12] = [
    "USD", "EUR", "GBP", "JPY", "BRL", "R$", "CHF", "CAD", "AUD", "INR", "MXN", "CNY",
];
const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

/// The longest text every value starts with, ending at a label's colon and the space after it, and likewise the longest they all end with (from a space): what the
/// template writes around the value ("Price: "). Nothing when one value would be left empty.
pub fn common_affixes(values: &[&String]) -> (String, String) {
    let Some(first) = values.first() else {
        return (String::new(), String::new());
    };
    // Two or three values share words by chance ("Albert Einstein", "Albert Camus").
    let distinct: std::collections::HashSet<&&String> = values.iter().collect();
    if distinct.len() < 4 {
        return (String::new(), String::new());
    }
    let mut prefix: &str = first;
    for v in values {
        while !v.starts_with(prefix) {
            let mut end = prefix.len().saturating_sub(1);
            while end > 0 && !prefix.is_char_boundary(end) {
                end -= 1;
            }
            prefix = &prefix[..end];
        }
    }
    // A label the template writes before the value: up to its colon ("Price: "). A shared first
    // word with no colon ("in Ulm", "in Paris") is the value's.
    // The colon ends a label when a space follows it ("Price: "), not in a name ("sf::Texture",
    // "12:30").
    let prefix = match prefix.rfind(": ") {
        Some(i) => {
            let end = i + 1 + prefix[i + 1..].len() - prefix[i + 1..].trim_start().len();
            &prefix[..end]
        }
        None => "",
    };
    let mut suffix: &str = first;
    for v in values {
        while !v.ends_with(suffix) {
            let mut start = 1;
            while start < suffix.len() && !suffix.is_char_boundary(start) {
                start += 1;
            }
            suffix = &suffix[start.min(suffix.len())..];
        }
    }
    // A unit the template writes after it (" kg", " cm", " %"): one short word without digits.
    let suffix = match suffix.rfind(' ') {
        Some(i) => {
            let unit = &suffix[i + 1..];
            if !unit.is_empty()
                && unit.chars().count() <= 5
                && !unit
                    .chars()
                    .any(|c| c.is_ascii_digit() || c.is_whitespace())
            {
                &suffix[i..]
            } else {
                ""
            }
        }
        None => "",
    };
    let empty = values
        .iter()
        .any(|v| v.len() <= prefix.len() + suffix.len());
    if empty {
        return (String::new(), String::new());
    }
    (prefix.to_string(), suffix.to_string())
}

/// `v` without the template's `prefix` and `suffix`.
pub fn strip(v: &str, prefix: &str, suffix: &str) -> String {
    let v = v.strip_prefix(prefix).unwrap_or(v);
    let v = v.strip_suffix(suffix).unwrap_or(v);
    v.trim().to_string()
}

/// Kinds named after a value at most (" Class Reference", " Struct Reference").
const MAX_KINDS: usize = 3;
/// Words of a kind's name at most.
const MAX_KIND_WORDS: usize = 3;
/// Share of the values that must end with a kind's name.
const KIND_COVER: f64 = 0.9;

/// The words the template writes after each value naming its kind, one of a few: Doxygen's
/// "sf::Texture Class Reference", "sf::Clock Struct Reference". Read from the end: the last
/// words of nearly every value are one of at most [`MAX_KINDS`] words, each on two values or
/// more; a word before them is taken likewise while most values of that kind have one of them
/// (the rest keep the shorter name); words
/// are letters only (a count, "(22 available)", is data). Returned longest first, each with
/// its leading space; none unless what is left of the values is mostly distinct (names, not
/// "In stock" against "Out of stock").
pub fn kind_suffixes(values: &[&String]) -> Vec<String> {
    let words: Vec<Vec<&str>> = values.iter().map(|v| v.split(' ').collect()).collect();
    let alpha = |w: &str| !w.is_empty() && w.chars().all(char::is_alphabetic);
    // (the kind's words from the last, the values having them)
    let mut frontier: Vec<(Vec<&str>, Vec<usize>)> =
        vec![(Vec::new(), (0..values.len()).collect())];
    let mut kinds: Vec<Vec<&str>> = Vec::new();
    for depth in 0..MAX_KIND_WORDS {
        let mut next = Vec::new();
        for (tail, members) in frontier {
            let mut groups: std::collections::BTreeMap<&str, Vec<usize>> = Default::default();
            for &m in &members {
                let w = &words[m];
                // A word is left before the kind's name: the value itself.
                if w.len() > depth + 1 && alpha(w[w.len() - 1 - depth]) {
                    groups.entry(w[w.len() - 1 - depth]).or_default().push(m);
                }
            }
            // A word on one value only is that value's own.
            groups.retain(|_, g| g.len() >= 2);
            let covered: usize = groups.values().map(Vec::len).sum();
            // The last words: on nearly every value; a word before them: on most values of
            // that kind (the rest keep the shorter name).
            let need = if depth == 0 { KIND_COVER } else { 0.5 };
            let ok = !groups.is_empty()
                && groups.len() <= MAX_KINDS
                && covered as f64 >= need * members.len() as f64;
            if ok {
                // The few values of another kind keep the shorter name.
                if depth > 0 && covered < members.len() {
                    kinds.push(tail.clone());
                }
                for (w, g) in groups {
                    let mut t = tail.clone();
                    t.push(w);
                    next.push((t, g));
                }
            } else if depth > 0 {
                kinds.push(tail);
            }
        }
        frontier = next;
    }
    kinds.extend(frontier.into_iter().map(|(t, _)| t));
    let mut out: Vec<String> = kinds
        .into_iter()
        .filter(|t| !t.is_empty())
        .map(|t| format!(" {}", t.iter().rev().copied().collect::<Vec<_>>().join(" ")))
        .collect();
    out.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    out.dedup();
    if out.is_empty() || out.len() > MAX_KINDS * MAX_KIND_WORDS {
        return Vec::new();
    }
    let stems: std::collections::HashSet<String> = values
        .iter()
        .map(|v| strip_kind(v, &out).to_string())
        .collect();
    if stems.len() < 4 || (stems.len() as f64) < 0.5 * values.len() as f64 {
        return Vec::new();
    }
    out
}

/// `v` without the first of `suffixes` it ends with (the longest, as [`kind_suffixes`] orders
/// them).
pub fn strip_kind<'a>(v: &'a str, suffixes: &[String]) -> &'a str {
    suffixes
        .iter()
        .find_map(|s| v.strip_suffix(s.as_str()))
        .unwrap_or(v)
}

/// The number a text is (thousands separators read: `1,234.50`, `1.234,50`), if it is one.
pub fn number(t: &str) -> Option<f64> {
    let t = t.trim();
    if t.is_empty()
        || !t
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | '-' | '+' | ' '))
    {
        return None;
    }
    let t: String = t.chars().filter(|c| *c != ' ').collect();
    let (dots, commas) = (t.matches('.').count(), t.matches(',').count());
    let normal = match (dots, commas) {
        (0, 0) => t,
        (_, 0) if dots > 1 => t.replace('.', ""),
        (0, _) if commas > 1 => t.replace(',', ""),
        // One comma and no dot: a decimal comma unless three digits follow it (1,234).
        (0, 1) => {
            let after = t.len() - t.find(',').unwrap_or(0) - 1;
            if after == 3 {
                t.replace(',', "")
            } else {
                t.replace(',', ".")
            }
        }
        _ => {
            let (d, c) = (t.rfind('.').unwrap_or(0), t.rfind(',').unwrap_or(0));
            if d > c {
                t.replace(',', "")
            } else {
                t.replace('.', "").replace(',', ".")
            }
        }
    };
    normal.parse::<f64>().ok().filter(|n| n.is_finite())
}

/// The amount of a price (`£26.08`, `R$ 1.200,00`, `12 EUR`), if the text is one.
pub fn price(t: &str) -> Option<f64> {
    let mut rest = t.trim();
    let mut had = false;
    for code in CURRENCY_CODES {
        if let Some(r) = rest.strip_prefix(code) {
            rest = r;
            had = true;
        } else if let Some(r) = rest.strip_suffix(code) {
            rest = r;
            had = true;
        }
    }
    let trimmed = rest.trim_matches(|c: char| CURRENCY_SIGNS.contains(&c) || c.is_whitespace());
    had |= trimmed.len() < rest.trim().len();
    if !had {
        return None;
    }
    // One dot and three digits after it: a thousands separator (R$ 480.000, € 1.500): a price
    // with three decimals is all but unknown.
    if !trimmed.contains(',')
        && let Some((whole, frac)) = trimmed.split_once('.')
        && frac.len() == 3
        && frac.bytes().all(|b| b.is_ascii_digit())
        && !whole.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit())
    {
        return number(&format!("{whole}{frac}"));
    }
    number(trimmed)
}

/// Whether a text is a date: a month's name with a day or year number, or `YYYY-MM-DD`,
/// `DD/MM/YYYY`.
pub fn is_date(t: &str) -> bool {
    let t = t.trim();
    if t.len() > 40 {
        return false;
    }
    let lower = t.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let month = words
        .iter()
        .any(|w| w.len() >= 3 && MONTHS.iter().any(|m| w.starts_with(m)));
    let numbers = words
        .iter()
        .filter(|w| w.chars().all(|c| c.is_ascii_digit()))
        .count();
    if month && numbers >= 1 && words.len() <= 5 {
        return true;
    }
    let parts: Vec<&str> = t.split(['-', '/', '.']).collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.len() <= 4 && p.chars().all(|c| c.is_ascii_digit()))
        && parts.iter().any(|p| p.len() == 4)
}

/// The shape most of `values` share (at least 80% of them), else text (long text when their
/// median is long).
pub fn kind_of(values: &[String]) -> ValueKind {
    if values.is_empty() {
        return ValueKind::Text;
    }
    let n = values.len() as f64;
    let share = |f: &dyn Fn(&str) -> bool| values.iter().filter(|v| f(v)).count() as f64 / n;
    if share(&|v| price(v).is_some()) >= 0.8 {
        return ValueKind::Price;
    }
    if share(&|v| number(v).is_some()) >= 0.8 {
        return ValueKind::Number;
    }
    if share(&is_date) >= 0.8 {
        return ValueKind::Date;
    }
    if share(&|v| v.starts_with("http://") || v.starts_with("https://")) >= 0.8 {
        return ValueKind::Url;
    }
    let mut lens: Vec<usize> = values.iter().map(|v| v.chars().count()).collect();
    lens.sort_unstable();
    if lens[lens.len() / 2] > LONG_TEXT {
        ValueKind::LongText
    } else {
        ValueKind::Text
    }
}

/// `t` typed as `kind` (a price or number as its number; a URL resolved against `base`); text
/// when it does not read as its kind.
pub fn typed(t: &str, kind: ValueKind, base: &str) -> Value {
    match kind {
        ValueKind::Price => price(t).map_or_else(|| Value::Text(t.to_string()), Value::Number),
        ValueKind::Number => number(t).map_or_else(|| Value::Text(t.to_string()), Value::Number),
        ValueKind::Url => Value::Text(
            url::Url::parse(base)
                .and_then(|b| b.join(t))
                .map_or_else(|_| t.to_string(), |u| u.to_string()),
        ),
        ValueKind::Text | ValueKind::LongText | ValueKind::Date | ValueKind::Count => {
            Value::Text(t.to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_numbers_and_dates() {
        assert_eq!(price("£26.08"), Some(26.08));
        assert_eq!(price("R$ 1.200,50"), Some(1200.5));
        assert_eq!(price("R$ 480.000"), Some(480_000.0), "a thousands dot");
        assert_eq!(price("R$ 1.170.000"), Some(1_170_000.0));
        assert_eq!(price("$ 4.99"), Some(4.99));
        assert_eq!(price("12 EUR"), Some(12.0));
        assert_eq!(price("26.08"), None, "no currency, no price");
        assert_eq!(number("1,234"), Some(1234.0));
        assert_eq!(number("3,5"), Some(3.5));
        assert_eq!(number("12 apples"), None);
        assert!(is_date("March 14, 1879") && is_date("1879-03-14") && is_date("14/03/1879"));
        assert!(!is_date("in Ulm, Germany") && !is_date("Price 12"));
    }

    fn kinds(vals: &[&str]) -> Vec<String> {
        let vals: Vec<String> = vals.iter().map(|v| v.to_string()).collect();
        let refs: Vec<&String> = vals.iter().collect();
        kind_suffixes(&refs)
    }

    #[test]
    fn kind_names_after_values_are_cut_and_data_is_not() {
        let doxygen = [
            "sf::Texture Class Reference",
            "sf::Clock Class Reference",
            "sf::Window Class Reference",
            "sf::Event::KeyEvent Struct Reference",
            "sf::Event::SizeEvent Struct Reference",
            "sf::Vector2< T > Class Template Reference",
            "sf::Rect< T > Class Template Reference",
            "sf::Image Class Reference",
            "sf::Font::Info Struct Reference",
            "sf::Music Class Reference",
        ];
        assert_eq!(
            kinds(&doxygen),
            [
                " Class Template Reference",
                " Struct Reference",
                " Class Reference"
            ]
        );
        assert_eq!(strip_kind(doxygen[5], &kinds(&doxygen)), "sf::Vector2< T >");
        for data in [
            // Names: their last words differ.
            &[
                "Albert Einstein",
                "Marie Curie",
                "Jane Austen",
                "Mark Twain",
                "J.K. Rowling",
            ][..],
            // The same few words, but little left that differs.
            &[
                "In stock",
                "Out of stock",
                "In stock",
                "Out of stock",
                "In stock",
            ][..],
            // Digits and brackets are data.
            &[
                "In stock (22 available)",
                "In stock (3 available)",
                "In stock (7 available)",
                "In stock (1 available)",
            ][..],
            &[
                "Casa com 5 quartos em Tatuapé",
                "Apartamento com 2 quartos em Lapa",
                "Casa com 3 quartos em Brooklin",
                "Apartamento com 1 quarto em Butantã",
            ][..],
        ] {
            assert!(kinds(data).is_empty(), "{data:?}: {:?}", kinds(data));
        }
    }

    fn affixes(vals: &[&str]) -> (String, String) {
        let vals: Vec<String> = vals.iter().map(|v| v.to_string()).collect();
        let refs: Vec<&String> = vals.iter().collect();
        common_affixes(&refs)
    }

    #[test]
    fn the_template_text_around_values_is_found_at_word_ends() {
        let prices = [
            "Price: £26.08",
            "Price: £51.77",
            "Price: £3.10",
            "Price: £12.00",
        ];
        assert_eq!(affixes(&prices), ("Price: ".into(), String::new()));
        let stock = [
            "In stock (1 available)",
            "In stock (22 available)",
            "In stock (3 available)",
            "In stock (9 available)",
        ];
        assert_eq!(
            affixes(&stock),
            (String::new(), String::new()),
            "no label, no unit: the whole text"
        );
        let places = [
            "in Ulm, Germany",
            "in Paris, France",
            "in Rome, Italy",
            "in Oslo, Norway",
        ];
        assert_eq!(affixes(&places), (String::new(), String::new()));
        let scoped = ["sf::Texture", "sf::Clock", "sf::Window", "sf::Font"];
        assert_eq!(
            affixes(&scoped),
            (String::new(), String::new()),
            "a scope is the name's, not a label"
        );
        let weights = ["3 kg", "12 kg", "4 kg", "1 kg"];
        assert_eq!(affixes(&weights), (String::new(), " kg".into()));
        assert_eq!(
            affixes(&["Albert Einstein", "Albert Camus", "Albert Einstein"]),
            (String::new(), String::new()),
            "a few values share words by chance"
        );
        let names = ["Ann Lee", "Ann Bo", "Ann Cy", "Ann"];
        assert_eq!(
            affixes(&names),
            (String::new(), String::new()),
            "never a value left empty"
        );
    }
}
