//! What the traces could not give, in the import's skipped list, with span counts: spans
//! with no end or no parent in the file, client spans without a server span, asynchronous
//! links, clock skew.

use super::Options;
use super::span::Names;
use super::tally::{Report, Tally};
use crate::import::out::{Imported, Skipped};

pub(super) fn report_skipped(
    names: &Names,
    tally: &Tally,
    report: &Report,
    opts: &Options,
    at: &str,
    out: &mut Imported,
) {
    let mut out_notes = Vec::new();
    let mut skip = |key: String, reason: String| {
        out.skipped.push(Skipped {
            at: at.to_string(),
            key,
            reason,
        })
    };
    if report.unfinished > 0 {
        skip(
            format!("{} spans", report.unfinished),
            "no end time: still running when the file was written (cut by its end)".into(),
        );
    }
    if report.orphans > 0 {
        skip(
            format!(
                "{} spans in {} traces",
                report.orphans, report.orphan_traces
            ),
            format!(
                "their parent is not in the file (cut by its start or end, or their trace was closed before they came because more than {} traces were open at once: raise --open-traces): their traces give no client request, only their operations' work and calls",
                opts.open_traces
            ),
        );
    }
    for ((op, name), n) in &report.missing_server {
        skip(
            format!(
                "{n} client spans `{}` of `{}` `{}`",
                names.get(*name),
                names.get(op.0),
                names.get(op.1)
            ),
            "no server span under them (an uninstrumented callee, or one outside the file): the callee is unknown, the time counts as a call".into(),
        );
    }
    if report.asynchronous > 0 {
        skip(
            format!("{} spans", report.asynchronous),
            "producer or consumer spans, or links other than the parent: asynchronous hand-offs, not calls".into(),
        );
    }
    if report.no_client_span > 0 {
        skip(
            format!("{} server spans", report.no_client_span),
            "right under another service's span with no client span between: a call, but its network time is unknown".into(),
        );
    }
    if report.server_longer > 0 {
        skip(
            format!("{} server spans", report.server_longer),
            "longer than their client span: no network time from them".into(),
        );
    }
    for ((from, to), e) in &tally.edges {
        if e.skew > 0 {
            skip(
                format!("edge `{}` → `{}`", names.get(*from), names.get(*to)),
                format!(
                    "{} server spans began before their client span: clock skew between the hosts; durations alone are used, each on its own clock",
                    e.skew
                ),
            );
        }
        if e.outlived > 0 {
            out_notes.push(format!(
                "edge `{}` → `{}`: {} server spans ended after their client span: the caller stopped waiting (a timeout or an abandoned call) while the callee worked on; their work is imported, their network time is not",
                names.get(*from),
                names.get(*to),
                e.outlived
            ));
        }
    }
    out.notes.extend(out_notes);
}
