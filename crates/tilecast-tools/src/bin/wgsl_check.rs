//! Parses and validates WGSL files with every capability naga knows (cooperative matrices
//! included), so hand-written probes can be checked on a machine whose GPU lacks them.
//!
//! Usage: `wgsl_check [--subgroup-roles] FILE.wgsl...`
//!
//! `--subgroup-roles` checks as `ShaderLibrary::load_subgroup_roles` loads: without the
//! workgroup-uniformity rule (cooperative matrices under a branch on the subgroup id).

fn main() {
    let mut failed = 0;
    let mut flags = naga::valid::ValidationFlags::all();
    let mut paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.first().map(String::as_str) == Some("--subgroup-roles") {
        paths.remove(0);
        flags.remove(naga::valid::ValidationFlags::CONTROL_FLOW_UNIFORMITY);
    }
    for path in paths {
        let result = std::fs::read_to_string(&path).map_err(|e| e.to_string()).and_then(|src| {
            let module = naga::front::wgsl::parse_str(&src).map_err(|e| e.emit_to_string(&src))?;
            naga::valid::Validator::new(flags, naga::valid::Capabilities::all())
                .validate(&module)
                .map(|_| ())
                .map_err(|e| e.emit_to_string(&src))
        });
        match result {
            Ok(()) => println!("ok   {path}"),
            Err(e) => {
                failed += 1;
                println!("FAIL {path}\n{e}");
            }
        }
    }
    std::process::exit(i32::from(failed > 0));
}
