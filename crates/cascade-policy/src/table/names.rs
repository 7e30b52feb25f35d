//! Names in a table: the closest valid name to a typo ("did you mean"), a kind written by
//! name, a key that does not apply to the kind chosen, and the characters a name may use.
//! cascade's scenario language reports its own names through these too.

/// The candidate closest to `word` by edit distance, if close enough to be a typo of it.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(2);
    // Ties go to the candidate sharing the longest prefix (`medain` is `median`, not `mean`).
    candidates
        .into_iter()
        .map(|c| (strsim::levenshtein(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, std::cmp::Reverse(common_prefix(word, c))))
        .map(|(_, c)| c)
}

/// ` (did you mean `x`?)` for the closest candidate, or nothing: ready to append to a message.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(word, candidates)
        .map(|b| format!(" (did you mean `{b}`?)"))
        .unwrap_or_default()
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
}

/// The kind named `word` among `names`, else the error: "unknown WHAT `word` (did you mean
/// …); valid: …".
pub fn parse_name<T: Copy>(what: &str, names: &[(T, &str)], word: &str) -> Result<T, String> {
    if let Some((kind, _)) = names.iter().find(|(_, name)| *name == word) {
        return Ok(*kind);
    }
    let all = || names.iter().map(|(_, name)| *name);
    let hint = did_you_mean(word, all());
    let valid = all().collect::<Vec<_>>().join(", ");
    Err(format!("unknown {what} `{word}`{hint}; valid: {valid}"))
}

/// The first key set in `given` (keys as written, each with whether the table sets it, in the
/// order an error should name them) that `allowed` does not list.
pub fn stray_key<'a>(given: &[(&'a str, bool)], allowed: &[&str]) -> Option<&'a str> {
    given
        .iter()
        .find(|(key, set)| *set && !allowed.contains(key))
        .map(|(key, _)| *key)
}

/// A name (a pool's, a service's): letters, digits, `-` and `_`, at least one.
pub fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{name}` is not a valid name: use letters, digits, `-` and `_`"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        let keys = ["workers", "instances", "queue"];
        assert_eq!(closest("wrkers", keys), Some("workers"));
        assert_eq!(closest("instance", keys), Some("instances"));
        assert_eq!(closest("zzzzzzzz", keys), None);
        assert_eq!(closest("medain", ["mean", "median"]), Some("median"));
    }

    #[test]
    fn a_kind_reads_by_name_and_an_unknown_one_lists_the_valid_names() {
        let names = [(1, "red"), (2, "green")];
        assert_eq!(parse_name("colour", &names, "green"), Ok(2));
        assert_eq!(
            parse_name("colour", &names, "gren"),
            Err("unknown colour `gren` (did you mean `green`?); valid: red, green".into())
        );
    }

    #[test]
    fn names_the_first_stray_key_and_refuses_bad_names() {
        let given = [("a", true), ("b", false), ("c", true)];
        assert_eq!(stray_key(&given, &["a"]), Some("c"));
        assert_eq!(stray_key(&given, &["a", "c"]), None);
        assert!(check_name("pool-1_a").is_ok());
        assert!(check_name("a b").is_err());
        assert!(check_name("").is_err());
    }
}
