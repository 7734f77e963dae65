//! The loop's table of live tasks, by key (book chapter 6, "Real wakers"; asyncio's
//! `tasks._all_tasks` and `all_tasks()`). Beazley's talk's tasks need no key.
//!
//! A `Waker` must be `Send + Sync`, so it cannot hold a task (an `Rc`): it holds the task's
//! *key* in this table, and waking looks the task up. A key is a slot and that slot's
//! generation, so the stale waker of a finished task never wakes the next task stored in
//! the same slot. asyncio keeps a weak set of all tasks for `all_tasks()`; ours owns them,
//! because nothing else holds a task that waits (its waker holds only numbers).
//!
//! Generic over the loop `L` the tasks step on, and over nothing else: the table knows no
//! loop, and is tested here without one. What changed since stage 4: stage 2 kept its tasks
//! in a `HashMap` by id and stage 3 in the callbacks that would run them; neither needed a
//! key that outlives a task.

use std::cell::Cell;
use std::rc::Rc;

/// What the table keeps of a task, whatever its future's type: something the loop can
/// step, and ask about.
pub trait Step<L> {
    /// Poll the task's future once (asyncio's `Task.__step`).
    fn step(self: Rc<Self>, lp: &L);
    /// Set while a step is in the ready queue: a second wake-up adds none.
    fn scheduled(&self) -> &Cell<bool>;
    /// The task's number in the trace: `t3`.
    fn id(&self) -> u64;
    /// Ask the task to end (asyncio's `Task.cancel`); false if it cannot be.
    fn cancel(self: Rc<Self>) -> bool;
    /// The error the task failed with, if it did (and the error is then retrieved).
    fn exception(&self) -> Option<crate::errors::Error>;
    /// Call `callback` (through `call_soon`) once the task is done.
    fn when_done(&self, callback: Box<dyn FnOnce(&L)>);
}

/// One slot of the table: its generation, and the task it holds, if any.
type Slot<L> = (u32, Option<Rc<dyn Step<L>>>);

/// Where a task sits in its loop's table: a slot, and the slot's generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskKey {
    index: u32,
    generation: u32,
}

/// The live tasks of one loop, by key.
pub struct TaskRegistry<L> {
    slots: Vec<Slot<L>>,
    free: Vec<u32>, // the empty slots: every slot is either here or holds a task
    last_id: u64,
}

impl<L> Default for TaskRegistry<L> {
    fn default() -> Self {
        TaskRegistry {
            slots: Vec::new(),
            free: Vec::new(),
            last_id: 0,
        }
    }
}

impl<L> TaskRegistry<L> {
    /// The number for the next task: 1, 2, 3, ...
    pub fn next_id(&mut self) -> u64 {
        self.last_id += 1;
        self.last_id
    }

    /// The key the next `insert` will return: a task can be made with its key (its waker
    /// needs it) before it is inserted.
    pub fn vacant_key(&self) -> TaskKey {
        match self.free.last() {
            Some(&index) => TaskKey {
                index,
                generation: self.slots[index as usize].0,
            },
            None => TaskKey {
                index: u32::try_from(self.slots.len()).expect("fewer than 2^32 live tasks"),
                generation: 0,
            },
        }
    }

    /// Keep `task`; returns its key.
    pub fn insert(&mut self, task: Rc<dyn Step<L>>) -> TaskKey {
        if let Some(index) = self.free.pop() {
            let slot = &mut self.slots[index as usize];
            slot.1 = Some(task);
            return TaskKey {
                index,
                generation: slot.0,
            };
        }
        let index = u32::try_from(self.slots.len()).expect("fewer than 2^32 live tasks");
        self.slots.push((0, Some(task)));
        TaskKey {
            index,
            generation: 0,
        }
    }

    /// The task under `key`, if it is still alive.
    pub fn get(&self, key: TaskKey) -> Option<&Rc<dyn Step<L>>> {
        match self.slots.get(key.index as usize) {
            Some((generation, Some(task))) if *generation == key.generation => Some(task),
            _ => None,
        }
    }

    /// Forget the task under `key` (it finished); its slot's next task gets a new
    /// generation.
    pub fn remove(&mut self, key: TaskKey) -> Option<Rc<dyn Step<L>>> {
        let slot = self.slots.get_mut(key.index as usize)?;
        if slot.0 != key.generation || slot.1.is_none() {
            return None;
        }
        slot.0 = slot.0.wrapping_add(1);
        self.free.push(key.index);
        slot.1.take()
    }

    /// Every live task, in slot order.
    pub fn all(&self) -> Vec<Rc<dyn Step<L>>> {
        self.slots.iter().filter_map(|(_, t)| t.clone()).collect()
    }

    /// Take every task out (the loop closes).
    pub fn take_all(&mut self) -> Vec<Rc<dyn Step<L>>> {
        let tasks = self.slots.iter_mut().filter_map(|(g, t)| {
            *g = g.wrapping_add(1);
            t.take()
        });
        let tasks: Vec<_> = tasks.collect();
        self.free = (0..self.slots.len() as u32).rev().collect();
        tasks
    }

    /// How many tasks are alive.
    pub fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Nothing(Cell<bool>);

    impl Step<()> for Nothing {
        fn step(self: Rc<Self>, _: &()) {}
        fn scheduled(&self) -> &Cell<bool> {
            &self.0
        }
        fn id(&self) -> u64 {
            0
        }
        fn cancel(self: Rc<Self>) -> bool {
            false
        }
        fn exception(&self) -> Option<crate::errors::Error> {
            None
        }
        fn when_done(&self, _: Box<dyn FnOnce(&())>) {}
    }

    fn nothing() -> Rc<dyn Step<()>> {
        Rc::new(Nothing(Cell::new(false)))
    }

    #[test]
    fn a_stale_key_finds_nothing() {
        let mut registry = TaskRegistry::default();
        let a = registry.insert(nothing());
        assert!(registry.remove(a).is_some());
        let b = registry.insert(nothing());
        assert_eq!(a.index, b.index, "the slot is reused");
        assert!(registry.get(a).is_none());
        assert!(registry.get(b).is_some());
        assert!(registry.remove(a).is_none());
        assert_eq!(registry.len(), 1);
    }

    #[test]
    fn vacant_key_is_the_key_insert_gives() {
        let mut registry = TaskRegistry::default();
        let fresh = registry.vacant_key();
        assert_eq!(registry.insert(nothing()), fresh, "a new slot");
        let second = registry.insert(nothing());
        assert!(registry.remove(fresh).is_some());
        let reused = registry.vacant_key();
        assert_ne!(reused, fresh, "the freed slot's next generation");
        assert_eq!(registry.insert(nothing()), reused, "the freed slot");
        assert_eq!(registry.vacant_key().index, second.index + 1);
    }

    #[test]
    fn take_all_empties_the_table_and_outdates_every_key() {
        let mut registry = TaskRegistry::default();
        let keys: Vec<_> = (0..3).map(|_| registry.insert(nothing())).collect();
        assert_eq!((registry.next_id(), registry.next_id()), (1, 2));
        assert_eq!(registry.all().len(), 3);
        assert_eq!(registry.take_all().len(), 3);
        assert_eq!(registry.len(), 0);
        assert!(keys.iter().all(|&k| registry.get(k).is_none()));
        let again = registry.insert(nothing());
        assert!(registry.get(again).is_some());
        assert_eq!(registry.len(), 1);
    }
}
