//! Series that would hide one another. A line identical to one drawn before it (a client's
//! offered load and the attempts on its edge to the first service, when nothing retries there)
//! would vanish under it; it is drawn a few pixels higher instead, and its legend entry says
//! which line it repeats and that it is raised.

/// Pixels a repeating line is raised above the line it repeats (and a third one above that).
pub const RAISE_PX: u32 = 3;

/// For each series, the index of the nearest earlier series with the same points (same times,
/// values equal to within a millionth of the larger), or `None`. Empty series repeat nothing.
pub fn repeats(series: &[&[(f64, f64)]]) -> Vec<Option<usize>> {
    (0..series.len())
        .map(|j| {
            if series[j].is_empty() {
                return None;
            }
            (0..j).rev().find(|&i| same(series[i], series[j]))
        })
        .collect()
}

/// How many times line `j` is raised: one more than the line it repeats.
pub fn raise_level(repeats: &[Option<usize>], j: usize) -> u32 {
    match repeats[j] {
        Some(i) => 1 + raise_level(repeats, i),
        None => 0,
    }
}

fn same(a: &[(f64, f64)], b: &[(f64, f64)]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(p, q)| {
            p.0 == q.0 && (p.1 - q.1).abs() <= 1e-6 * p.1.abs().max(q.1.abs()).max(1e-12)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_series_equal_to_an_earlier_one_repeats_it_and_is_raised_above_it() {
        let a = [(0.5, 10.0), (1.5, 20.0)];
        let b = [(0.5, 10.0), (1.5, 21.0)];
        let series: Vec<&[(f64, f64)]> = vec![&a, &b, &a, &a, &[]];
        let r = repeats(&series);
        assert_eq!(r, vec![None, None, Some(0), Some(2), None]);
        assert_eq!(raise_level(&r, 0), 0);
        assert_eq!(raise_level(&r, 2), 1);
        // A third copy stands above the second, not on it.
        assert_eq!(raise_level(&r, 3), 2);
    }
}
