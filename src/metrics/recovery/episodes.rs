//! Faults in time: which act together (an episode), and the steady span each episode is judged
//! against (its baseline).

use crate::model::Model;

/// Faults whose active spans overlap or touch, judged as one: an outage and its cache's branch
/// fault over the same window would otherwise get two identical verdicts, and the second's
/// "before" would be the first's "during".
#[derive(Debug, Clone, PartialEq)]
pub struct Episode {
    /// The faults' positions in `[[fault]]`, ascending.
    pub faults: Vec<usize>,
    /// The first start and the last end of its faults, ns from t = 0.
    pub start: u64,
    pub end: u64,
}

/// The model's faults grouped into episodes, in order of their start.
pub fn episodes(model: &Model) -> Vec<Episode> {
    let mut order: Vec<usize> = (0..model.faults.len()).collect();
    order.sort_by_key(|&i| (model.faults[i].start, i));
    let mut out: Vec<Episode> = Vec::new();
    for i in order {
        let f = &model.faults[i];
        match out.last_mut() {
            Some(e) if f.start <= e.end => {
                e.faults.push(i);
                e.faults.sort_unstable();
                e.end = e.end.max(f.end);
            }
            _ => out.push(Episode {
                faults: vec![i],
                start: f.start,
                end: f.end,
            }),
        }
    }
    out
}

/// Why an episode has no baseline, in words for the fault table.
#[derive(Debug, Clone, PartialEq)]
pub enum Unjudged {
    /// It starts before a whole measured bucket has passed since the warm-up (or since the
    /// span it must start after).
    NoSteadySpan,
    /// The episode before it did not come back (or could not be judged), so no span after it
    /// is known to be steady: name one with the fault's `baseline`.
    AfterUnrecovered { previous: usize },
}

/// Where the baseline span of episode `k` starts, ns, given where the previous episode's
/// goodput came back (`settled`: the first bucket of its hold; `None` when it did not, or was
/// not judged). An episode that ended by the warm-up's end leaves nothing to wait for.
pub fn default_baseline_start(
    model: &Model,
    previous: Option<(&Episode, Option<u64>)>,
) -> Result<u64, Unjudged> {
    match previous {
        None => Ok(model.warmup),
        Some((e, _)) if e.end <= model.warmup => Ok(model.warmup),
        Some((_, Some(settled))) => Ok(settled.max(model.warmup)),
        Some((e, None)) => Err(Unjudged::AfterUnrecovered {
            previous: e.faults[0],
        }),
    }
}

/// The buckets wholly inside [start, end): the baseline's, or none.
pub fn whole_buckets(start: u64, end: u64, bucket: u64) -> std::ops::Range<usize> {
    let first = start.div_ceil(bucket) as usize;
    let last = (end / bucket) as usize;
    first..last.max(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_and_touching_faults_are_one_episode_and_apart_ones_are_not() {
        let text = r#"
[scenario]
name = "e"
duration = "100s"
[[client]]
name = "web"
target = "api"
rate = 10
[[service]]
name = "api"
[[fault]]
kind = "outage"
target = "api"
start = "50s"
end = "60s"
[[fault]]
kind = "stall"
target = "api"
start = "10s"
end = "20s"
[[fault]]
kind = "errors"
target = "api"
start = "15s"
end = "30s"
[[fault]]
kind = "stall"
target = "api"
start = "30s"
end = "35s"
"#;
        let model = crate::scenario::load_str("e.toml", text, &[])
            .unwrap()
            .model;
        let s = |x: u64| x * 1_000_000_000;
        assert_eq!(
            episodes(&model),
            vec![
                Episode {
                    faults: vec![1, 2, 3],
                    start: s(10),
                    end: s(35)
                },
                Episode {
                    faults: vec![0],
                    start: s(50),
                    end: s(60)
                },
            ]
        );
    }

    #[test]
    fn whole_buckets_leave_out_the_partial_ones_at_either_edge() {
        assert_eq!(whole_buckets(1_500, 4_000, 1_000), 2..4);
        assert_eq!(whole_buckets(2_000, 2_500, 1_000), 2..2);
        assert_eq!(whole_buckets(3_000, 2_000, 1_000), 3..3);
    }
}
