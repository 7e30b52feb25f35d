//! The event queue: a binary min-heap ordered by (time, insertion sequence), so events at the
//! same instant run first-in first-out and no tie is ever broken by anything else.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// `key` is `time << 64 | seq`: one integer comparison orders by time, then insertion.
struct Entry<E> {
    key: u128,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap and we want the earliest first.
        other.key.cmp(&self.key)
    }
}

pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
            next_seq: 0,
        }
    }
}

impl<E> EventQueue<E> {
    pub fn push(&mut self, time: u64, event: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry {
            key: (u128::from(time) << 64) | u128::from(seq),
            event,
        });
    }

    /// Re-inserts an event just popped, ahead of any event with the same time.
    pub fn push_front(&mut self, time: u64, event: E) {
        // Sequence 0 sorts before every remaining event of the same time; only one event is
        // ever put back (the first one past the end of a run), so it meets no other 0.
        self.heap.push(Entry {
            key: u128::from(time) << 64,
            event,
        });
    }

    /// The time of the earliest event.
    pub fn peek_time(&self) -> Option<u64> {
        self.heap.peek().map(|e| (e.key >> 64) as u64)
    }

    pub fn pop(&mut self) -> Option<(u64, E)> {
        self.heap.pop().map(|e| ((e.key >> 64) as u64, e.event))
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_and_ties_in_insertion_order() {
        let mut q = EventQueue::default();
        q.push(5, 'c');
        q.push(1, 'a');
        q.push(5, 'd');
        q.push(3, 'b');
        q.push(5, 'e');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'c', 'd', 'e']);
    }

    #[test]
    fn matches_a_sorted_order_on_many_keys() {
        let mut q = EventQueue::default();
        let mut x: u64 = 12345;
        let mut expected = Vec::new();
        for i in 0..2000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let t = (x >> 40) % 100;
            q.push(t, i);
            expected.push((t, i));
        }
        expected.sort();
        let got: Vec<(u64, u64)> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn pushed_back_event_runs_before_its_ties() {
        let mut q = EventQueue::default();
        q.push(7, 'x');
        q.push(7, 'y');
        let (t, e) = q.pop().unwrap();
        q.push_front(t, e);
        assert_eq!(q.pop(), Some((7, 'x')));
        assert_eq!(q.pop(), Some((7, 'y')));
    }
}
