//! The token-movement family's registry entries: `embedding`, `swap_axes` and `paged_kv_write`.

use tilecast_lang::DType::{self, F16, F32};

use super::{embedding, paged_kv_write, swap_axes};
use crate::attention::entries::DEFAULT_PAGE;
use crate::reference::ops as r;
use crate::registry::{
    About, ArgSpec, Bound, Entry, Expected, Options, Problem, Tolerance, one_launch,
};

/// Element types: the moves keep values as they are, through fragments of f16 or f32.
const TYPES: &[DType] = &[F16, F32];

/// Token ids for a lookup test: spread over the table, repeats included, the last row's last.
fn token_ids(s: usize, v: usize) -> Vec<u32> {
    (0..s).map(|i| if i + 1 == s { v - 1 } else { (i * 7919 + 3) % v } as u32).collect()
}

fn embedding_entry() -> Entry {
    Entry::planned(
        About {
            name: "embedding",
            summary: "Y[s, :] = Table[Ids[s], :]: rows of Table[V,C] gathered by the u32 ids Ids[S]",
            dims: &["S", "V", "C"],
            dtypes: TYPES,
            quick: &["1x1x1", "5x33x300", "17x1000x64", "3x7x4099"],
            full: &["512x128256x4096"],
            bound: Bound::Memory,
        },
        one_launch(|p, _| embedding(p.dtype)),
        |p| {
            let (s, v, c) = (p.dims[0], p.dims[1], p.dims[2]);
            vec![
                ArgSpec::indices("Ids", &[s], token_ids(s, v)),
                ArgSpec::input("Table", p.dtype, &[v, c]),
                ArgSpec::output("Y", p.dtype, &[s, c]),
            ]
        },
        |p, ins| vec![Expected::all(r::embedding(&ins[0], &ins[1], p.dims[2]))],
        |_| Tolerance::EXACT,
    )
}

fn swap_entry() -> Entry {
    Entry::planned(
        About {
            name: "swap_axes",
            summary: "Y[b, c, r, :] = X[b, r, c, :]: the middle axes of X[B,R,C,E] swapped (token-major [B,S,H,D] to head-major [B,H,S,D] and back)",
            dims: &["B", "R", "C", "E"],
            dtypes: TYPES,
            quick: &["1x1x1x1", "2x7x3x64", "1x33x5x300", "3x4x9x17"],
            full: &["1x4096x32x128"],
            bound: Bound::Memory,
        },
        one_launch(|p, _| swap_axes(p.dtype)),
        |p| {
            let [b, rr, c, e] = [p.dims[0], p.dims[1], p.dims[2], p.dims[3]];
            vec![
                ArgSpec::input("X", p.dtype, &[b, rr, c, e]),
                ArgSpec::output("Y", p.dtype, &[b, c, rr, e]),
            ]
        },
        |p, ins| {
            let [b, rr, c, e] = [p.dims[0], p.dims[1], p.dims[2], p.dims[3]];
            vec![Expected::all(r::swap_axes(&ins[0], [b, rr, c, e]))]
        },
        |_| Tolerance::EXACT,
    )
}

/// Tokens per page, the table's width in pages, and the pool's pages of a write problem.
fn kv_paging(p: &Problem) -> (usize, usize, usize) {
    let page = p.options.page.unwrap_or(DEFAULT_PAGE);
    let width = p.dims[4].div_ceil(page).max(1);
    (page, width, p.options.pages.unwrap_or(p.dims[0] * width))
}

/// Whether the tokens at `offset` fit the block table's pages.
fn kv_fits(p: &Problem, offset: f64) -> std::result::Result<(), String> {
    let (page, width, _) = kv_paging(p);
    if offset < 0.0 || offset.fract() != 0.0 || offset > u32::MAX as f64 {
        return Err(format!("offset {offset} must be a whole number from 0 to {}", u32::MAX));
    }
    let end = offset as usize + p.dims[1];
    if end > width * page {
        return Err(format!(
            "offset {offset} + S = {} reaches position {end}; the block table's {width} pages of \
             {page} hold {} positions",
            p.dims[1],
            width * page
        ));
    }
    Ok(())
}

