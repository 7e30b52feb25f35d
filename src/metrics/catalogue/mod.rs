//! Every metric name, its unit and exactly what it means. `cascade metrics` prints this, and a
//! test checks that every name a run emits is described here and every entry is emitted. The
//! entries stand in one file per kind of entity, in the order `cascade metrics` lists them.

mod clients;
mod edges;
mod services;
mod whole_run;

#[derive(Clone, Copy)]
pub struct MetricDoc {
    /// The name, with `<c>` (client), `<s>` (service), `<from>`/`<to>` and `<kind>` placeholders.
    pub pattern: &'static str,
    pub unit: &'static str,
    pub meaning: &'static str,
}

const fn doc(pattern: &'static str, unit: &'static str, meaning: &'static str) -> MetricDoc {
    MetricDoc {
        pattern,
        unit,
        meaning,
    }
}

const PARTS: [&[MetricDoc]; 4] = [
    clients::CLIENTS,
    services::SERVICES,
    edges::EDGES,
    whole_run::WHOLE_RUN,
];
const COUNT: usize = PARTS[0].len() + PARTS[1].len() + PARTS[2].len() + PARTS[3].len();

/// All metrics. Counts are of events in the window (the measured run for the summary, one
/// bucket in timeseries.csv); means and percentiles are over the events they name.
pub const CATALOGUE: &[MetricDoc] = &concat(PARTS);

/// The parts one after another, at compile time.
const fn concat(parts: [&[MetricDoc]; 4]) -> [MetricDoc; COUNT] {
    let mut all = [doc("", "", ""); COUNT];
    let (mut p, mut n) = (0, 0);
    while p < parts.len() {
        let mut i = 0;
        while i < parts[p].len() {
            all[n] = parts[p][i];
            (i, n) = (i + 1, n + 1);
        }
        p += 1;
    }
    all
}

/// Whether `name` is an instance of `pattern` (each placeholder stands for one dotless segment;
/// `errors.<kind>` for a failure kind).
pub fn matches(pattern: &str, name: &str) -> bool {
    let p: Vec<&str> = pattern.split('.').collect();
    let n: Vec<&str> = name.split('.').collect();
    p.len() == n.len()
        && p.iter()
            .zip(&n)
            .all(|(p, n)| p == n || (p.starts_with('<') && !n.is_empty()))
}

/// The catalogue entry describing `name`. A windowed name, `window.<w>.<metric>`, is
/// described by its metric's entry.
pub fn describe(name: &str) -> Option<&'static MetricDoc> {
    let name = windowed(name).unwrap_or(name);
    let whole = whole_of(name);
    CATALOGUE.iter().find(|d| matches(d.pattern, &whole))
}

/// A part's metric named as its whole's (`service.api.op.login.arrivals` →
/// `service.api.arrivals`), which says what it measures; other names as they are.
pub fn whole_of(name: &str) -> String {
    if !super::select::is_part(name) {
        return name.to_string();
    }
    let at = if name.starts_with("edge.") { 3 } else { 2 };
    let mut segments: Vec<&str> = name.split('.').collect();
    segments.drain(at..at + 2);
    segments.join(".")
}

/// The metric a `window.<w>.<metric>` name measures.
pub fn windowed(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("window.")?;
    rest.split_once('.').map(|(_, metric)| metric)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_concrete_names() {
        assert!(matches("client.<c>.requests", "client.web.requests"));
        assert!(matches(
            "edge.<from>.<to>.errors.<kind>",
            "edge.api.db.errors.timeout"
        ));
        assert!(!matches("client.<c>.requests", "client.web.success"));
        assert_eq!(
            describe("service.db.utilization").map(|d| d.unit),
            Some("ratio")
        );
    }
}
