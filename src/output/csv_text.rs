//! CSV as every result file holds it, through the `csv` crate: `\n` line ends, and a field
//! quoted only when it must be (a comma, a double quote or a line break in it). Writers format
//! their numbers themselves (`crate::number::exact`), so the crate only joins and quotes;
//! readers get the same splitting and unquoting, never a hand-written one.

use crate::atomic::io_error;
use crate::error::{Error, Result};
use serde::Serialize;
use std::path::Path;

/// A CSV text being built in memory.
pub struct CsvText(csv::Writer<Vec<u8>>);

impl Default for CsvText {
    fn default() -> Self {
        CsvText(writer(Vec::new()))
    }
}

/// The same CSV written straight to `sink`, for a file too large to build in memory first.
/// Headers are written as records: a file with no rows still gets its header.
pub fn writer<W: std::io::Write>(sink: W) -> csv::Writer<W> {
    csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(sink)
}

/// Writing to memory fails only on a row type csv cannot flatten (a nested list), which is a
/// bug in the row's definition, not in any input.
const IN_MEMORY: &str = "a CSV row of plain fields, written to memory";

impl CsvText {
    /// One record of text fields: a header, or a row whose columns are known only at run time.
    pub fn record<I, T>(&mut self, fields: I)
    where
        I: IntoIterator<Item = T>,
        T: AsRef<[u8]>,
    {
        self.0.write_record(fields).expect(IN_MEMORY);
    }

    /// One row from a serde row type, its fields in declaration order.
    pub fn row(&mut self, row: &impl Serialize) {
        self.0.serialize(row).expect(IN_MEMORY);
    }

    pub fn finish(self) -> String {
        let bytes = self.0.into_inner().expect(IN_MEMORY);
        String::from_utf8(bytes).expect("UTF-8 fields give UTF-8 text")
    }
}

/// A result CSV file's text, to be read with `reader`.
pub fn read_text(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(io_error(path))
}

/// A reader over CSV text whose first record is the header. Every row must have as many
/// fields as the header.
pub fn reader(text: &str) -> csv::Reader<&[u8]> {
    csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(text.as_bytes())
}

/// A CSV error in a result file, as a usage error naming the file (csv's message names the
/// line and the field).
pub fn csv_error(path: &Path) -> impl FnOnce(csv::Error) -> Error + '_ {
    move |e| Error::Usage(format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_only_what_must_be_quoted() {
        let mut w = CsvText::default();
        w.record(["a", "b,c", "say \"hi\"", "", "two\nlines", "1.5"]);
        w.record(["x", "", "", "", "", ""]);
        assert_eq!(
            w.finish(),
            "a,\"b,c\",\"say \"\"hi\"\"\",,\"two\nlines\",1.5\nx,,,,,\n"
        );
    }

    #[test]
    fn what_is_written_reads_back_field_for_field() {
        let rows = [
            ["point", "variant", "note"],
            ["0", "base", "plain"],
            ["1", "with,comma", "with \"quotes\""],
            ["2", "", "line\nbreak"],
        ];
        let mut w = CsvText::default();
        for r in &rows {
            w.record(r);
        }
        let text = w.finish();
        let mut r = reader(&text);
        assert_eq!(r.headers().unwrap(), &rows[0][..]);
        let back: Vec<Vec<String>> = r
            .records()
            .map(|rec| rec.unwrap().iter().map(String::from).collect())
            .collect();
        assert_eq!(back, rows[1..]);
    }

    #[test]
    fn a_row_with_a_field_too_many_is_an_error_naming_the_file() {
        let mut r = reader("a,b\n1,2\n3,4,5\n");
        let path = Path::new("points.csv");
        let err = r
            .records()
            .find_map(|rec| rec.err())
            .map(|e| csv_error(path)(e).to_string())
            .unwrap();
        assert!(err.starts_with("points.csv: "), "{err}");
        assert!(err.contains("line: 3"), "{err}");
    }
}
