//! An HTTP/1.1 server on 127.0.0.1 answering for many virtual hosts by the request's `Host`
//! header, for active checks and end-to-end tests: the product's static server
//! (`exemplar_native::serve::Server`: a thread per connection, keep-alive, HEAD) with a handler
//! that routes by host ([`HostRouter`]).
//!
//! Contract: `GET`/`HEAD` of a path a host serves → 200 with the page as [`VirtualHost::get`]
//! gives it; a path it does not serve → 404, or 301 to the path with a `/` added when that one is
//! served (as a static server answers for a directory); an unknown or missing `Host` → 421
//! (Misdirected Request); another method → 405. The `Host` header's port is ignored, so a
//! client connects to 127.0.0.1:PORT and names the virtual host in `Host`.

use std::collections::HashMap;
use std::sync::Arc;

use exemplar_native::serve::{Request, Response, Server};

use super::host::VirtualHost;

/// The hosts a server answers for, by name (lower case).
#[derive(Clone, Debug, Default)]
pub struct HostRouter {
    hosts: HashMap<String, Arc<VirtualHost>>,
}

impl HostRouter {
    /// A router for these hosts (a later host of the same name replaces an earlier one).
    pub fn new<'a>(hosts: impl IntoIterator<Item = &'a Arc<VirtualHost>>) -> HostRouter {
        HostRouter {
            hosts: hosts
                .into_iter()
                .map(|h| (h.host.to_ascii_lowercase(), Arc::clone(h)))
                .collect(),
        }
    }

    /// The host a `Host` header value names (its port ignored).
    pub fn host(&self, header: &str) -> Option<&Arc<VirtualHost>> {
        let name = header.trim();
        let name = match name.rsplit_once(':') {
            Some((n, port)) if port.bytes().all(|b| b.is_ascii_digit()) => n,
            _ => name,
        };
        self.hosts
            .get(&name.trim_end_matches('.').to_ascii_lowercase())
    }

    /// The response to a request.
    pub fn respond(&self, req: &Request) -> Response {
        if req.method != "GET" && req.method != "HEAD" {
            return status(405);
        }
        let header = req
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("host"))
            .map(|(_, v)| v.as_str());
        let Some(host) = header.and_then(|h| self.host(h)) else {
            return status(421);
        };
        if let Some((ctype, body)) = host.get(&req.path) {
            return Response {
                status: 200,
                headers: vec![("Content-Type".into(), ctype.into())],
                body,
                delay: None,
            };
        }
        let (path, query) = match req.path.split_once('?') {
            Some((p, q)) => (p, format!("?{q}")),
            None => (req.path.as_str(), String::new()),
        };
        if !path.ends_with('/') && host.file(&format!("{path}/")).is_some() {
            return Response::redirect(301, &format!("{path}/{query}"));
        }
        Response::not_found()
    }
}

fn status(code: u16) -> Response {
    Response {
        status: code,
        headers: vec![("Content-Type".into(), "text/plain; charset=utf-8".into())],
        body: match code {
            405 => b"Method Not Allowed\n".to_vec(),
            _ => b"Misdirected Request: no such host here\n".to_vec(),
        },
        delay: None,
    }
}

/// Starts serving `hosts` on 127.0.0.1:`port` (0: any free port); the server stops when dropped.
///
/// # Errors
/// When the port cannot be bound.
pub fn serve<'a>(
    port: u16,
    hosts: impl IntoIterator<Item = &'a Arc<VirtualHost>>,
) -> std::io::Result<Server> {
    let router = HostRouter::new(hosts);
    Server::start(port, move |req: &Request| router.respond(req))
}
