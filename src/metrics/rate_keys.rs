//! The keys of a service's keyed admission rate limit (`RateLimitKey`): which bucket a
//! request's origin (its client metric slot, `MetricSlots::clients`) takes from, and the name
//! each key's counts are emitted under. Kept beside the slots because a tenant is a client
//! slot: the client's own (`client.web`), or, per client operation, its mix entry's part
//! (`client.web.op.login`).

use super::names;
use super::slots::MetricSlots;
use crate::model::RateLimitKey;

pub struct RateKeys {
    /// Per client slot (a request's origin), the index of its key among the service's keys;
    /// empty for an unkeyed limit, whose single bucket every arrival (a probe's too) takes from.
    pub of_origin: Vec<u32>,
    /// Per key, its metric prefix (`client.web`, `client.web.op.login`); `None` for a key no
    /// request carries (a mixed client's whole, whose requests each belong to a part) and
    /// for the single key of an unkeyed limit.
    pub names: Vec<Option<String>>,
}

impl RateKeys {
    pub fn of(slots: &MetricSlots, key: RateLimitKey) -> RateKeys {
        let clients = &slots.clients;
        match key {
            RateLimitKey::None => RateKeys {
                of_origin: Vec::new(),
                names: vec![None],
            },
            // Wholes come first, so a whole client's slot is its index among the clients.
            RateLimitKey::Client => RateKeys {
                of_origin: (clients.iter().enumerate())
                    .map(|(slot, (_, whole))| whole.unwrap_or(slot) as u32)
                    .collect(),
                names: (clients.iter())
                    .take_while(|(_, whole)| whole.is_none())
                    .map(|(name, _)| Some(name.clone()))
                    .collect(),
            },
            RateLimitKey::ClientOperation => RateKeys {
                of_origin: (0..clients.len() as u32).collect(),
                names: (clients.iter().enumerate())
                    .map(|(slot, (name, _))| {
                        let mixed = clients.iter().any(|(_, whole)| *whole == Some(slot));
                        (!mixed).then(|| name.clone())
                    })
                    .collect(),
            },
        }
    }

    /// How many buckets one scope (an instance, or the fleet) keeps.
    pub fn count(&self) -> usize {
        self.names.len()
    }
}

/// The suffixes of the per-key counts emitted on service slot `slot`
/// (`rate_limit.client.web.passed`, `….refused`), one entry per key: only the service's own
/// slot of a keyed limit has any, and a key no request carries has `None`.
pub fn emitted_at(
    model: &crate::model::Model,
    slots: &MetricSlots,
    slot: usize,
) -> Vec<Option<[String; 2]>> {
    let Some(limit) = (model.services.get(slot)).and_then(|s| s.rate_limit.as_ref()) else {
        return Vec::new();
    };
    if limit.key == RateLimitKey::None {
        return Vec::new();
    }
    // Only the keys of clients whose calls can reach the service: the others' counts would
    // be zeros that say nothing.
    let reaching = &super::emission::reaching_clients(model)[slot];
    let keys = RateKeys::of(slots, limit.key);
    (keys.names.into_iter().enumerate())
        .map(|(key, name)| {
            let client = match limit.key {
                RateLimitKey::ClientOperation => slots.clients[key].1.unwrap_or(key),
                _ => key,
            };
            let counted = name.filter(|_| reaching.contains(&client));
            counted.map(|n| {
                [
                    names::rate_key(&n, "passed"),
                    names::rate_key(&n, "refused"),
                ]
            })
        })
        .collect()
}
