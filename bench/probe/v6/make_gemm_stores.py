"""Hand-written 4096^3 f16 -> f32 gemms on cooperative matrices: does the width of the
threadgroup-memory stores that stage A and B limit the gemm? The generated kernel stores each
f16 on its own (a 16-byte global load becomes 8 two-byte stores plus conversions); here the
shared tiles can instead be arrays of vec4<f16> (8-byte stores) or vec4<u32> (16-byte stores),
and the cooperative loads read them through a pointer to the vector element with the stride
counted in vectors. Run from this folder: python3 make_gemm_stores.py (prints the cases).

  stores  unpack  16-byte global loads (vec4<u32>), array<f16>, unpack2x16float + f16() per
                  element (session 16's probes)
          scalar  8-byte global loads (vec4<f16>), array<f16>, 4 scalar stores (the generated
                  kernel's staging)
          h4      8-byte global loads (vec4<f16>), array<vec4<f16>>: one 8-byte store each
          u4      16-byte global loads (vec4<u32>), array<vec4<u32>>: one 16-byte store each
  (naga 30 cannot bitcast between vectors of different lengths, so a 16-byte load reaches
  f16 elements only by unpacking.)
  mode    plain   barrier; global -> shared; barrier; products
          prefetch the next K tile's global loads go out before this tile's products
          double  prefetch into a second shared buffer: one barrier per K tile
Bindings: out (f32 4096^2), A, B (f16 4096^2 as vec4<u32>). Grid: (4096/BM)*(4096/BN).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "v3"))
from make_gemm_tiles import kernel  # noqa: E402 (the generator, with its store modes)


def cases():
    out = []
    for store in ["unpack", "scalar", "h4", "u4"]:
        for mode in ["plain", "prefetch"]:
            out.append((128, 128, 32, 2, 2, mode, store))
    for store in ["h4", "u4"]:
        out.append((128, 128, 32, 2, 2, "double", store))
        for (bm, bn, bk, wm, wn) in [(128, 256, 32, 2, 4), (256, 128, 32, 4, 2), (128, 128, 64, 2, 2)]:
            out.append((bm, bn, bk, wm, wn, "prefetch", store))
    return out


if __name__ == "__main__":
    for (bm, bn, bk, wm, wn, mode, store) in cases():
        src, groups, threads = kernel(bm, bn, bk, wm, wn, mode, store)
        name = f"s_{store}_{mode}_{bm}x{bn}x{bk}_{wm}x{wn}"
        open(name + ".wgsl", "w").write(src)
        print(name, groups, threads)
