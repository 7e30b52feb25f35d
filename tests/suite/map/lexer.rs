//! Rust source as the definition scanner reads it.

/// Rust source as identifiers and punctuation (`::` one token), without comments, strings,
/// characters, lifetimes or numbers.
pub(super) fn rust_tokens(source: &str) -> Vec<String> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let at = |k: usize| chars.get(k).copied().unwrap_or('\0');
    // The end of the run of letters, digits and `_` from `k`.
    let word_end = |mut k: usize| {
        while k < chars.len() && (chars[k].is_alphanumeric() || chars[k] == '_') {
            k += 1;
        }
        k
    };
    // The `#`s from `k`: how many, and where they end.
    let hashes_from = |mut k: usize| {
        let start = k;
        while at(k) == '#' {
            k += 1;
        }
        (k - start, k)
    };
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if (c == 'r' || (c == 'b' && at(i + 1) == 'r'))
            && at(hashes_from(i + 1 + usize::from(c == 'b')).1) == '"'
        {
            // A raw string: r"…", r#"…"#, br"…".
            let (hashes, quote) = hashes_from(i + 1 + usize::from(c == 'b'));
            let mut k = quote + 1;
            loop {
                if k >= chars.len() {
                    break;
                }
                if chars[k] == '"' && (1..=hashes).all(|h| at(k + h) == '#') {
                    k += 1 + hashes;
                    break;
                }
                k += 1;
            }
            i = k;
        } else if c == '"' || (c == 'b' && at(i + 1) == '"') {
            let mut k = i + if c == 'b' { 2 } else { 1 };
            while k < chars.len() && chars[k] != '"' {
                k += if chars[k] == '\\' { 2 } else { 1 };
            }
            i = k + 1;
        } else if c == '\'' || (c == 'b' && at(i + 1) == '\'') {
            let k = i + if c == 'b' { 1 } else { 0 };
            if at(k + 1) == '\\' {
                // An escaped character: to the closing quote.
                let mut e = k + 2;
                while e < chars.len() && chars[e] != '\'' {
                    e += 1;
                }
                i = e + 1;
            } else if at(k + 2) == '\'' {
                i = k + 3;
            } else {
                // A lifetime or a label: its name is no identifier of the file's.
                i = word_end(k + 1);
            }
        } else if c.is_ascii_digit() {
            i = word_end(i);
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            i = word_end(i);
            out.push(chars[start..i].iter().collect());
        } else if c == ':' && at(i + 1) == ':' {
            out.push("::".to_string());
            i += 2;
        } else {
            out.push(c.to_string());
            i += 1;
        }
    }
    out
}
