//! Matrix-unit selection: for each fragment, the layout the lowering will use on this profile,
//! with the reason. Today every fragment gets SIMT register blocks; a matrix-unit tiling is a
//! new case here (from the profile's reported matrix shapes), never a branch in a back end.

use crate::Profile;
use crate::ir::Tile;
use crate::lir::FragmentLayout;
use crate::passes::layout::fragment_layout;

/// The layout of fragment `tile` over `threads` threads on `profile`, and why.
pub fn select_fragment(
    tile: &Tile,
    threads: u32,
    profile: &Profile,
) -> Result<(FragmentLayout, String), String> {
    let blocks = fragment_layout(tile, threads)?;
    let reason = if profile.matrix.is_empty() {
        format!("profile {} has no matrix units", profile.name)
    } else {
        let shapes: Vec<String> = profile
            .matrix
            .iter()
            .map(|m| {
                format!("{}x{}x{} {}->{}", m.mnk[0], m.mnk[1], m.mnk[2], m.input, m.accumulator)
            })
            .collect();
        format!(
            "matrix units {} reported; their lowering is not written yet, so SIMT",
            shapes.join(", ")
        )
    };
    Ok((FragmentLayout::Simt(blocks), reason))
}
