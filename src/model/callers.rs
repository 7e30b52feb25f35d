//! Who makes each call: a client or a service, with every call path of its requests (its
//! steps, its operations' steps, its mix, and the fallback calls of each). What a caller
//! process shares among its paths (a named connection pool) is laid out per caller from this.

use super::{CallSpec, Model};

/// A client or a service, as the maker of calls.
pub struct Caller<'a> {
    /// `"client"` or `"service"`, and its name (`metrics::names::caller` makes its metrics'
    /// prefix of them).
    pub kind: &'static str,
    pub name: &'a str,
    /// Processes of it (1 for a client): each keeps its own copy of what its paths share.
    pub instances: u32,
    /// Every call path it makes, fallbacks after the paths that fall back to them.
    pub calls: Vec<&'a CallSpec>,
}

impl Model {
    /// Clients first, then services, in model order.
    pub fn callers(&self) -> Vec<Caller<'_>> {
        let clients = self.clients.iter().map(|c| Caller {
            kind: "client",
            name: &c.name,
            instances: 1,
            calls: self.with_fallbacks(c.calls()),
        });
        let services = self.services.iter().map(|s| Caller {
            kind: "service",
            name: &s.name,
            instances: s.instances,
            calls: self.with_fallbacks(s.calls()),
        });
        clients.chain(services).collect()
    }

    fn with_fallbacks<'a>(
        &'a self,
        calls: impl Iterator<Item = &'a CallSpec>,
    ) -> Vec<&'a CallSpec> {
        let main: Vec<&CallSpec> = calls.collect();
        let fallbacks = main
            .iter()
            .filter_map(|c| c.fallback.map(|f| &self.fallbacks[f]));
        main.iter().copied().chain(fallbacks).collect()
    }
}
