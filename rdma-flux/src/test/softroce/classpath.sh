# Sourced by the guest scripts: the module's classes copied into the guest's own tmpfs once per
# boot, so a build running on the host meanwhile (same checkout, shared read-only) cannot pull
# classes from under a running test. Sets CP.
_rf_module="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
_rf_snap=/tmp/rdmaflux-classes
if [[ ! -f $_rf_snap/.done ]]; then
    rm -rf "$_rf_snap"
    mkdir -p "$_rf_snap"
    cp -r "$_rf_module/target/classes" "$_rf_snap/classes"
    cp -r "$_rf_module/target/test-classes" "$_rf_snap/test-classes"
    cp "$_rf_module/target/test-classpath.txt" "$_rf_snap/test-classpath.txt"
    touch "$_rf_snap/.done"
fi
CP=$_rf_snap/test-classes:$_rf_snap/classes:$(cat "$_rf_snap/test-classpath.txt")
