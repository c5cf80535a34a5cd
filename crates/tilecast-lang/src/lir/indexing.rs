//! Lists of a lowered kernel's tiles and parameters indexed by their typed ids, so passes and
//! printers write `l.tiles[t]` with `t` a [`TileIx`].

use std::ops::{Index, IndexMut};

use super::ids::{ParamIx, TileIx};
use super::{ParamInfo, TileInfo};

/// `Index` and `IndexMut` of `[$item]` and `Vec<$item>` by `$id`.
macro_rules! typed_index {
    ($id:ty => $item:ty) => {
        impl Index<$id> for [$item] {
            type Output = $item;
            fn index(&self, i: $id) -> &$item {
                &self[i.0]
            }
        }
        impl IndexMut<$id> for [$item] {
            fn index_mut(&mut self, i: $id) -> &mut $item {
                &mut self[i.0]
            }
        }
        impl Index<$id> for Vec<$item> {
            type Output = $item;
            fn index(&self, i: $id) -> &$item {
                &self[i.0]
            }
        }
        impl IndexMut<$id> for Vec<$item> {
            fn index_mut(&mut self, i: $id) -> &mut $item {
                &mut self[i.0]
            }
        }
    };
}

typed_index!(TileIx => TileInfo);
typed_index!(ParamIx => ParamInfo);
