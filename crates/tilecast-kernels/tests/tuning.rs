//! The gemm tuning file: candidates, keys, and the file's round trip and errors.

use tilecast_kernels::gemm::GemmConfig;
use tilecast_kernels::gemm::tuning::{self, FILE_NAME, Tuning};
use tilecast_lang::{DType, Profile, compile};

#[test]
fn candidates_start_with_the_default_and_compile_where_they_fit() {
    for (profile, m) in [("vulkan-nvidia", 4096), ("vulkan-nvidia", 16), ("vulkan-lavapipe", 4096)]
    {
        let p = Profile::named(profile).unwrap();
        let c = tuning::candidates(&p, DType::F16, DType::F32, m, 4096);
        assert_eq!(c[0], GemmConfig::for_shape(&p, DType::F16, DType::F32, m, 4096));
        assert!(c.len() >= 6, "{profile} m={m}: {c:?}");
        assert!(c.contains(&GemmConfig { input: DType::F16, ..GemmConfig::default() }));
        let compiled =
            c.iter().filter(|cfg| compile(&tilecast_kernels::gemm::gemm(cfg), &p).is_ok()).count();
        assert!(compiled >= 4, "{profile} m={m}: only {compiled} candidates compile");
    }
    assert_eq!(tuning::key("H200", "gemm", DType::F16, [16, 4096, 4096]), "H200/gemm/f16/m<=64");
    assert_eq!(
        tuning::key("H200", "gemm", DType::F16, [4000, 4000, 4100]),
        "H200/gemm/f16/m4096n4096k4096"
    );
    assert_eq!(tuning::shape_class(1024, 1500, 700), "m1024n1024k512");
}

#[test]
fn the_tuning_file_round_trips_and_names_bad_lines() {
    let dir = std::env::temp_dir().join(format!("tilecast-tuning-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut t = Tuning::load(Some(&dir)).unwrap();
    assert_eq!(t.get("d/gemm/f16/m>64", DType::F16, DType::F32), None, "no file yet");
    let cfg = GemmConfig { bm: 64, bn: 128, bk: 32, threads: 128, stages: 1, ..Default::default() };
    t.set("d/gemm/f16/m>64", &cfg);
    t.save().unwrap();
    let back = Tuning::load(Some(&dir)).unwrap();
    let got = back.get("d/gemm/f16/m>64", DType::F8E4M3, DType::F32).unwrap();
    assert_eq!((got.bm, got.bn, got.bk, got.threads, got.stages), (64, 128, 32, 128, 1));
    assert_eq!(got.input, DType::F8E4M3, "the caller's types, the file's tiles");

    std::fs::write(dir.join(FILE_NAME), "# comment\nd/gemm/f16/m>64\t64x128 128 1\n").unwrap();
    let err = Tuning::load(Some(&dir)).unwrap_err().to_string();
    assert!(err.contains("line 2") && err.contains(FILE_NAME), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(Tuning::load(None).unwrap().path(), None);
}

/// Tuned tiles are keyed for the gemm family's entries only, by their own M, N and K.
#[test]
fn only_gemm_family_problems_have_a_tuning_key() {
    let key = |name: &str, shape: &str| {
        let e = tilecast_kernels::lookup(name).unwrap();
        tuning::key_for("H200", e, &e.problem(shape, e.dtypes[0]).unwrap())
    };
    let (k, mnk) = key("batched_gemm", "8x2048x1024x512").unwrap();
    assert_eq!((k.as_str(), mnk), ("H200/batched_gemm/f16/m2048n1024k512", [2048, 1024, 512]));
    assert_eq!(key("linear", "16x14336x4096").unwrap().0, "H200/linear/f16/m<=64");
    assert_eq!(key("softmax", "4x1001"), None);
    assert_eq!(key("gemv", "4096x4096"), None);
}
