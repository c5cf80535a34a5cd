//! Analyses of the tile IR that the verifier and several passes share: each fragment's register
//! layout, its row statistics, and the shape of index expressions. They decide nothing; the
//! passes that call them do.

pub mod index;
pub mod layout;
pub mod rows;
