//! The event queue: a binary min-heap ordered by (time, insertion sequence), so events at the
//! same instant run first-in first-out and no tie is ever broken by anything else; plus lanes
//! for streams that always have one event pending, merged by the same order.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// The key of a lane with no event pending: after every real key (times stay below 2^64 - 1).
const EMPTY_LANE: u128 = u128::MAX;

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
    /// Streams that always have exactly the next event pending, each scheduled by the one
    /// before (an open-loop client's arrivals): kept beside the heap, one entry per lane, and
    /// merged with it by the same key at `pop`. Half of a simple model's events skip the heap,
    /// and the order is exactly the one the heap alone would give. An empty lane's key is
    /// `u128::MAX`, which no event's key reaches, so the merge compares keys only.
    lane_keys: Vec<u128>,
    lane_events: Vec<Option<E>>,
    next_seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
            lane_keys: Vec::new(),
            lane_events: Vec::new(),
            next_seq: 0,
        }
    }
}

impl<E> EventQueue<E> {
    fn key(&mut self, time: u64) -> u128 {
        let seq = self.next_seq;
        self.next_seq += 1;
        (u128::from(time) << 64) | u128::from(seq)
    }

    pub fn push(&mut self, time: u64, event: E) {
        let key = self.key(time);
        self.heap.push(Entry { key, event });
    }

    /// Schedules the next event of stream `lane`, which must have none pending.
    pub fn push_lane(&mut self, lane: usize, time: u64, event: E) {
        let key = self.key(time);
        if self.lane_keys.len() <= lane {
            self.lane_keys.resize(lane + 1, EMPTY_LANE);
            self.lane_events.resize_with(lane + 1, || None);
        }
        debug_assert!(
            self.lane_events[lane].is_none(),
            "lane {lane} already has its next event"
        );
        self.lane_keys[lane] = key;
        self.lane_events[lane] = Some(event);
    }

    /// The lane whose pending event comes before the heap's first, if any.
    fn earliest_lane(&self) -> Option<usize> {
        let heap_first = self.heap.peek().map_or(EMPTY_LANE, |e| e.key);
        match self.lane_keys.as_slice() {
            [] => None,
            // One open-loop client: the common case, one comparison.
            [only] => (*only < heap_first).then_some(0),
            keys => {
                let (mut best_key, mut best) = (heap_first, None);
                for (i, &key) in keys.iter().enumerate() {
                    if key < best_key {
                        (best_key, best) = (key, Some(i));
                    }
                }
                best
            }
        }
    }

    fn take_lane(&mut self, lane: usize) -> Entry<E> {
        let key = std::mem::replace(&mut self.lane_keys[lane], EMPTY_LANE);
        let event = self.lane_events[lane]
            .take()
            .expect("a lane with a key has an event");
        Entry { key, event }
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
        let key = match self.earliest_lane() {
            Some(i) => Some(self.lane_keys[i]),
            None => self.heap.peek().map(|e| e.key),
        };
        key.map(|k| (k >> 64) as u64)
    }

    pub fn pop(&mut self) -> Option<(u64, E)> {
        let first = match self.earliest_lane() {
            Some(i) => Some(self.take_lane(i)),
            None => self.heap.pop(),
        };
        first.map(|e| ((e.key >> 64) as u64, e.event))
    }

    pub fn len(&self) -> usize {
        self.heap.len() + self.lane_events.iter().filter(|l| l.is_some()).count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
    fn lanes_merge_with_the_heap_in_exactly_the_heaps_order() {
        // The same pushes, once all into the heap and once with 1, 2 or 3 streams in lanes.
        for lanes in 1..=3 {
            lanes_match_the_heap(lanes);
        }
    }

    fn lanes_match_the_heap(lanes: usize) {
        let mut plain = EventQueue::default();
        let mut laned = EventQueue::default();
        let mut x: u64 = 99;
        let mut next = |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        let mut lane_time = vec![0u64; lanes];
        let mut id = 0u64;
        for _ in 0..500 {
            for (lane, t) in lane_time.iter_mut().enumerate() {
                // A lane's next event is scheduled once its previous one has been popped.
                if !laned
                    .lane_events
                    .get(lane)
                    .is_some_and(|l: &Option<_>| l.is_some())
                {
                    *t += next(5);
                    plain.push(*t, (lane as u64, id));
                    laned.push_lane(lane, *t, (lane as u64, id));
                    id += 1;
                }
            }
            let t = lane_time.iter().min().unwrap() + next(4);
            plain.push(t, (9, id));
            laned.push(t, (9, id));
            id += 1;
            assert_eq!(laned.peek_time(), plain.peek_time());
            assert_eq!(laned.len(), plain.len());
            let (a, b) = (plain.pop(), laned.pop());
            assert_eq!(a, b);
        }
        while let Some(e) = plain.pop() {
            assert_eq!(laned.pop(), Some(e));
        }
        assert!(laned.is_empty());
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
