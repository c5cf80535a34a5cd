//! Verifier errors name where the fault was written: the statement's pre-order position (or
//! the tile or parameter), which the builder maps to the location a front end set when the
//! statement was written. The Python builder reports file and line this way.

use tilecast_lang::DType::{F16, F32};
use tilecast_lang::{Error, Kernel, Profile, Site, compile, sym};

fn profile() -> Profile {
    Profile::named("vulkan-lavapipe").unwrap()
}

/// Builds `k` with locations and returns the location of the verifier error's site.
fn fault(k: Kernel) -> (Error, Option<String>) {
    let (kernel, locs) = k.build_located();
    let e = compile(&kernel, &profile()).expect_err("the kernel has a mistake");
    let at = match e.site() {
        Some(Site::Stmt(i)) => locs[i].clone(),
        other => panic!("expected a statement site, got {other:?} for {e}"),
    };
    (e, at)
}

/// A kernel with nested loops and branches before the statement under test, every statement
/// tagged with its own line.
fn nested(mistake_in_else: bool) -> (Error, Option<String>) {
    let n = sym("N");
    let k = Kernel::new("nested").threads(64);
    let x = k.param("X", F32, [&n]);
    let t = k.shared_named("t", F32, [64]);
    let small = k.shared_named("small", F32, [32]);
    k.set_location(Some("line 1"));
    k.fill(&t, 0.0f32);
    k.set_location(Some("line 2"));
    let i = k.open_serial(4u32);
    k.set_location(Some("line 3"));
    k.copy(x.tile([&i * 64u32]), &t);
    k.set_location(Some("line 4"));
    k.open_if(sym("N").gt(3u32));
    k.set_location(Some("line 5"));
    k.fill(&t, 1.0f32);
    k.close().unwrap();
    k.set_location(Some("line 6"));
    k.open_else().unwrap();
    k.set_location(Some("line 7"));
    k.fill(&t, 2.0f32);
    k.set_location(Some("line 8"));
    if mistake_in_else {
        // A 32-element tile copied into a 64-element one.
        k.copy(&small, &t);
    } else {
        k.fill(&t, 3.0f32);
    }
    k.close().unwrap();
    k.close().unwrap();
    k.set_location(Some("line 9"));
    if !mistake_in_else {
        k.copy(&small, &t);
    }
    fault(k)
}

#[test]
fn a_mistake_inside_an_else_branch_maps_to_its_line() {
    let (e, at) = nested(true);
    assert!(e.to_string().contains("copy small"), "{e}");
    assert_eq!(at.as_deref(), Some("line 8"));
}

#[test]
fn a_mistake_after_nested_blocks_maps_to_its_line() {
    let (e, at) = nested(false);
    assert_eq!(at.as_deref(), Some("line 9"), "{e}");
}

#[test]
fn closure_blocks_and_open_blocks_build_the_same_kernel() {
    let build = |closures: bool| {
        let k = Kernel::new("same").threads(64);
        let x = k.param("X", F32, [sym("N")]);
        let t = k.shared_named("t", F32, [64]);
        if closures {
            k.serial(2u32, |k, i| {
                k.if_else(i.clone().lt(1u32), |k| k.fill(&t, 1.0f32), |k| k.fill(&t, 2.0f32));
                k.parallel([64], |k, [j]| k.store(&x, [&i * 64u32 + &j], t.at([&j])));
            });
        } else {
            let i = k.open_serial(2u32);
            k.open_if(i.clone().lt(1u32));
            k.fill(&t, 1.0f32);
            k.close().unwrap();
            k.open_else().unwrap();
            k.fill(&t, 2.0f32);
            k.close().unwrap();
            let j = k.open_parallel(&[64]);
            k.store(&x, [&i * 64u32 + &j[0]], t.at([&j[0]]));
            k.close().unwrap();
            k.close().unwrap();
        }
        k.build()
    };
    assert_eq!(format!("{:?}", build(true)), format!("{:?}", build(false)));
}

#[test]
fn else_without_if_and_unbalanced_close_are_errors() {
    let k = Kernel::new("unbalanced").threads(64);
    let t = k.shared_named("t", F32, [64]);
    k.fill(&t, 0.0f32);
    let e = k.open_else().unwrap_err().to_string();
    assert!(e.contains("else: must follow an if block"), "{e}");
    let e = k.close().unwrap_err().to_string();
    assert!(e.contains("no block is open"), "{e}");
    k.open_if(sym("N").gt(1u32));
    k.close().unwrap();
    k.open_else().unwrap();
    k.close().unwrap();
    let e = k.open_else().unwrap_err().to_string();
    assert!(e.contains("has an else branch already"), "{e}");
}

#[test]
fn a_bad_tile_is_placed_at_the_tile() {
    let k = Kernel::new("bad_tile").threads(64);
    k.param("X", F32, [sym("N")]);
    k.shared_named("fine", F32, [64]);
    k.shared_named("empty", F16, [0, 4]);
    let e = compile(&k.build(), &profile()).unwrap_err();
    assert_eq!(e.site(), Some(Site::Tile(1)), "{e}");
}
