//! Windows of parameters: the axes a copy's window runs along.

use super::Verifier;
use crate::Result;

impl Verifier<'_> {
    /// A window's axes: named (one per tile axis, increasing, inside the parameter's rank), or
    /// left out where the tile has the parameter's rank. A lower-rank window with no axes is
    /// refused rather than guessed: `[BT, D]` at `[t0, h, 0]` of a token-major `K[T, H, D]`
    /// means axes 0 and 2, which no rule about leading or trailing axes would find.
    pub(super) fn window_axes(
        &self,
        op: &str,
        param: &str,
        rank: usize,
        tile: &[u32],
        axes: Option<&[usize]>,
    ) -> Result<()> {
        let shape = format!("{tile:?}");
        let Some(axes) = axes else {
            if tile.len() == rank {
                return Ok(());
            }
            let last: Vec<String> =
                (rank.saturating_sub(tile.len())..rank).map(|a| a.to_string()).collect();
            return Err(self.err(
                op,
                format!(
                    "the {shape} tile has rank {} and {param} has rank {rank}: name the axes the \
                     window spans, {param}.window(origin, axes) (its last axes are [{}])",
                    tile.len(),
                    last.join(", ")
                ),
            ));
        };
        if axes.len() != tile.len() {
            return Err(self.err(
                op,
                format!(
                    "{} window axes {axes:?} for the {shape} tile; give one per tile axis",
                    axes.len()
                ),
            ));
        }
        if let Some(&a) = axes.iter().find(|&&a| a >= rank) {
            return Err(self.err(op, format!("window axis {a} is past {param}'s rank {rank}")));
        }
        if axes.windows(2).any(|w| w[0] >= w[1]) {
            return Err(self.err(
                op,
                format!("window axes {axes:?} must increase (a window cannot transpose {param})"),
            ));
        }
        Ok(())
    }
}
