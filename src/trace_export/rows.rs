//! The `--trace` CSV rows as the span builder reads them back: the text the engine's `Trace`
//! wrote, so a trace of spans is built from exactly the rows a CSV trace would hold.

/// One row: `time_ns,request,parent,entity,event,outcome,detail`.
#[derive(Debug)]
pub struct Row<'a> {
    pub time: u64,
    pub request: &'a str,
    pub parent: &'a str,
    pub entity: &'a str,
    pub event: &'a str,
    pub outcome: &'a str,
    pub detail: &'a str,
}

impl Row<'_> {
    /// The value of `key` in the detail's space-separated `key=value` pairs.
    pub fn detail(&self, key: &str) -> Option<&str> {
        self.detail
            .split(' ')
            .find_map(|pair| pair.strip_prefix(key)?.strip_prefix('='))
    }
}

/// The rows of `csv` after its header. No field the engine writes holds a comma, so a row
/// splits on them; a row that does not (never written by the engine) is an error naming it.
pub fn parse(csv: &str) -> Result<Vec<Row<'_>>, String> {
    csv.lines()
        .enumerate()
        .skip(1)
        .map(|(n, line)| {
            let f: Vec<&str> = line.splitn(7, ',').collect();
            let time = f[0].parse::<u64>().ok();
            match (time, f.len()) {
                (Some(time), 7) => Ok(Row {
                    time,
                    request: f[1],
                    parent: f[2],
                    entity: f[3],
                    event: f[4],
                    outcome: f[5],
                    detail: f[6],
                }),
                _ => Err(format!("trace row {}: not a trace row: {line}", n + 1)),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_columns_and_detail_pairs() {
        let csv = "time_ns,request,parent,entity,event,outcome,detail\n\
                   5,c1.1,j0.1,edge.api.db,retry,,attempt=2 wait=537875\n";
        let rows = parse(csv).unwrap();
        assert_eq!(rows.len(), 1);
        let r = &rows[0];
        assert_eq!((r.time, r.request, r.parent), (5, "c1.1", "j0.1"));
        assert_eq!((r.entity, r.event, r.outcome), ("edge.api.db", "retry", ""));
        assert_eq!(r.detail("wait"), Some("537875"));
        assert_eq!(r.detail("attempt"), Some("2"));
        assert_eq!(r.detail("at"), None);
        assert!(parse("h\n1,2,3\n").unwrap_err().contains("trace row 2"));
    }
}
