//! Graphs: a sequence of kernel launches captured once and replayed as one command, the way an
//! inference engine runs the same decode step hundreds of times.
//!
//! Between [`Stream::begin_capture`] and [`Stream::end_capture`] a stream's launches are
//! checked as always but not run: they are recorded directly (as [`Recording::Direct`]
//! records them) into the graph's own command buffer. [`Stream::replay`] then costs the host
//! one command, however many launches the graph holds. What varies between replays must
//! live in memory (a position in a buffer filled before the replay, not a scalar): a graph's
//! scalars, grids and bound ranges are those of its capture.
//!
//! Invariants:
//! - Only launches that direct recording can take are captured (native SPIR-V or trusted
//!   WGSL, no override constants, no imported memory), over ranges some earlier launch already
//!   used (so wgpu will never zero them behind the graph's back); anything else, and copies,
//!   fills and timestamps, is refused with an error while the capture stays open.
//! - A graph keeps every allocation it binds alive; a replay marks them as a launch does
//!   (host views wait, memory outlives the submission).
//! - A graph's Vulkan objects are freed only after every submission that executed it has
//!   finished: the stream keeps a replayed graph until it submits, and a dropped graph's
//!   pools wait on the device's latest submission.
//!
//! [`Recording::Direct`]: super::Recording::Direct

use rustc_hash::FxHashSet;

use super::Stream;
use super::captured::{Capture, Graph, GraphInner};
use super::direct_segment::{DirectSegment, Target};
use crate::{Error, Result};

impl Stream {
    /// Starts capturing this stream's launches into a graph instead of running them (see
    /// [`Graph`]). Needs Vulkan with native SPIR-V, as [`Recording::Direct`] does; refused
    /// while a capture is open.
    ///
    /// [`Recording::Direct`]: super::Recording::Direct
    pub fn begin_capture(&mut self) -> Result<()> {
        let refuse = |reason: String| Error::InvalidCommand { what: "capture".into(), reason };
        if self.capture.is_some() {
            return Err(refuse("a capture is already open on this stream".into()));
        }
        let Some(direct) = self.device.direct() else {
            return Err(refuse(format!(
                "graphs need Vulkan with native SPIR-V; device {:?} ({}) has no passthrough shaders",
                self.device.name(),
                self.device.capabilities().backend
            )));
        };
        let vk = direct.begin_graph()?;
        self.capture = Some(Capture {
            seg: DirectSegment::new(Target::Graph(vk.commands)),
            vk,
            allocs: Vec::new(),
            ids: FxHashSet::default(),
            dispatches: 0,
            barriers: 0,
            bytes: 0,
        });
        Ok(())
    }

    /// True while a capture is open.
    pub fn is_capturing(&self) -> bool {
        self.capture.is_some()
    }

    /// Ends the open capture and returns its graph (launches refused during the capture are
    /// not in it).
    pub fn end_capture(&mut self) -> Result<Graph> {
        let capture = self.capture.take().ok_or_else(|| Error::InvalidCommand {
            what: "capture".into(),
            reason: "no capture is open on this stream".into(),
        })?;
        let direct = self.device.direct().expect("a capture implies the context");
        let Capture { vk, allocs, dispatches, barriers, bytes, .. } = capture;
        let mut inner = GraphInner {
            device: self.device.clone(),
            vk: None,
            allocs,
            dispatches,
            barriers,
            bytes,
        };
        let ended = direct.end_graph(&vk);
        inner.vk = Some(vk);
        ended?;
        Ok(Graph { inner: std::sync::Arc::new(inner) })
    }

    /// Runs `graph`'s launches, in order with this stream's other commands, as one command.
    /// Refused during a capture, or for a graph of another device.
    pub fn replay(&mut self, graph: &Graph) -> Result<()> {
        let g = &graph.inner;
        let refuse = |reason: &str| Error::InvalidCommand {
            what: "graph replay".into(),
            reason: reason.to_string(),
        };
        if self.capture.is_some() {
            return Err(refuse("graphs cannot be replayed into a capture"));
        }
        if !g.device.inner_eq(&self.device) {
            return Err(refuse("the graph was captured on another device"));
        }
        let vk = g.vk.as_ref().expect("a graph's objects live while it does");
        self.retain_allocations(&g.allocs, &|| "graph replay".to_string())?;
        self.execute_graph(vk)?;
        self.graphs.push(graph.inner.clone());
        self.counters.replays += 1;
        self.counters.dispatches += g.dispatches;
        self.counters.direct_dispatches += g.dispatches;
        self.counters.direct_barriers += g.barriers;
        self.ops += g.dispatches.max(1) as usize - 1;
        self.after_command(g.bytes);
        Ok(())
    }

    /// Refuses `what` (a copy, fill or timestamp) while a capture is open.
    pub(super) fn refuse_in_capture(&self, what: &str) -> Result<()> {
        match self.capture {
            Some(_) => Err(Error::InvalidCommand {
                what: what.to_string(),
                reason: "a capture records kernel launches only; encode it before \
                         begin_capture or after end_capture"
                    .into(),
            }),
            None => Ok(()),
        }
    }
}
