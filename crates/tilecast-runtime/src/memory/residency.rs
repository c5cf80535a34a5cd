//! Residency sets: which allocations must stay resident while command buffers run.
//!
//! Invariants:
//! - `add` and `remove` only stage a change; the change is committed when a stream commits a
//!   command buffer, at most once per command-buffer commit however many allocations changed
//!   (a commit per allocation costs hundreds of commits per decoded token in real engines).
//! - Resident plus staged bytes never exceed the wired-memory budget: `add` refuses first.
//!
//! On Metal (macOS 15+) a commit is where an `MTLResidencySet` binding would call `commit`;
//! that binding needs objc2-metal and lands behind `cfg(target_os = "macos")`. Elsewhere the
//! set tracks membership and the budget, which is what the counters test.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, Weak};

use super::buffer::Allocation;
use crate::{Buffer, Error, Result};

/// Residency counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ResidencyStats {
    /// Allocations resident after the last commit.
    pub resident_allocations: usize,
    /// Bytes resident after the last commit.
    pub resident_bytes: u64,
    /// Staged additions and removals not yet committed.
    pub staged_changes: usize,
    /// `add` calls that staged a change.
    pub adds: u64,
    /// `remove` calls that staged a change.
    pub removes: u64,
    /// Commits performed (one per command-buffer commit that had staged changes).
    pub commits: u64,
}

struct Member {
    alloc: Weak<Allocation>,
    bytes: u64,
}

#[derive(Default)]
struct SetState {
    resident: HashMap<u64, Member>,
    staged_add: HashMap<u64, Member>,
    staged_remove: HashSet<u64>,
    stats: ResidencyStats,
}

impl SetState {
    fn planned_bytes(&self) -> u64 {
        let kept: u64 = self
            .resident
            .iter()
            .filter(|(id, _)| !self.staged_remove.contains(id))
            .map(|(_, m)| m.bytes)
            .sum();
        kept + self.staged_add.values().map(|m| m.bytes).sum::<u64>()
    }
}

/// A set of allocations kept resident for GPU work. Clones share the set; `Send + Sync`.
#[derive(Clone)]
pub struct ResidencySet {
    label: Arc<str>,
    budget: Option<u64>,
    state: Arc<Mutex<SetState>>,
}

impl std::fmt::Debug for ResidencySet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResidencySet")
            .field("label", &self.label)
            .field("stats", &self.stats())
            .finish()
    }
}

impl ResidencySet {
    /// An empty set; `budget` caps its resident bytes (`None`: no cap).
    pub fn new(label: &str, budget: Option<u64>) -> ResidencySet {
        ResidencySet { label: label.into(), budget, state: Arc::default() }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SetState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Stages `buffer`'s allocation for residency. Views and clones of one allocation count once.
    /// Fails, staging nothing, when the set would exceed its budget.
    pub fn add(&self, buffer: &Buffer) -> Result<()> {
        let mut st = self.lock();
        let id = buffer.alloc.id;
        if st.staged_remove.remove(&id) {
            st.stats.staged_changes -= 1;
            return Ok(());
        }
        if st.resident.contains_key(&id) || st.staged_add.contains_key(&id) {
            return Ok(());
        }
        let bytes = buffer.wgpu_buffer().size();
        if let Some(budget) = self.budget {
            let total = st.planned_bytes() + bytes;
            if total > budget {
                return Err(Error::ResidencyBudget {
                    label: self.label.to_string(),
                    adding: bytes,
                    total,
                    budget,
                });
            }
        }
        st.staged_add.insert(id, Member { alloc: Arc::downgrade(&buffer.alloc), bytes });
        st.stats.adds += 1;
        st.stats.staged_changes += 1;
        Ok(())
    }

    /// Stages `buffer`'s allocation for removal.
    pub fn remove(&self, buffer: &Buffer) {
        let mut st = self.lock();
        let id = buffer.alloc.id;
        if st.staged_add.remove(&id).is_some() {
            st.stats.staged_changes -= 1;
        } else if st.resident.contains_key(&id) && st.staged_remove.insert(id) {
            st.stats.removes += 1;
            st.stats.staged_changes += 1;
        }
    }

    /// True when `buffer`'s allocation is resident (as of the last commit).
    pub fn contains(&self, buffer: &Buffer) -> bool {
        self.lock().resident.contains_key(&buffer.alloc.id)
    }

    /// Applies staged changes, dropping members whose memory is gone. Returns whether a commit
    /// happened: exactly when something changed. Streams call this once per command-buffer
    /// commit; call it yourself only when no stream owns the set.
    pub fn commit(&self) -> bool {
        let mut st = self.lock();
        let dead: Vec<u64> = st
            .resident
            .iter()
            .filter(|(_, m)| m.alloc.strong_count() == 0)
            .map(|(id, _)| *id)
            .collect();
        if st.staged_add.is_empty() && st.staged_remove.is_empty() && dead.is_empty() {
            return false;
        }
        let removed: Vec<u64> = st.staged_remove.drain().chain(dead).collect();
        for id in removed {
            st.resident.remove(&id);
        }
        let added: Vec<(u64, Member)> = st.staged_add.drain().collect();
        for (id, m) in added {
            if m.alloc.strong_count() > 0 {
                st.resident.insert(id, m);
            }
        }
        st.stats.staged_changes = 0;
        st.stats.commits += 1;
        st.stats.resident_allocations = st.resident.len();
        st.stats.resident_bytes = st.resident.values().map(|m| m.bytes).sum();
        true
    }

    /// Current counters.
    pub fn stats(&self) -> ResidencyStats {
        self.lock().stats
    }

    /// The wired-memory budget, if any.
    pub fn budget(&self) -> Option<u64> {
        self.budget
    }
}
