# Sourced by the scripts: `prepare_venv NAME REQUIREMENTS` makes (once per pinned requirements
# file) a Python virtualenv in the cache and prints its interpreter.
cache="${MCPBENCH_CACHE:-$HOME/.cache/mcpbench}"
prepare_venv() { # name requirements-file
  local venv="$cache/venv-$1" req="$2" stamp
  stamp=$(sha256sum "$req" | cut -d' ' -f1)
  if [ "$(cat "$venv/.stamp" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req" >&2
    echo "$stamp" > "$venv/.stamp"
  fi
  echo "$venv/bin/python"
}
