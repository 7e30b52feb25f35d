//! A table's keys against the keys its kind takes. A fault, a budget, a distribution and a
//! limit each have one table for every kind, and each kind takes only some of its keys: a key
//! meant for another kind is an error, never silently ignored. Each caller words its own
//! message and names its own field; this is the one check they share.

/// The first key set in `given` that `allowed` does not list: the policy crate's, whose
/// tables refuse keys of another kind the same way.
pub use cascade_policy::table::stray_key;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_first_key_set_that_the_kind_does_not_take() {
        let given = [
            ("rate", false),
            ("factor", true),
            ("mode", true),
            ("add", true),
        ];
        assert_eq!(stray_key(&given, &["factor", "add"]), Some("mode"));
        assert_eq!(stray_key(&given, &["add"]), Some("factor"));
        assert_eq!(stray_key(&given, &["factor", "mode", "add"]), None);
        // A key that is not set is never a stray, whatever the kind takes.
        assert_eq!(stray_key(&[("rate", false)], &[]), None);
        assert_eq!(stray_key(&[("rate", true)], &[]), Some("rate"));
    }
}
