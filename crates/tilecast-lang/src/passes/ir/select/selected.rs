//! What the selection pass decides for one fragment, as the passes after it read it.

use crate::lir::FragmentLayout;

/// What the pass chose for one fragment.
#[derive(Clone, Debug, PartialEq)]
pub struct Selected {
    /// The layout.
    pub layout: FragmentLayout,
    /// Why.
    pub reason: String,
}
