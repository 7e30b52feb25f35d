//! `[[alert]]`s against faults, one table for both readers: the report's Alerts section
//! (`report/summary.rs`, from summary.json) and `cascade run`'s stdout (`render_alerts`, from
//! the run's metrics in memory). Both read the same summary metrics (`alert.<name>.*`,
//! `fault.<i>.alert.<name>.detect_s`), so the two tables say the same thing.

use super::text_table::Table;
use crate::metrics::names;
use crate::model::Model;
use crate::number::short;

/// Whether each alert fired, when first, for how long, how often outside every fault's window
/// (false pages), and for each fault how soon after its start it fired in the fault's window,
/// or that it missed it; `metric` reads a summary metric by name. `None` without alerts.
pub fn alert_table(model: &Model, metric: impl Fn(&str) -> Option<f64>) -> Option<Table> {
    if model.alerts.is_empty() {
        return None;
    }
    let faults = model.faults.len();
    let mut header: Vec<String> = [
        "alert",
        "fired",
        "first fired (s)",
        "firing (s)",
        "false pages",
    ]
    .iter()
    .map(|h| h.to_string())
    .collect();
    header.extend((0..faults).map(|i| format!("fault {i}: detected after")));
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut numeric = vec![false, false, true, true, true];
    numeric.extend(std::iter::repeat_n(true, faults));
    let mut t = Table::with_numeric(&header, &numeric);
    let get = |name: String| metric(&name);
    for a in &model.alerts {
        let fired = get(names::alert_metric(&a.name, "fired")).unwrap_or(0.0) > 0.0;
        let mut row = vec![
            a.name.clone(),
            if fired { "yes" } else { "no" }.to_string(),
            get(names::alert_metric(&a.name, "first_fire_s")).map_or("–".into(), short),
            short(get(names::alert_metric(&a.name, "firing_s")).unwrap_or(0.0)),
            short(get(names::alert_metric(&a.name, "false_pages")).unwrap_or(0.0)),
        ];
        row.extend((0..faults).map(|i| {
            get(names::fault_alert_detect(i, &a.name))
                .map_or("missed".to_string(), |s| format!("{} s", short(s)))
        }));
        t.row(row);
    }
    Some(t)
}

/// The alerts table as `cascade run` prints it, after the faults' (as that one, a blank line
/// then the table); nothing at all for a scenario without alerts.
pub fn render_alerts(model: &Model, metric: impl Fn(&str) -> Option<f64>) -> String {
    alert_table(model, metric).map_or_else(String::new, |t| format!("\n{}", t.render()))
}
