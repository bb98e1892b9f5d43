//! Results taken in the order their requests were issued ([`InOrder`]), so one site gives one
//! map whatever the network's timing.

use super::*;

/// Results held until they can be taken in the order their requests were issued.
///
/// A state machine that takes results as they arrive asks for its next URLs in an order that
/// depends on network timing, so one site could give different maps and crawls from run to
/// run (and, with a page budget, different page sets). With this, a machine asks for every
/// request it can (until its frontier says [`Next::Busy`]: [`LOOKAHEAD`] × the connections
/// allowed are asked and not taken, or nothing else may be asked) and only then takes one
/// result, the oldest request's; while a request may be asked but no connection is free
/// ([`Next::Full`]) it waits and takes nothing. What is asked and what is taken then depend on
/// the site alone (for one host; with several, timing decides which host goes first when one
/// has no free connection or is in its delay). A result that arrives early waits, its
/// connection freed for the next request: a slow page holds the others up only once the
/// window is full.
///
/// Held results are part of the machines' snapshots (bodies as base64), so a restore does not
/// ask them again: a driver restored more often than its requests can be taken (a service
/// worker stopped every few responses) still makes progress.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(into = "Vec<Held>", from = "Vec<Held>")]
pub struct InOrder {
    arrived: BTreeMap<u64, FetchResult>,
}

/// A held result as saved: the body as base64 text.
#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Held {
    id: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    failed: Option<String>,
    #[serde(default)]
    status: u16,
    #[serde(default)]
    final_url: String,
    #[serde(default)]
    headers: Vec<(String, String)>,
    #[serde(default, with = "base64_bytes")]
    body: Vec<u8>,
    #[serde(default)]
    truncated: bool,
}

impl From<InOrder> for Vec<Held> {
    fn from(o: InOrder) -> Vec<Held> {
        o.arrived
            .into_iter()
            .map(|(id, r)| match r {
                FetchResult::Failed(e) => Held {
                    id,
                    failed: Some(e),
                    status: 0,
                    final_url: String::new(),
                    headers: Vec::new(),
                    body: Vec::new(),
                    truncated: false,
                },
                FetchResult::Response(r) => Held {
                    id,
                    failed: None,
                    status: r.status,
                    final_url: r.final_url,
                    headers: r.headers,
                    body: r.body,
                    truncated: r.truncated,
                },
            })
            .collect()
    }
}

impl From<Vec<Held>> for InOrder {
    fn from(held: Vec<Held>) -> InOrder {
        let arrived = held
            .into_iter()
            .map(|h| {
                let result = match h.failed {
                    Some(e) => FetchResult::Failed(e),
                    None => FetchResult::Response(FetchResponse {
                        status: h.status,
                        final_url: h.final_url,
                        headers: h.headers,
                        body: h.body,
                        truncated: h.truncated,
                    }),
                };
                (h.id, result)
            })
            .collect();
        InOrder { arrived }
    }
}

pub(crate) mod base64_bytes {
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&STANDARD.encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(d)?;
        STANDARD
            .decode(text.as_bytes())
            .map_err(serde::de::Error::custom)
    }
}

impl InOrder {
    /// Holds the result of request `id` if it is in flight; stale and unknown ids are dropped.
    pub fn hold<T: Clone>(&mut self, frontier: &mut Frontier<T>, id: u64, result: FetchResult) {
        if frontier.is_in_flight(id) {
            frontier.land(id);
            self.arrived.insert(id, result);
        }
    }

    /// The oldest request's result, if it has arrived: to take when the frontier is busy.
    pub fn oldest<T: Clone>(&mut self, frontier: &Frontier<T>) -> Option<(u64, FetchResult)> {
        let id = frontier.oldest_in_flight()?;
        self.arrived.remove(&id).map(|r| (id, r))
    }

    /// Whether request `id`'s result is held.
    pub fn holds(&self, id: u64) -> bool {
        self.arrived.contains_key(&id)
    }

    /// Keeps only the results of requests still in flight (after a restore put the others
    /// back in the queue; a snapshot read from disk is input).
    pub fn retain_in_flight<T: Clone>(&mut self, frontier: &Frontier<T>) {
        self.arrived.retain(|&id, _| frontier.is_in_flight(id));
    }
}
