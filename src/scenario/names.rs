//! Kinds a scenario writes as a name (`dist = "gamma"`, `algorithm = "vegas"`). Each kind's
//! enum lists its variants with their names once, in `Named::NAMES`; parsing, the "did you
//! mean" and the list of valid names in the error all read that one table, as serde's derive
//! does for the kinds the schema parses itself (`FaultKind`, `BudgetKind`).

/// A kind written by name.
pub trait Named: Copy + PartialEq + 'static {
    /// What the kind is called in an error: `dist`, `limit algorithm`.
    const WHAT: &'static str;
    /// Every variant with its name, in the order an error lists them.
    const NAMES: &'static [(Self, &'static str)];

    fn name(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(kind, _)| *kind == self)
            .map(|(_, name)| *name)
            .expect("every variant is in NAMES")
    }

    /// The kind named `word`, else the error: "unknown WHAT `word` (did you mean …); valid: …".
    fn parse(word: &str) -> Result<Self, String> {
        cascade_policy::table::parse_name(Self::WHAT, Self::NAMES, word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Colour {
        Red,
        Green,
    }

    impl Named for Colour {
        const WHAT: &'static str = "colour";
        const NAMES: &'static [(Colour, &'static str)] =
            &[(Colour::Red, "red"), (Colour::Green, "green")];
    }

    #[test]
    fn a_name_reads_both_ways_and_an_unknown_one_lists_the_valid_names() {
        assert_eq!(Colour::parse("green"), Ok(Colour::Green));
        assert_eq!(Colour::Red.name(), "red");
        assert_eq!(
            Colour::parse("gren"),
            Err("unknown colour `gren` (did you mean `green`?); valid: red, green".into())
        );
        assert_eq!(
            Colour::parse("blue"),
            Err("unknown colour `blue`; valid: red, green".into())
        );
    }
}
