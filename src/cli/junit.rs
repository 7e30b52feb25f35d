//! JUnit XML for `cascade check`: one testsuite per scenario, one testcase per expectation
//! (and per gated baseline metric), so CI systems show each verdict. A failure says what had
//! to hold, what was measured (with its interval when the whole interval was judged), on which
//! runs and seed, and the command that gives the same verdict again; `time=` is the wall
//! seconds of the runs judged.

use super::check::{Case, Checked};
use cascade::check::Verdict;
use cascade::number::exact;
use cascade::output::text_table::escape_xml as xml;

pub fn junit(checked: &[Checked]) -> String {
    let total: usize = checked.iter().map(|c| c.verdicts.len()).sum();
    let failed: usize = checked
        .iter()
        .map(|c| c.verdicts.iter().filter(|v| !v.passed).count())
        .sum();
    let seconds: f64 = checked.iter().map(|c| c.seconds).sum();
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"cascade check\" tests=\"{total}\" failures=\"{failed}\" time=\"{}\">\n",
        time(seconds)
    );
    for c in checked {
        let f = c.verdicts.iter().filter(|v| !v.passed).count();
        out.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{f}\" time=\"{}\">\n",
            xml(&c.name),
            c.verdicts.len(),
            time(c.seconds)
        ));
        for (v, case) in c.verdicts.iter().zip(&c.cases) {
            out.push_str(&format!(
                "    <testcase classname=\"{}\" name=\"{}\" time=\"{}\"",
                xml(&c.name),
                xml(&v.label),
                time(case.seconds)
            ));
            if v.passed {
                out.push_str("/>\n");
            } else {
                out.push_str(&format!(
                    ">\n      <failure message=\"{}\" type=\"expectation\">{}</failure>\n    </testcase>\n",
                    xml(&format!("{}: measured {}", v.label, measured(v))),
                    xml(&details(v, case, c.seed))
                ));
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// The measured statistic, and its 95% confidence interval when that was judged.
fn measured(v: &Verdict) -> String {
    match v.interval {
        Some((lo, hi)) => format!(
            "{} (95% CI [{}, {}])",
            exact(v.measured),
            exact(lo),
            exact(hi)
        ),
        None => exact(v.measured),
    }
}

/// The failure's body, one fact a line.
fn details(v: &Verdict, case: &Case, seed: u64) -> String {
    format!(
        "\nexpectation: {}\nthreshold:   {}\nmeasured:    {}\nruns:        {}\nseed:        {seed}\nreproduce:   {}\n",
        v.label,
        case.threshold,
        measured(v),
        case.judged,
        case.reproduce
    )
}

/// Seconds as JUnit readers take them: a decimal with millisecond resolution.
fn time(seconds: f64) -> String {
    format!("{seconds:.3}")
}