fn kv_write_entry() -> Entry {
    let e = Entry::planned(
        About {
            name: "paged_kv_write",
            summary: "K[Table[b, p/page], h, p%page, :] = Knew[b, s, h, :] for p = offset + s, and V from Vnew: new keys and values [B,S,KV,D] into a paged cache [pages, KV, page, D]; options page, pages, offset, starts (each sequence's offset from a u32 input Start[B])",
            dims: &["B", "S", "KV", "D", "L"],
            dtypes: TYPES,
            quick: &[
                "1x1x1x64x1",
                "2x5x2x128x40,offset=33",
                "3x17x4x96x100,page=8",
                "1x3x1x300x20,offset=17",
                "3x1x2x64x40,starts",
                "2x3x1x96x25,page=8,starts",
            ],
            full: &["1x512x8x128x4096", "8x1x8x128x4096,offset=4000"],
            bound: Bound::Memory,
        },
        |p, _| {
            let (page, _, _) = kv_paging(p);
            Ok(crate::registry::Plan::single(paged_kv_write(
                p.dtype,
                page as u32,
                p.options.starts,
            )))
        },
        |p| {
            let [b, s, kv, d] = [p.dims[0], p.dims[1], p.dims[2], p.dims[3]];
            let (page, width, pool) = kv_paging(p);
            // Sequence `i`'s pages are a stride through the pool, distinct across sequences.
            let stride = (0..).map(|k| 2 * k + 1).find(|k| gcd(*k, pool) == 1).unwrap_or(1);
            let table = (0..b * width).map(|i| ((i * stride + 3) % pool) as u32).collect();
            let mut args = vec![
                ArgSpec::input("Knew", p.dtype, &[b, s, kv, d]),
                ArgSpec::input("Vnew", p.dtype, &[b, s, kv, d]),
                ArgSpec::indices("Table", &[b, width], table),
            ];
            if p.options.starts {
                // Up to the last start whose S tokens stay inside the table's pages.
                let starts =
                    crate::registry::entries::test_starts(b, (width * page).saturating_sub(s));
                args.push(ArgSpec::indices("Start", &[b], starts));
            }
            args.push(ArgSpec::output("K", p.dtype, &[pool, kv, page, d]));
            args.push(ArgSpec::output("V", p.dtype, &[pool, kv, page, d]));
            args
        },
        |p, ins| {
            let [b, s, kv, d] = [p.dims[0], p.dims[1], p.dims[2], p.dims[3]];
            let (page, width, pool) = kv_paging(p);
            let offset = p.options.offset.unwrap_or(0);
            let sizes = r::PagedWrite { b, s, kv, d, page, width, pool, offset };
            let starts = p.options.starts.then(|| ins[3].as_slice());
            vec![
                Expected::all(r::paged_kv_write(&ins[0], &ins[2], sizes, starts)),
                Expected::all(r::paged_kv_write(&ins[1], &ins[2], sizes, starts)),
            ]
        },
        |_| Tolerance::EXACT,
    );
    e.with_scalars(|p| match p.options.starts {
        true => Vec::new(),
        false => vec![("offset", p.options.offset.unwrap_or(0) as f64)],
    })
    .with_check(|p| {
        let (page, width, pool) = kv_paging(p);
        if p.options.starts && p.options.offset.is_some() {
            return Err("options offset and starts exclude each other: with starts, each \
                            sequence's offset is its Start value"
                .into());
        }
        if !(8..=256).contains(&page) || !page.is_power_of_two() {
            return Err(format!("page = {page} tokens: pages hold a power of two from 8 to 256"));
        }
        if pool < p.dims[0] * width {
            return Err(format!(
                "a pool of {pool} pages cannot give {} sequences {width} pages each",
                p.dims[0]
            ));
        }
        kv_fits(p, p.options.offset.unwrap_or(0) as f64)
    })
    .with_scalar_check(|p, values| match values.iter().find(|(n, _)| *n == "offset") {
        Some(&(_, offset)) => kv_fits(p, offset),
        None => Ok(()),
    })
    .with_options(&["page", "pages", "offset", "starts"], |shapes| {
        // L: the block table's width in pages, times the page. A fourth input is `Start`.
        let width = shapes.get(2).and_then(|t| t.get(1)).copied();
        let options = Options { starts: shapes.len() == 4, ..Options::default() };
        (options, width.map(|w| vec![(4, w * DEFAULT_PAGE)]).unwrap_or_default())
    })
    .with_validation(|p, inputs| {
        let (page, width, pool) = kv_paging(p);
        let table = inputs.get(2).ok_or("missing input Table")?;
        let table = table.download::<u32>().map_err(|e| e.to_string())?;
        if let Some(i) = table.iter().position(|&pg| pg as usize >= pool) {
            return Err(format!(
                "block table entry {i} is page {}; the pool holds {pool}",
                table[i]
            ));
        }
        if !p.options.starts {
            return Ok(());
        }
        let starts = inputs.get(3).ok_or("missing input Start")?;
        let starts = starts.download::<u32>().map_err(|e| e.to_string())?;
        match starts.iter().position(|&st| st as usize + p.dims[1] > width * page) {
            Some(i) => Err(format!(
                "Start[{i}] = {} puts S = {} tokens past the block table's {width} pages of \
                     {page}",
                starts[i], p.dims[1]
            )),
            None => Ok(()),
        }
    })
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The family's entries.
pub(crate) fn entries() -> Vec<Entry> {
    vec![embedding_entry(), swap_entry(), kv_write_entry()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_tables_give_each_sequence_its_own_pages() {
        let e = kv_write_entry();
        let p = e.problem("3x17x4x96x100,page=8", F16).unwrap();
        let args = e.args(&p);
        let table = match args[2].values.as_ref().map(|v| v.get()) {
            Some(crate::registry::Fixed::Words(w)) => w,
            other => panic!("no table: {other:?}"),
        };
        let mut seen = table.clone();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), table.len());
        assert!(table.iter().all(|&t| (t as usize) < args[3].shape[0]));
    }

    #[test]
    fn writes_past_the_table_are_refused() {
        let e = kv_write_entry();
        let err = e.problem("1x5x1x64x16,offset=12", F16).unwrap_err().to_string();
        assert!(err.contains("reaches position 17"), "{err}");
        let p = e.problem("1x5x1x64x16,offset=11", F16).unwrap();
        assert!(e.check_scalars(&p, &[("offset", 12.0)]).is_err());
        assert!(e.check_scalars(&p, &[("offset", 11.0)]).is_ok());
    }
}
