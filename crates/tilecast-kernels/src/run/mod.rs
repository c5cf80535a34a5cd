//! Running and printing a problem's launches: [`launch`] loads and launches one compiled
//! kernel on the runtime (the only place the compiler and the runtime meet), the [`harness`]
//! runs a registry entry's plan and checks it against the reference, and a [`listing`] is a
//! plan's code in one target language.

pub mod harness;
pub(crate) mod launch;
pub mod listing;
