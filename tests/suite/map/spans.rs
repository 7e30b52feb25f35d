//! What a backticked text is: a name, a pattern, a file, a directory or something else (the
//! module doc's **Spans**).

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Kind {
    Name,
    Pattern,
    File,
    Dir,
    Other,
}

pub(super) fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A name span without its call arguments: `Source::error_at(path, message)` is
/// `Source::error_at`.
pub(super) fn name_of(span: &str) -> &str {
    match span.find('(') {
        Some(at) if span.ends_with(')') => &span[..at],
        _ => span,
    }
}

pub(super) fn kind(span: &str) -> Kind {
    let path_char = |c: char| c.is_ascii_alphanumeric() || "_-./<>".contains(c);
    if span.ends_with(".rs") && span.chars().all(path_char) {
        return if span.contains('<') {
            Kind::Pattern
        } else {
            Kind::File
        };
    }
    if span.len() > 1 && span.ends_with('/') && span.chars().all(path_char) {
        return Kind::Dir;
    }
    if name_of(span).split("::").all(is_ident) {
        return Kind::Name;
    }
    let pattern_char = |c: char| c.is_ascii_alphanumeric() || "_:<>".contains(c);
    if span.contains('<') && span.contains('>') && span.chars().all(pattern_char) {
        return Kind::Pattern;
    }
    Kind::Other
}
