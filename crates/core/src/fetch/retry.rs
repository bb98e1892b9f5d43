//! "Come back later" (429, 503, `Retry-After`): how long a host is left alone before a page is
//! asked again, and how a `Retry-After` date is read.

use super::*;

/// How long to wait before asking a page again whose answer says "come back later" (429, 503)
/// for the `attempt`-th time (from 1): its `Retry-After`, else 2, 4, 8 s, between 1 s and
/// `max_ms`. None when it is not asked again: another status, or [`MAX_RETRIES`] reached.
pub fn page_retry_wait_ms(r: &FetchResponse, attempt: u8, max_ms: u64) -> Option<u64> {
    (asks_to_wait(false, r.status) && (1..=MAX_RETRIES).contains(&attempt))
        .then(|| retry_wait_ms(r, attempt, max_ms))
}

/// Whether an answer with `status` says "come back later": 429 or 503, and for a robots.txt
/// (which decides the whole host: a 5xx disallows everything) any 5xx.
pub(crate) fn asks_to_wait(robots_txt: bool, status: u16) -> bool {
    status == 429 || status == 503 || (robots_txt && (500..600).contains(&status))
}

pub(crate) fn retry_wait_ms(r: &FetchResponse, attempt: u8, max_ms: u64) -> u64 {
    retry_after_ms(r)
        .unwrap_or(1000 << attempt.min(16))
        .clamp(1000, max_ms.max(1000))
}

/// `Retry-After` as the machines read it: a number of seconds. The header may also give an
/// HTTP date, which needs a wall clock the machines do not have, so a driver turns one into
/// the seconds from `now_unix_ms` until then (0 when past) before handing the response over.
/// Other values are left as they are (the default wait applies).
pub fn retry_after_as_seconds(headers: &mut [(String, String)], now_unix_ms: u64) {
    for (name, value) in headers.iter_mut() {
        if name.eq_ignore_ascii_case("retry-after")
            && value.trim().parse::<f64>().is_err()
            && let Some(at) = http_date_unix_s(value)
        {
            *value = at.saturating_sub(now_unix_ms / 1000).to_string();
        }
    }
}

/// An HTTP date in its preferred form, IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110
/// §5.6.7), as seconds since the Unix epoch.
pub(crate) fn http_date_unix_s(text: &str) -> Option<u64> {
    let rest = text.trim().split_once(", ")?.1;
    let mut parts = rest.split(' ');
    let day: u64 = parts.next()?.parse().ok()?;
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let name = parts.next()?;
    let month = MONTHS.iter().position(|m| *m == name)? as u64 + 1;
    let year: u64 = parts.next()?.parse().ok()?;
    let mut clock = parts.next()?.split(':').map(|n| n.parse::<u64>().ok());
    let (h, m, s) = (clock.next()??, clock.next()??, clock.next()??);
    if parts.next()? != "GMT"
        || !(1..=31).contains(&day)
        || year < 1970
        || h > 23
        || m > 59
        || s > 60
    {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm), March-based years.
    let (y, mo) = if month <= 2 {
        (year - 1, month + 9)
    } else {
        (year, month - 3)
    };
    let era = y / 400;
    let yoe = y % 400;
    let doy = (153 * mo + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = (era * 146_097 + doe).checked_sub(719_468)?;
    Some(days * 86_400 + h * 3600 + m * 60 + s)
}

/// A response's `Retry-After` in milliseconds, when it gives a number of seconds (a driver turns
/// an HTTP date into one: [`retry_after_as_seconds`]).
pub(crate) fn retry_after_ms(r: &FetchResponse) -> Option<u64> {
    let secs: f64 = r.header("retry-after")?.trim().parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| (secs * 1000.0).min(u64::MAX as f64) as u64)
}
