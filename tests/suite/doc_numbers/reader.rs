//! Reading a document as it prints its figures: the first number in a text (with its
//! decimals, and whether it is a percentage), the number right after a label, and the rows of
//! a table found by its header row.

/// A figure as a document prints it: its value, its decimals, and whether it is a percentage.
#[derive(Debug)]
pub(super) struct Shown {
    pub(super) text: String,
    pub(super) value: f64,
    pub(super) decimals: usize,
    pub(super) percent: bool,
}

/// The first number in `text` (digits with `,` thousands separators and a `.` fraction), with a
/// `%` or ` %` after it read as a percentage; None when there is none.
pub(super) fn first_number(text: &str) -> Option<Shown> {
    let start = text.find(|c: char| c.is_ascii_digit())?;
    let rest = &text[start..];
    let end = rest
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || ((c == '.' || c == ',')
                    && rest[i + 1..].starts_with(|d: char| d.is_ascii_digit())))
        })
        .map_or(rest.len(), |(i, _)| i);
    let number = &rest[..end];
    let after = rest[end..].trim_start_matches(' ');
    Some(Shown {
        text: number.to_string(),
        value: number.replace(',', "").parse().unwrap(),
        decimals: number.split_once('.').map_or(0, |(_, f)| f.len()),
        percent: after.starts_with('%'),
    })
}

/// The number right after `label` in `text`.
pub(super) fn number_after(text: &str, label: &str) -> Option<Shown> {
    let at = text.find(label)? + label.len();
    first_number(&text[at..]).filter(|_| text[at..].starts_with(|c: char| c.is_ascii_digit()))
}

/// The rows of the table under `header` in `text`, each as its cells, trimmed.
pub(super) fn rows<'a>(doc: &str, text: &'a str, header: &str) -> Vec<Vec<&'a str>> {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim() == header)
        .unwrap_or_else(|| panic!("{doc}: no table with the header `{header}`"));
    lines[at + 2..]
        .iter()
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            l.trim()
                .trim_matches('|')
                .split(" | ")
                .map(str::trim)
                .collect()
        })
        .collect()
}
