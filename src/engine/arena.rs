//! A slab of values addressed by `u32` index with a generation, so a stale reference (a timer
//! for a call that has since finished and whose slot was reused) is recognised, not followed.

use std::num::NonZeroU32;

/// A reference into an `Arena`: slot index plus the generation the slot had when it was taken.
/// Generations are never zero, so `Option<Ref>` takes no more room than `Ref`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ref {
    pub index: u32,
    pub generation: NonZeroU32,
}

pub struct Arena<T> {
    slots: Vec<Slot<T>>,
    free: Vec<u32>,
    live: usize,
}

struct Slot<T> {
    generation: NonZeroU32,
    value: Option<T>,
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
    pub fn insert(&mut self, value: T) -> Ref {
        self.live += 1;
        if let Some(index) = self.free.pop() {
            let slot = &mut self.slots[index as usize];
            slot.value = Some(value);
            Ref {
                index,
                generation: slot.generation,
            }
        } else {
            let index =
                u32::try_from(self.slots.len()).expect("more than 4 billion requests in flight");
            self.slots.push(Slot {
                generation: NonZeroU32::MIN,
                value: Some(value),
            });
            Ref {
                index,
                generation: NonZeroU32::MIN,
            }
        }
    }

    pub fn get(&self, r: Ref) -> Option<&T> {
        let slot = self.slots.get(r.index as usize)?;
        if slot.generation == r.generation {
            slot.value.as_ref()
        } else {
            None
        }
    }

    pub fn get_mut(&mut self, r: Ref) -> Option<&mut T> {
        let slot = self.slots.get_mut(r.index as usize)?;
        if slot.generation == r.generation {
            slot.value.as_mut()
        } else {
            None
        }
    }

    /// Frees the slot; later references with this generation no longer resolve.
    pub fn remove(&mut self, r: Ref) -> Option<T> {
        let value = self.live_slot(r)?.value.take();
        self.release(r.index);
        value
    }

    /// Frees the slot like `remove`, dropping the value in place: a caller that has already
    /// read what it needs saves moving a large value out. Returns whether `r` was live.
    pub fn free(&mut self, r: Ref) -> bool {
        let Some(slot) = self.live_slot(r) else {
            return false;
        };
        slot.value = None;
        self.release(r.index);
        true
    }

    fn live_slot(&mut self, r: Ref) -> Option<&mut Slot<T>> {
        let slot = self.slots.get_mut(r.index as usize)?;
        (slot.generation == r.generation && slot.value.is_some()).then_some(slot)
    }

    fn release(&mut self, index: u32) {
        let slot = &mut self.slots[index as usize];
        slot.generation = slot.generation.checked_add(1).unwrap_or(NonZeroU32::MIN);
        self.free.push(index);
        self.live -= 1;
    }

    /// Every value held, with its reference, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (Ref, &T)> {
        self.slots.iter().enumerate().filter_map(|(i, s)| {
            s.value.as_ref().map(|v| {
                (
                    Ref {
                        index: i as u32,
                        generation: s.generation,
                    },
                    v,
                )
            })
        })
    }

    /// Values currently held.
    pub fn len(&self) -> usize {
        self.live
    }

    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Slots ever allocated: the high-water mark of values held at once.
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
    }
}
