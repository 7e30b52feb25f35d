//! Name patterns on the command line: `*` matches any run of characters (`scenarios/*.toml`,
//! `client.*.goodput_rps`); everything else matches itself.

pub fn matches(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, rest)) => {
            let Some(tail) = name.strip_prefix(head) else {
                return false;
            };
            (0..=tail.len())
                .filter(|&k| tail.is_char_boundary(k))
                .any(|k| matches(rest, &tail[k..]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn stars_match_runs_of_characters() {
        assert!(matches("*.toml", "a.toml"));
        assert!(matches("retry-*.toml", "retry-storm.toml"));
        assert!(!matches("*.toml", "a.json"));
        assert!(matches("a*b*c", "axxbyyc"));
        assert!(!matches("a*b*c", "axxbyy"));
        assert!(matches("client.*.goodput_rps", "client.web.goodput_rps"));
        assert!(!matches("client.web", "client.web.goodput_rps"));
    }
}
