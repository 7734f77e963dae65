//! The ring's table of operations in flight as a slab (book chapter 10, "What it costs";
//! asyncio's `IocpProactor._cache`, a dict keyed by the `OVERLAPPED`'s address, retold
//! as tokio-uring's and monoio's slabs are).
//!
//! A hash map keyed by the operation's number costs a hash and a probe on every submit
//! and every completion. A slab is a `Vec` of slots and a list of the free ones: the key
//! carries its slot's index, so finding an operation is an index. The same slot is used
//! again once its operation completed, so the key carries a *serial number* as well, and
//! a slot answers only to the key it was filled under: a late cancel, or a `holds`, for
//! an operation that completed is told "not in flight", never given the slot's next
//! operation. The serial is also the number the trace shows (`op N`), as it was before.
//!
//! Nothing here is what the chapter teaches (the table owns each operation's memory
//! until the kernel's answer is reaped: `ring.rs`); it only makes the table cheaper.

/// An operation's key: its serial number in the high half, its slot in the low half.
/// It is the `user_data` of its submission and of its completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key(u64);

impl Key {
    /// The key as the kernel carries it (`user_data`).
    pub fn user_data(self) -> u64 {
        self.0
    }

    /// The key a completion's `user_data` names.
    pub fn from_user_data(data: u64) -> Key {
        Key(data)
    }

    /// Which slot the operation is in.
    fn index(self) -> usize {
        (self.0 & u64::from(u32::MAX)) as usize
    }
}

impl std::fmt::Display for Key {
    /// The serial number: operations are numbered in the order they were submitted.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0 >> 32)
    }
}

/// Values in slots, each under the key it was put in with.
pub struct Slab<V> {
    slots: Vec<Option<(Key, V)>>,
    free: Vec<u32>,
    len: usize,
    serial: u32,
}

impl<V> Default for Slab<V> {
    fn default() -> Self {
        Slab {
            slots: Vec::new(),
            free: Vec::new(),
            len: 0,
            serial: 0,
        }
    }
}

impl<V> Slab<V> {
    /// Put `value` in a free slot, under a new key; the value stays where it is put until
    /// it is removed (the `Vec` may move it when it grows: pointers into it are not
    /// kept, only pointers into the heap memory it owns).
    pub fn insert(&mut self, value: V) -> (Key, &mut V) {
        let index = match self.free.pop() {
            Some(index) => index as usize,
            None => {
                self.slots.push(None);
                self.slots.len() - 1
            }
        };
        let key = Key((u64::from(self.serial) << 32) | index as u64);
        self.serial = self.serial.wrapping_add(1);
        self.len += 1;
        let slot = &mut self.slots[index];
        *slot = Some((key, value));
        let Some((_, value)) = slot else {
            unreachable!("filled a line above")
        };
        (key, value)
    }

    /// The value under `key`, if it is still there.
    pub fn get_mut(&mut self, key: Key) -> Option<&mut V> {
        match self.slots.get_mut(key.index()) {
            Some(Some((k, value))) if *k == key => Some(value),
            _ => None,
        }
    }

    /// Take the value under `key` out, freeing its slot.
    pub fn remove(&mut self, key: Key) -> Option<V> {
        let slot = self.slots.get_mut(key.index())?;
        if !matches!(slot, Some((k, _)) if *k == key) {
            return None; // another operation's slot now, or empty
        }
        let (_, value) = slot.take()?;
        self.free.push(key.index() as u32);
        self.len -= 1;
        Some(value)
    }

    /// True if `key` is in.
    pub fn contains(&self, key: Key) -> bool {
        matches!(self.slots.get(key.index()), Some(Some((k, _))) if *k == key)
    }

    /// How many values are in.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if nothing is in.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every key in, in slot order.
    pub fn keys(&self) -> Vec<Key> {
        self.slots.iter().flatten().map(|(k, _)| *k).collect()
    }

    /// Everything in, taken out (to leak it whole, when the kernel may still hold it).
    pub fn take_all(&mut self) -> Vec<Option<(Key, V)>> {
        self.free.clear();
        self.len = 0;
        std::mem::take(&mut self.slots)
    }
}

/// Values kept beside a slab's, in the same slots: what the proactor keeps for each
/// operation (its continuation), found by the ring's key without a hash.
pub struct Beside<V> {
    slots: Vec<Option<(Key, V)>>,
}

impl<V> Default for Beside<V> {
    fn default() -> Self {
        Beside { slots: Vec::new() }
    }
}

impl<V> Beside<V> {
    /// Keep `value` for `key` (a key the slab gave: its slot is no other key's now).
    pub fn put(&mut self, key: Key, value: V) {
        let index = key.index();
        if self.slots.len() <= index {
            self.slots.resize_with(index + 1, || None);
        }
        self.slots[index] = Some((key, value));
    }

    /// What was kept for `key`, taken out.
    pub fn take(&mut self, key: Key) -> Option<V> {
        let slot = self.slots.get_mut(key.index())?;
        match slot {
            Some((k, _)) if *k == key => slot.take().map(|(_, value)| value),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_used_again_answers_only_to_its_new_key() {
        let mut slab = Slab::default();
        let (a, _) = slab.insert("a");
        assert_eq!(slab.remove(a), Some("a"));
        let (b, _) = slab.insert("b");
        assert_eq!(a.index(), b.index(), "the free slot is used again");
        assert_ne!(a, b);
        assert!(!slab.contains(a) && slab.get_mut(a).is_none() && slab.remove(a).is_none());
        assert_eq!(slab.get_mut(b), Some(&mut "b"));
        assert_eq!((a.to_string(), b.to_string()), ("0".into(), "1".into()));
        assert_eq!(slab.len(), 1);
    }

    #[test]
    fn beside_keeps_one_value_per_key() {
        let (mut slab, mut beside) = (Slab::default(), Beside::default());
        let (a, _) = slab.insert(());
        beside.put(a, 1);
        slab.remove(a);
        let (b, _) = slab.insert(());
        assert_eq!(beside.take(b), None, "a's value is not b's");
        beside.put(b, 2);
        assert_eq!(
            (beside.take(a), beside.take(b), beside.take(b)),
            (None, Some(2), None)
        );
    }
}
