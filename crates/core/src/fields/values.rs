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

/// The longest text every value starts with, ending at a word's end (after a space or a colon
/// followed by one), and likewise the longest they all end with (from a space): what the
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
    let prefix = match prefix.rfind(':') {
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
