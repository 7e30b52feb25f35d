//! `--shard K/N`: the runs of slice K (1-based, as nextest and Playwright count) out of N.
//! Runs are dealt round-robin by plan index, so every slice gets a fair share of every point
//! (a grid's expensive corner does not all land on one machine).

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 1..=n
    pub k: usize,
    pub n: usize,
}

impl Shard {
    pub const ALL: Shard = Shard { k: 1, n: 1 };

    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || {
            format!(
                "--shard expects K/N with 1 <= K <= N (like 2/8), got `{text}`; a 0-based index i is ${{i+1}}/N"
            )
        };
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (k, n) = (
            k.trim().parse::<usize>().map_err(|_| bad())?,
            n.trim().parse::<usize>().map_err(|_| bad())?,
        );
        if k == 0 || n == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }

    pub fn contains(self, index: usize) -> bool {
        index % self.n == self.k - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_partition_the_runs() {
        let shards: Vec<Shard> = (1..=3)
            .map(|k| Shard::parse(&format!("{k}/3")).unwrap())
            .collect();
        for i in 0..20 {
            assert_eq!(shards.iter().filter(|s| s.contains(i)).count(), 1);
        }
        assert!(Shard::parse("2/3").unwrap().contains(1));
        assert!(Shard::ALL.contains(17));
        for bad in ["0/3", "4/3", "1/0", "3", "a/b", "1/3/4"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }
}
