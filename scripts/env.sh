# Sourced by the scripts: checks the toolchain and quiets Mesa's complaint about a missing
# XDG_RUNTIME_DIR on headless machines.
command -v cargo >/dev/null || { echo "cargo not found: install Rust 1.87 or newer (https://rustup.rs)" >&2; exit 1; }
if [ -z "${XDG_RUNTIME_DIR:-}" ]; then
  XDG_RUNTIME_DIR=$(mktemp -d) && export XDG_RUNTIME_DIR
fi
