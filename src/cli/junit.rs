//! JUnit XML for `cascade check`: one testsuite per scenario, one testcase per expectation
//! (and per gated baseline metric), so CI systems show each verdict.

use super::check::Checked;
use cascade::output::text_table::escape_xml as xml;

pub fn junit(checked: &[Checked]) -> String {
    let total: usize = checked.iter().map(|c| c.verdicts.len()).sum();
    let failed: usize = checked
        .iter()
        .map(|c| c.verdicts.iter().filter(|v| !v.passed).count())
        .sum();
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"cascade check\" tests=\"{total}\" failures=\"{failed}\">\n"
    );
    for c in checked {
        let f = c.verdicts.iter().filter(|v| !v.passed).count();
        out.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{f}\">\n",
            xml(&c.name),
            c.verdicts.len()
        ));
        for v in &c.verdicts {
            out.push_str(&format!(
                "    <testcase classname=\"{}\" name=\"{}\"",
                xml(&c.name),
                xml(&v.label)
            ));
            if v.passed {
                out.push_str("/>\n");
            } else {
                out.push_str(&format!(
                    ">\n      <failure message=\"measured {}\"/>\n    </testcase>\n",
                    xml(&cascade::number::exact(v.measured))
                ));
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}
