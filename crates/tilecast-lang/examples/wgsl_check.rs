//! Parses and validates WGSL files with every capability naga knows (cooperative matrices
//! included), so hand-written probes can be checked on a machine whose GPU lacks them.
//!
//! Usage: wgsl_check FILE.wgsl...

fn main() {
    let mut failed = 0;
    for path in std::env::args().skip(1) {
        let result = std::fs::read_to_string(&path).map_err(|e| e.to_string()).and_then(|src| {
            let module = naga::front::wgsl::parse_str(&src).map_err(|e| e.emit_to_string(&src))?;
            naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::all(),
            )
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
