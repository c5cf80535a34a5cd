//! What a gemm's operand tiles imply for the back ends: the K extent, the row pitches loads
//! step by, and which stored coordinate each operand's row and K index fall on.

use super::{GemmOperands, Lowered, TileIx, TileSlot};

impl Lowered {
    /// The operands of `c += op(a) * op(b)` (`trans`: A stored [K, M], B stored [N, K]).
    pub fn gemm_operands<'a>(
        &self,
        a: &'a TileSlot,
        b: &'a TileSlot,
        c: TileIx,
        trans: (bool, bool),
    ) -> GemmOperands<'a> {
        let at = &self.tiles[a.tile];
        let k = if trans.0 { at.shape[0] } else { at.shape[1] };
        let pitch = (at.row_pitch(), self.tiles[b.tile].row_pitch());
        GemmOperands { a, b, c, trans, k, pitch }
    }
}

impl GemmOperands<'_> {
    /// The stored (row, column) of A's element at output row `m` and step `k`.
    pub fn a_at<T>(&self, m: T, k: T) -> (T, T) {
        if self.trans.0 { (k, m) } else { (m, k) }
    }

    /// The stored (row, column) of B's element at step `k` and output column `n`.
    pub fn b_at<T>(&self, k: T, n: T) -> (T, T) {
        if self.trans.1 { (n, k) } else { (k, n) }
    }
}
