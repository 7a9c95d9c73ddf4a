# Sourced by the guest scripts: the module's classes and its dependency jars copied into the
# guest's own tmpfs once per boot, so a build running on the host meanwhile (same checkout and
# ~/.m2, shared read-only over 9p) cannot change a class or an mmap'ed jar under a running test.
# Sets CP.
_rf_module="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
_rf_snap=/tmp/rdmaflux-classes
if [[ ! -f $_rf_snap/.done ]]; then
    rm -rf "$_rf_snap"
    mkdir -p "$_rf_snap/lib"
    cp -r "$_rf_module/target/classes" "$_rf_snap/classes"
    cp -r "$_rf_module/target/test-classes" "$_rf_snap/test-classes"
    _rf_cp=
    IFS=: read -r -a _rf_jars < "$_rf_module/target/test-classpath.txt" || true
    for _rf_jar in "${_rf_jars[@]}"; do
        [[ -f $_rf_jar ]] || continue
        _rf_copy="$_rf_snap/lib/$(basename "$_rf_jar")"
        cp "$_rf_jar" "$_rf_copy"
        _rf_cp="$_rf_cp:$_rf_copy"
    done
    printf '%s' "${_rf_cp#:}" > "$_rf_snap/test-classpath.txt"
    touch "$_rf_snap/.done"
fi
CP=$_rf_snap/test-classes:$_rf_snap/classes:$(cat "$_rf_snap/test-classpath.txt")
