//! A slab of values addressed by `u32` index with a generation, so a stale reference (a timer
//! for a call that has since finished and whose slot was reused) is recognised, not followed.
//!
//! A slot's generation is odd while it holds a value and even once freed; a reference carries
//! the odd generation it was given. So one comparison tells a live value from a stale or freed
//! one, and a freed value stays in its slot (unreachable) until the slot is taken again.

use std::num::NonZeroU32;

/// A reference into an `Arena`: slot index plus the generation the slot had when it was taken.
/// Generations of references are odd, so never zero, and `Option<Ref>` takes no more room
/// than `Ref`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ref {
    pub index: u32,
    pub generation: NonZeroU32,
}

impl Ref {
    /// Which use of its slot this is: 1 for the first value the slot held, 2 for the next…
    /// (generations advance by two per use: one on insert, one on free).
    pub fn use_number(&self) -> u32 {
        self.generation.get().div_ceil(2)
    }
}

pub struct Arena<T> {
    slots: Vec<Slot<T>>,
    free: Vec<u32>,
    live: usize,
}

struct Slot<T> {
    /// Odd: holds `value`. Even: free (`value` is a leftover nobody can reach).
    generation: u32,
    value: T,
}

impl<T> Slot<T> {
    fn holds(&self, r: Ref) -> bool {
        self.generation == r.generation.get()
    }
}

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena {
            slots: Vec::new(),
            free: Vec::new(),
            live: 0,
        }
    }
}

impl<T> Arena<T> {
    // Forced inline: with a second caller for jobs (a probe's, `probes.rs`) LLVM made it a
    // call of its own, which cost the plain path 23 instructions a request (bench-mmc).
    #[inline(always)]
    pub fn insert(&mut self, value: T) -> Ref {
        self.live += 1;
        let index = if let Some(index) = self.free.pop() {
            let slot = &mut self.slots[index as usize];
            slot.generation = slot.generation.wrapping_add(1);
            slot.value = value;
            index
        } else {
            let index =
                u32::try_from(self.slots.len()).expect("more than 4 billion requests in flight");
            self.slots.push(Slot {
                generation: 1,
                value,
            });
            index
        };
        let generation = self.slots[index as usize].generation;
        Ref {
            index,
            generation: NonZeroU32::new(generation).expect("a live generation is odd"),
        }
    }

    pub fn get(&self, r: Ref) -> Option<&T> {
        let slot = self.slots.get(r.index as usize)?;
        slot.holds(r).then_some(&slot.value)
    }

    pub fn get_mut(&mut self, r: Ref) -> Option<&mut T> {
        let slot = self.slots.get_mut(r.index as usize)?;
        slot.holds(r).then_some(&mut slot.value)
    }

    /// Frees the slot, handing back a copy of its value; later references with this
    /// generation no longer resolve.
    pub fn remove(&mut self, r: Ref) -> Option<T>
    where
        T: Clone,
    {
        let value = self.get(r)?.clone();
        self.release(r.index);
        Some(value)
    }

    /// Frees the slot like `remove`, leaving the value where it is: a caller that has already
    /// read what it needs saves moving a large value out. Returns whether `r` was live.
    pub fn free(&mut self, r: Ref) -> bool {
        if self.get(r).is_none() {
            return false;
        }
        self.release(r.index);
        true
    }

    fn release(&mut self, index: u32) {
        let slot = &mut self.slots[index as usize];
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(index);
        self.live -= 1;
    }

    /// Every value held, with its reference, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (Ref, &T)> {
        self.slots.iter().enumerate().filter_map(|(i, s)| {
            let generation = NonZeroU32::new(s.generation).filter(|g| g.get() % 2 == 1)?;
            Some((
                Ref {
                    index: i as u32,
                    generation,
                },
                &s.value,
            ))
        })
    }

    /// Values currently held.
    pub fn len(&self) -> usize {
        self.live
    }

    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// MetricSlots ever allocated: the high-water mark of values held at once.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuses_slots_and_rejects_stale_refs() {
        let mut a = Arena::default();
        let r1 = a.insert("one");
        assert_eq!(a.get(r1), Some(&"one"));
        assert_eq!(a.remove(r1), Some("one"));
        assert_eq!(a.get(r1), None);
        let r2 = a.insert("two");
        assert_eq!(r2.index, r1.index, "slot is reused");
        assert_eq!((r1.use_number(), r2.use_number()), (1, 2));
        assert_ne!(r2.generation, r1.generation);
        assert_eq!(
            a.get(r1),
            None,
            "stale reference does not see the new value"
        );
        assert_eq!(a.remove(r1), None);
        assert!(!a.free(r1), "a stale reference frees nothing");
        assert_eq!(a.len(), 1);
        assert!(a.free(r2));
        assert_eq!((a.get(r2), a.len()), (None, 0));
        assert_eq!(a.capacity(), 1);
        let r3 = a.insert("three");
        assert_eq!(a.iter().collect::<Vec<_>>(), vec![(r3, &"three")]);
    }

    #[test]
    fn generations_wrap_around_without_reviving_old_refs() {
        let mut a = Arena::default();
        a.insert(0u8);
        a.slots[0].generation = u32::MAX;
        let last = Ref {
            index: 0,
            generation: NonZeroU32::new(u32::MAX).unwrap(),
        };
        assert!(a.free(last));
        let next = a.insert(1);
        assert_eq!(
            next.generation.get(),
            1,
            "past u32::MAX the generation starts over"
        );
        assert_eq!(a.get(last), None);
        assert_eq!(a.get(next), Some(&1));
    }
}
